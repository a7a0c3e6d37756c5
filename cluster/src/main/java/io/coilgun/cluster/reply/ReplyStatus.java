package io.coilgun.cluster.reply;

/** What a task did with an event, as carried in its reply. */
public enum ReplyStatus {
    APPLIED, LATE, DROPPED, INVALID, FAILED,
    /** The event id was already accepted (within the dedup horizon): not counted again. */
    DUPLICATE,
    /** The answer to a probe whose event id was not accepted within the dedup horizon (nothing was applied). */
    NOT_DUPLICATE;

    static ReplyStatus of(int ordinal) {
        return values()[ordinal];
    }
}
