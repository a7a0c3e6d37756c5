package io.coilgun.cluster.ingest;

import io.coilgun.planner.error.CoilgunException;
import io.coilgun.planner.error.SqlState;

/**
 * A statement needs a task that is stopped (state {@code failed} in {@code coilgun.tasks}): an INSERT publishes nothing
 * rather than wait for a reply that will not come, a SELECT cannot read the task's state. SQLSTATE 55000.
 */
public final class TaskStoppedException extends CoilgunException {
    private static final long serialVersionUID = 1L;

    private final String task;
    private final String reason;

    public TaskStoppedException(String task, String reason) {
        super(SqlState.OBJECT_NOT_IN_PREREQUISITE_STATE, "task " + task + " is stopped: " + reason);
        this.task = task;
        this.reason = reason;
    }

    /** The task, {@code <topic>-<partition>}. */
    public String task() {
        return task;
    }

    /** Why it stopped. */
    public String reason() {
        return reason;
    }
}
