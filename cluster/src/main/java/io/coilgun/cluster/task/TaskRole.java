package io.coilgun.cluster.task;

/** What a processor unit holds of a task: the active copy, a hot replica, or data left from an earlier role. */
public enum TaskRole {
    /** Consumes the task's partition in the active group and answers its statements. */
    ACTIVE,
    /** Consumes the same partition in the same order, keeps a hot reservoir and state store, answers nothing. */
    REPLICA,
    /** Not running it, but has its data on disk (a checkpoint that a replay from Kafka brings up to date). */
    STALE
}
