package io.coilgun.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coilgun.cluster.task.TaskId;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TaskDirectoriesTest {
    @TempDir
    Path data;

    @Test
    void noTasksDirectoryMeansNoTasks() throws Exception {
        TaskDirectories dirs = new TaskDirectories(data);
        assertEquals(List.of(), dirs.list());
        assertEquals(0, dirs.checkpointedNext(new TaskId("coilgun.stream.p.card", 0)), "no copy: from the start");
        dirs.deleteAll("coilgun.stream.p."); // nothing to delete, no error
    }

    @Test
    void listsTheTasksAndDeletesAStreamsOnly() throws Exception {
        TaskDirectories dirs = new TaskDirectories(data);
        TaskId p0 = new TaskId("coilgun.stream.p.card", 0);
        TaskId p1 = new TaskId("coilgun.stream.p.card", 1);
        TaskId pp = new TaskId("coilgun.stream.pp.card", 0); // a stream whose name starts like p's
        TaskId q = new TaskId("coilgun.stream.q.user", 3);
        for (TaskId id : List.of(p0, p1, pp, q)) {
            Files.createDirectories(dirs.of(id).resolve("state"));
            Files.writeString(dirs.of(id).resolve("state").resolve("file"), "x");
        }
        Files.createDirectories(data.resolve("tasks").resolve("not-a-task"));
        assertEquals(data.resolve("tasks").resolve("coilgun.stream.p.card-1"), dirs.of(p1));
        assertEquals(Set.of(p0, p1, pp, q), new HashSet<>(dirs.list()), "names that are no task id left out");

        dirs.deleteAll("coilgun.stream.p.");
        assertFalse(dirs.exists(p0));
        assertFalse(dirs.exists(p1));
        assertTrue(dirs.exists(pp), "another stream's directory stays");
        assertTrue(dirs.exists(q));
        assertEquals(Set.of(pp, q), new HashSet<>(dirs.list()));
    }

    @Test
    void anUnreadableClosedCopyIsOfferedToNoOne() throws Exception {
        TaskDirectories dirs = new TaskDirectories(data);
        TaskId id = new TaskId("coilgun.stream.p.card", 0);
        Files.createDirectories(dirs.of(id));
        Files.writeString(dirs.of(id).resolve("CURRENT"), "garbage"); // no task plan can read this
        assertEquals(0, dirs.closedCopyNext(id));
        dirs.forget(id);
        assertEquals(0, dirs.closedCopyNext(id));
    }
}
