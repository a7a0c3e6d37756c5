package io.coilgun.planner.model;

/** What happens to an event older than the task's stream time minus the stream's lateness (docs/sql.md). */
public enum LatePolicy {
    /** The statement fails with a clear error and nothing changes. */
    REJECT,
    /** The event's time becomes stream time minus lateness. */
    CLAMP,
    /** The event is counted in statistics and otherwise ignored. */
    DROP
}
