package io.coilgun.cluster.task;

import java.util.ArrayDeque;

/**
 * When a failing task goes on and when it stops. A task that fails on an event or a backfill rolls back to its
 * checkpoint and goes on ({@link TaskProcessor}, "Failures stay inside the task"): an event is deterministic, so the
 * same event fails the same way on every node and every replay, and skipping it is the one way to make progress. A
 * task that fails {@link #MAX_FAILURES} times within {@link #FAILURE_WINDOW_MS} is not deterministic trouble but a
 * sick environment (disk, memory): it stops ({@link TaskState#FAILED}) until the node restarts. An event its stream's
 * decider accepted is the exception ({@link #retryDecided}): taken again once, then the task stops.
 *
 * <p>Also what {@code coilgun.tasks} shows of the task's failures: the last one's message and time. Only the task's
 * unit thread calls it, never on an event that succeeds.
 */
final class TaskFailurePolicy {
    static final int MAX_FAILURES = 5;
    static final long FAILURE_WINDOW_MS = 60_000;

    /** Wall-clock times (ms) of the recent failures, oldest first. */
    private final ArrayDeque<Long> recent = new ArrayDeque<>();
    /** The last failure's message and time (wall clock, ms); null/0 before any. */
    private String lastError;
    private long lastErrorAt;

    /** Errors of the JVM itself (out of memory, internal errors) are not a task's to handle: they go on up. */
    static void rethrowIfFatal(Throwable t) {
        if (t instanceof VirtualMachineError && !(t instanceof StackOverflowError)) {
            throw (VirtualMachineError) t;
        }
    }

    /** The offset of the decided event last taken again after a failure, or -1. */
    private long retriedDecided = -1;

    /**
     * A decided event (a stream with a decider) failed at {@code offset}: whether to roll back and take it again
     * (its first failure: the fault may be passing) rather than stop. A decided event is never skipped: the other
     * partitionings apply it, so skipping it here would make them disagree.
     */
    boolean retryDecided(long offset) {
        if (retriedDecided == offset) {
            return false;
        }
        retriedDecided = offset;
        return true;
    }

    /** The task failed at {@code nowMillis}. */
    void failed(Throwable error, long nowMillis) {
        lastError = error.toString();
        lastErrorAt = nowMillis;
        recent.addLast(nowMillis);
        while (!recent.isEmpty() && recent.peekFirst() < nowMillis - FAILURE_WINDOW_MS) {
            recent.pollFirst();
        }
    }

    /**
     * Why the task must stop now, its last failure being {@code last}: it failed too often within the window; null
     * while it goes on.
     */
    String stopReason(String last) {
        if (recent.size() < MAX_FAILURES) {
            return null;
        }
        return "failed " + recent.size() + " times within " + FAILURE_WINDOW_MS / 1000 + " s, last: " + last;
    }

    /** The task stopped at {@code nowMillis} for {@code reason}, which is its last error from now on. */
    void stopped(String reason, long nowMillis) {
        lastError = reason;
        lastErrorAt = nowMillis;
    }

    /** The message of the task's last failure, or null. */
    String lastError() {
        return lastError;
    }

    /** When the task last failed (ms since the epoch), or 0. */
    long lastErrorAt() {
        return lastErrorAt;
    }
}
