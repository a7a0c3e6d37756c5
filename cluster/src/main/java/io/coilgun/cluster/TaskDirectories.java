package io.coilgun.cluster;

import io.coilgun.cluster.task.TaskId;
import io.coilgun.planner.plan.TaskPlan;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The tasks' data on this node's disk: one directory per task under {@code <data>/tasks} (its reservoir and state
 * store), named by its {@link TaskId}. Lists them, deletes a stream's, and reads the offset a closed copy was
 * checkpointed at (once per copy: a copy no unit holds does not change until one opens it again).
 */
final class TaskDirectories {
    private final Path root;
    /** The checkpointed next offsets of copies no unit holds, read once each ({@link #forget} when one opens). */
    private final Map<TaskId, Long> closedOffsets = new ConcurrentHashMap<>();

    TaskDirectories(Path dataDir) {
        this.root = dataDir.resolve("tasks");
    }

    /** Task {@code id}'s directory (which may not exist). */
    Path of(TaskId id) {
        return root.resolve(id.toString());
    }

    boolean exists(TaskId id) {
        return Files.isDirectory(of(id));
    }

    /** Every task with a directory here (names that are no task id are left out). */
    List<TaskId> list() throws IOException {
        List<TaskId> ids = new ArrayList<>();
        if (!Files.isDirectory(root)) {
            return ids;
        }
        try (var dirs = Files.list(root)) {
            for (Path dir : dirs.toList()) {
                try {
                    ids.add(TaskId.parse(dir.getFileName().toString()));
                } catch (RuntimeException e) {
                    // not a task's directory
                }
            }
        }
        return ids;
    }

    /** The next offset task {@code id}'s copy here was checkpointed at: 0 when there is none. Reads the disk. */
    long checkpointedNext(TaskId id) {
        return exists(id) ? TaskPlan.checkpointedNextOffset(of(id)) : 0;
    }

    /** As {@link #checkpointedNext}, for a copy no unit holds: read once, then remembered; 0 when unreadable. */
    long closedCopyNext(TaskId id) {
        return closedOffsets.computeIfAbsent(id, t -> {
            try {
                return TaskPlan.checkpointedNextOffset(of(t));
            } catch (RuntimeException e) {
                return 0L; // unreadable: offered to no one
            }
        });
    }

    /** Task {@code id}'s copy changes now (opened, or copied from a peer): its remembered offset is stale. */
    void forget(TaskId id) {
        closedOffsets.remove(id);
    }

    /** Deletes the directory of every task whose name starts with {@code prefix} (a stream's partitioner topics). */
    void deleteAll(String prefix) {
        if (!Files.isDirectory(root)) {
            return;
        }
        try (var dirs = Files.list(root)) {
            for (Path dir : dirs.filter(d -> d.getFileName().toString().startsWith(prefix)).toList()) {
                deleteRecursively(dir);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete the task directories under " + root + " starting with "
                    + prefix, e);
        }
    }

    private static void deleteRecursively(Path dir) throws IOException {
        try (var paths = Files.walk(dir)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        }
    }
}
