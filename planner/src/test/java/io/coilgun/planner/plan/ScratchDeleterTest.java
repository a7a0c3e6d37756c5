package io.coilgun.planner.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ScratchDeleterTest {
    @TempDir
    Path root;

    /** The directory is gone from its place at once (a new one may start there), and deleted in the background. */
    @Test
    void movesAsideAtOnceThenDeletes() throws Exception {
        Path dir = root.resolve("backfill").resolve("m1");
        Files.createDirectories(dir.resolve("segments"));
        for (int i = 0; i < 50; i++) {
            Files.write(dir.resolve("segments").resolve("s" + i), new byte[4096]);
        }
        ScratchDeleter.deleteLater(dir);
        assertFalse(Files.exists(dir));
        Files.createDirectories(dir); // the next fill of that name
        assertEquals(List.of(dir), BackfillPropertyTest.listFilesEventually(root.resolve("backfill"), 1));
        ScratchDeleter.deleteLater(root.resolve("nothing here")); // nothing to do, no error
    }
}
