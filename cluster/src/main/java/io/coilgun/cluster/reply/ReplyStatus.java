package io.coilgun.cluster.reply;

import io.coilgun.planner.plan.TaskPlan;

/** What a task did with an event, as carried in its reply. */
public enum ReplyStatus {
    APPLIED, LATE, DROPPED, INVALID, FAILED,
    /** The event id was already accepted (within the dedup horizon): not counted again. */
    DUPLICATE,
    /** The answer to a probe whose event id was not accepted within the dedup horizon (nothing was applied). */
    NOT_DUPLICATE,
    /**
     * Not applied: the stream was gaining a decider and the event came to a task past its cut (a front end that did
     * not know yet); sent again, it goes to the decider.
     */
    RETRY;

    static ReplyStatus of(int ordinal) {
        return values()[ordinal];
    }

    /** The reply to what a task's plan made of an event. */
    public static ReplyStatus of(TaskPlan.Outcome outcome) {
        return switch (outcome) {
            case APPLIED -> APPLIED;
            case DROPPED -> DROPPED;
            case DUPLICATE -> DUPLICATE;
            case LATE -> LATE;
            case NULL_TIME -> INVALID;
        };
    }

    /** The message a reply of this status carries from task {@code task}, or null. */
    public String message(Object task) {
        return switch (this) {
            case DUPLICATE -> "duplicate event id: already counted";
            case LATE -> "event time is older than the stream time minus the stream's lateness (task " + task + ")";
            case INVALID -> "event time is NULL";
            default -> null;
        };
    }
}
