package io.coilgun.cluster.task;

import java.util.Locale;

/** Where a task processor stands, as {@code coilgun.tasks} shows it. */
public enum TaskState {
    /** Applying its partition's records. */
    RUNNING,
    /**
     * Rolled back to its last checkpoint after failing on an event, and applying the records after the checkpoint
     * again (without answering them twice) up to the one it failed on, which it skips.
     */
    RECOVERING,
    /**
     * Stopped: it failed too often in a short time, or could not reopen its data. Its partition is paused, its
     * records stay in Kafka, and statements that publish to it fail at once; a restart of the node reopens it.
     */
    FAILED;

    /** The name shown in {@code coilgun.tasks}. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
