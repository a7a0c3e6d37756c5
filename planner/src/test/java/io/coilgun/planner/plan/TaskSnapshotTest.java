package io.coilgun.planner.plan;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coilgun.storage.snapshot.SnapshotFile;
import io.coilgun.storage.snapshot.SnapshotManifest;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A task copied from a snapshot taken while it runs (the prefix of each file the snapshot names, as a peer sends
 * it) goes on from the snapshot's offset with results identical, bit for bit, to the task it was copied from, for
 * every window kind, while the source keeps going (and retention and the reservoir's writer keep changing its files).
 */
class TaskSnapshotTest {
    @Test
    void aCopyGoesOnExactlyAsTheSource(@TempDir Path dir) throws IOException {
        List<byte[]> log = DeterminismTest.log(11, 6000);
        Object[][] expected = DeterminismTest.run(dir.resolve("reference"), log);
        for (int at : new int[] {0, 1, 777, 3001, 5999}) {
            Path source = dir.resolve("source-" + at);
            TaskPlan plan = DeterminismTest.open(source);
            TaskSnapshot snapshot = null;
            Path snap = dir.resolve("snapshot-" + at);
            try {
                for (int i = 0; i < log.size(); i++) {
                    if (i == at) {
                        snapshot = plan.snapshot(snap);
                    }
                    plan.process(log.get(i), i, new Object[5], new Object[plan.resultWidth()]);
                    if (i % 89 == 0) {
                        plan.checkpoint();
                    }
                }
            } finally {
                plan.close();
            }
            assertEquals(at, snapshot.nextOffset());
            SnapshotManifest manifest = SnapshotManifest.decode(
                    SnapshotManifest.of(snap, snapshot.nextOffset(), snapshot.files()).encode());
            Path copy = dir.resolve("copy-" + at);
            for (SnapshotManifest.Entry e : manifest.files()) {
                Path to = copy.resolve(e.path());
                Files.createDirectories(to.getParent());
                try (InputStream in = Files.newInputStream(snap.resolve(e.path()));
                        OutputStream out = Files.newOutputStream(to)) {
                    out.write(in.readNBytes((int) e.length()));
                }
                assertEquals(e.crc(), SnapshotManifest.crc(to, e.length()), e.path());
            }
            assertTrue(manifest.files().stream().anyMatch(f -> f.path().startsWith("state/")));
            if (at > 3000) {
                assertTrue(manifest.files().stream().anyMatch(f -> f.path().startsWith("reservoir/segment-")
                        && f.length() > 0), "sealed chunks in a segment: " + manifest.encode());
            }
            TaskPlan copied = DeterminismTest.open(copy);
            try {
                assertEquals(at, copied.nextOffset());
                for (int i = at; i < log.size(); i++) {
                    Object[] out = new Object[copied.resultWidth()];
                    TaskPlan.Outcome outcome = copied.process(log.get(i), i, new Object[5], out);
                    assertEquals(expected[i] != null, outcome == TaskPlan.Outcome.APPLIED, "event " + i);
                    if (expected[i] != null) {
                        assertArrayEquals(expected[i], out, "event " + i + " after a copy at " + at);
                    }
                }
            } finally {
                copied.close();
            }
        }
    }

    @Test
    void snapshotPathsStayInside() {
        for (String bad : new String[] {"/etc/passwd", "../x", "state/../../x", "a\\b", ""}) {
            org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                    () -> new SnapshotFile(bad, 1), bad);
        }
    }
}
