package io.coilgun.server.query;

import io.coilgun.planner.plan.MetricReplay;

/**
 * One task's rows of a REPLAY, wherever the task runs: {@link #local} on this node, or {@link RemoteReplays} on
 * another. Thread-safe; rows are the stream's columns then the metric's values.
 */
public interface ReplaySource {
    /** The next row, or null when none is waiting now. @throws IllegalStateException when the replay failed */
    Object[] poll();

    /** True once every row was produced and taken. */
    boolean ended();

    /** Runs (on any thread) when a row, the end or a failure is there. */
    void onAvailable(Runnable callback);

    /** Stops early and releases what it holds. */
    void cancel();

    /** A replay running on this node's unit. */
    static ReplaySource local(MetricReplay replay) {
        return new ReplaySource() {
            @Override
            public Object[] poll() {
                return replay.poll();
            }

            @Override
            public boolean ended() {
                return replay.ended();
            }

            @Override
            public void onAvailable(Runnable callback) {
                replay.onAvailable(callback);
            }

            @Override
            public void cancel() {
                replay.cancel();
            }
        };
    }
}
