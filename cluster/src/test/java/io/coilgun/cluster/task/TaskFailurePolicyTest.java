package io.coilgun.cluster.task;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/** When a failing task goes on and when it stops, and what it shows of its failures. */
class TaskFailurePolicyTest {
    final TaskFailurePolicy policy = new TaskFailurePolicy();

    @Test
    void aTaskStopsAtItsFifthFailureWithinAMinute() {
        long t = 1_000_000;
        for (int i = 0; i < TaskFailurePolicy.MAX_FAILURES - 1; i++) {
            policy.failed(new IllegalStateException("bad " + i), t + i * 1_000);
            assertNull(policy.stopReason("bad " + i), "it rolls back and goes on");
        }
        assertEquals("java.lang.IllegalStateException: bad 3", policy.lastError());
        assertEquals(t + 3_000, policy.lastErrorAt());
        policy.failed(new IllegalStateException("bad 4"), t + 4_000);
        assertEquals("failed 5 times within 60 s, last: bad 4", policy.stopReason("bad 4"));
    }

    @Test
    void failuresOlderThanTheWindowNoLongerCount() {
        long t = 1_000_000;
        for (int i = 0; i < TaskFailurePolicy.MAX_FAILURES - 1; i++) {
            policy.failed(new IllegalStateException(), t);
        }
        policy.failed(new IllegalStateException(), t + TaskFailurePolicy.FAILURE_WINDOW_MS + 1);
        assertNull(policy.stopReason("x"), "one failure within the last minute");
    }

    @Test
    void aStopIsTheLastErrorFromThenOn() {
        assertNull(policy.lastError());
        assertEquals(0, policy.lastErrorAt());
        policy.stopped("cannot reopen its data: disk gone", 42);
        assertEquals("cannot reopen its data: disk gone", policy.lastError());
        assertEquals(42, policy.lastErrorAt());
    }

    @Test
    void onlyErrorsOfTheJvmItselfGoOnUp() {
        TaskFailurePolicy.rethrowIfFatal(new IllegalArgumentException());
        TaskFailurePolicy.rethrowIfFatal(new StackOverflowError()); // an event's deep expression: the task's to handle
        assertThrows(OutOfMemoryError.class, () -> TaskFailurePolicy.rethrowIfFatal(new OutOfMemoryError()));
    }
}
