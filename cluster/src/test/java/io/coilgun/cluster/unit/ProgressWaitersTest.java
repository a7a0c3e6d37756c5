package io.coilgun.cluster.unit;

import static io.coilgun.cluster.unit.TestTasks.TP0;
import static io.coilgun.cluster.unit.TestTasks.TP1;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** Waiting for a task to reach an offset: at once when it has or is gone, else at the first check after it does. */
class ProgressWaitersTest {
    final ProgressWaiters waiters = new ProgressWaiters();
    final Map<TopicPartition, Long> next = new HashMap<>();
    final ProgressWaiters.Progress progress = tp -> next.getOrDefault(tp, ProgressWaiters.GONE);

    CompletableFuture<Long> await(TopicPartition tp, long offset) {
        CompletableFuture<Long> done = new CompletableFuture<>();
        waiters.await(tp, offset, done, progress);
        return done;
    }

    @Test
    void aTaskPastTheOffsetAnswersAtOnceWithItsPosition() {
        next.put(TP0, 12L);
        assertEquals(12L, await(TP0, 10).getNow(-2L));
        assertEquals(12L, await(TP0, 12).getNow(-2L), "every record before 12 applied");
        assertEquals(0, waiters.size());
    }

    @Test
    void aTaskNotHeldOrStoppedAnswersAtOnceWithTheOffset() {
        assertEquals(10L, await(TP1, 10).getNow(-2L));
        assertEquals(0, waiters.size());
    }

    @Test
    void aWaiterGoesOnAtTheFirstCheckAfterItsTaskReachedTheOffset() {
        next.put(TP0, 3L);
        next.put(TP1, 0L);
        CompletableFuture<Long> five = await(TP0, 5);
        CompletableFuture<Long> seven = await(TP0, 7);
        CompletableFuture<Long> other = await(TP1, 1);
        waiters.check(progress);
        assertFalse(five.isDone());
        assertEquals(3, waiters.size());
        next.put(TP0, 6L);
        waiters.check(progress);
        assertEquals(6L, five.getNow(-2L));
        assertFalse(seven.isDone());
        next.remove(TP1); // the task moved away (or stopped): it goes no further here
        waiters.check(progress);
        assertEquals(1L, other.getNow(-2L));
        assertEquals(1, waiters.size());
        waiters.releaseAll(); // the unit stops
        assertEquals(7L, seven.getNow(-2L));
        assertEquals(0, waiters.size());
    }

    @Test
    void nobodyWaitingCostsNoLookUp() {
        waiters.check(tp -> {
            throw new AssertionError("looked up " + tp);
        });
    }
}
