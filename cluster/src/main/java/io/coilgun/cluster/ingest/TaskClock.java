package io.coilgun.cluster.ingest;

import io.coilgun.planner.plan.TaskPlan;

/**
 * What the front end knows of one task's stream time S, to judge lateness before publishing ({@link IngestGate}):
 * the task's own S (written by its processor thread after every event: one volatile store, no allocation) and
 * the highest event time the front end has published to the task since (written under the stream's ingest lock).
 * Every event published through the gate is accepted by the task, so the larger of the two is the task's S once it
 * has taken everything published so far.
 */
public final class TaskClock {
    private volatile long streamTime = TaskPlan.NO_TIME;
    /** Why the task is stopped (it takes no events), or null while it runs. */
    private volatile String stopped;
    /** Guarded by the stream's ingest lock ({@link EventPublisher#ingestLock}). */
    private long published = TaskPlan.NO_TIME;

    /** On the task's processor thread. */
    public void streamTime(long s) {
        streamTime = s;
    }

    /** On the task's processor thread: the task stopped for {@code reason}, or runs again (null). */
    public void stopped(String reason) {
        stopped = reason;
    }

    /** Why the task is stopped, or null while it runs: the front end refuses to publish to a stopped task. */
    public String stopped() {
        return stopped;
    }

    public long streamTime() {
        return streamTime;
    }

    /** S as it will be once the task has taken every event published to it so far. Under the ingest lock. */
    long expected() {
        return Math.max(streamTime, published);
    }

    /** Under the ingest lock: events up to {@code time} were published to the task. */
    void published(long time) {
        published = Math.max(published, time);
    }
}
