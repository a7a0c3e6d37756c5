package io.coilgun.cluster.query;

import io.coilgun.cluster.task.TaskId;
import io.coilgun.cluster.task.TaskProcessor;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/** Where a read of a task goes: which node leads it, and how this node runs a read on a task it holds. */
public interface TaskRouter {
    /** This node's id. */
    String nodeId();

    /** The node whose unit leads task {@code id} in the latest placement, or null when none does. */
    String activeNodeOf(TaskId id);

    /**
     * Runs {@code read} on the thread of this node's unit that holds task {@code id}, between two events; completes
     * with null when this node does not hold it.
     */
    <T> CompletableFuture<T> onTask(TaskId id, Function<TaskProcessor, T> read);
}
