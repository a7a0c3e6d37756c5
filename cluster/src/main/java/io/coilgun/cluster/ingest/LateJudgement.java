package io.coilgun.cluster.ingest;

/**
 * The stream times a statement's tasks will have, simulated over its rows so far ({@link IngestGate}): what a COPY
 * too big to publish at once carries from one batch to the next when it judges all its rows before publishing any
 * ({@link IngestService#judgeAhead}).
 */
public final class LateJudgement {
    private final long[][] times;
    private final boolean[][] known;

    LateJudgement(int topics) {
        this.times = new long[topics][];
        this.known = new boolean[topics][];
    }

    /** The simulated stream time of each task of partitioner topic {@code topic}. */
    long[] times(int topic, int tasks) {
        if (times[topic] == null || times[topic].length < tasks) {
            times[topic] = new long[tasks];
            known[topic] = new boolean[tasks];
        }
        return times[topic];
    }

    /** Whether {@link #times} holds a task's time yet (else it is read from its clock on first use). */
    boolean[] known(int topic, int tasks) {
        times(topic, tasks);
        return known[topic];
    }
}
