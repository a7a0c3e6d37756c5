package io.coilgun.cluster;

import io.coilgun.cluster.task.TaskId;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/** Where the tasks this node holds are in their partitions: what a {@link ReplayWait} reads. */
interface TaskPositions {
    /** Waits until each of {@code ids} has an active unit, and those led here are open here; false on timeout. */
    boolean awaitPlaced(List<TaskId> ids, long timeoutMs);

    /**
     * Completes once task {@code id} applied every record before {@code offset} (at once when it is stopped); null
     * when no unit of this node holds it.
     */
    CompletableFuture<Long> reached(TaskId id, long offset);

    /** Task {@code id}'s next offset now, at most {@code end} ({@code end} when it is stopped); null when not held. */
    CompletableFuture<Long> position(TaskId id, long end);
}
