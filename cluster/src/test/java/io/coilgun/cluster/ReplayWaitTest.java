package io.coilgun.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coilgun.cluster.task.TaskId;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class ReplayWaitTest {
    static final TaskId T0 = new TaskId("coilgun.stream.p.card", 0);
    static final TaskId T1 = new TaskId("coilgun.stream.p.card", 1);
    static final TaskId ELSEWHERE = new TaskId("coilgun.stream.p.card", 2);

    /** Tasks T0 and T1 held here at offsets 10 and 20, ELSEWHERE held by another node; reached when completed. */
    static final class Fake implements TaskPositions {
        boolean placed = true;
        final Map<TaskId, Long> at = new ConcurrentHashMap<>(Map.of(T0, 10L, T1, 20L));
        final Map<TaskId, CompletableFuture<Long>> reached = new ConcurrentHashMap<>();

        @Override
        public boolean awaitPlaced(List<TaskId> ids, long timeoutMs) {
            return placed;
        }

        @Override
        public CompletableFuture<Long> reached(TaskId id, long offset) {
            return at.containsKey(id) ? reached.computeIfAbsent(id, k -> new CompletableFuture<>()) : null;
        }

        @Override
        public CompletableFuture<Long> position(TaskId id, long end) {
            Long now = at.get(id);
            return now == null ? null : CompletableFuture.completedFuture(Math.min(end, now));
        }
    }

    static Map<TopicPartition, Long> ends(List<TopicPartition> partitions) {
        Map<TopicPartition, Long> ends = new HashMap<>();
        partitions.forEach(tp -> ends.put(tp, 100L));
        return ends;
    }

    @Test
    void itReturnsWhenEveryTaskHeldHereReachedItsEnd() throws Exception {
        Fake tasks = new Fake();
        List<long[]> reports = new CopyOnWriteArrayList<>();
        CompletableFuture<Boolean> waited = CompletableFuture.supplyAsync(() -> new ReplayWait(tasks,
                ReplayWaitTest::ends, (op, done, total) -> reports.add(new long[] {done, total}))
                .awaitTasks(List.of(T0, T1, ELSEWHERE), 60_000));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (tasks.reached.size() < 2 && System.nanoTime() < deadline) {
            Thread.sleep(5); // until the wait read where the tasks start and asked to be told when they reach
        }
        tasks.reached.get(T0).complete(100L);
        tasks.at.put(T0, 100L);
        tasks.at.put(T1, 60L);
        awaitReport(reports); // a report after a second
        assertFalse(waited.isDone(), "T1 has not reached its end");
        tasks.at.put(T1, 100L);
        tasks.reached.get(T1).complete(100L);
        assertTrue(waited.get(10, TimeUnit.SECONDS), "not waiting for the task another node holds");
        assertTrue(reports.size() >= 2, "a report while it lasted and one at its end");
        assertEquals(90 + 40, reports.get(0)[0], "records applied since the start: 90 of T0, 40 of T1");
        assertEquals(90 + 80, reports.get(0)[1], "records to apply at the start");
        assertEquals(170, reports.get(reports.size() - 1)[0], "the bar ends full");
    }

    static void awaitReport(List<long[]> reports) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (reports.isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertFalse(reports.isEmpty(), "a report within 30 s");
    }

    @Test
    void nothingToWaitForAndNoReport() {
        Fake tasks = new Fake();
        List<long[]> reports = new CopyOnWriteArrayList<>();
        tasks.reached(T0, 100).complete(100L);
        tasks.reached(T1, 100).complete(100L);
        assertTrue(new ReplayWait(tasks, ReplayWaitTest::ends, (op, d, t) -> reports.add(new long[] {d, t}))
                .awaitTasks(List.of(T0, T1), 60_000));
        assertTrue(reports.isEmpty(), "a wait shorter than a second reports nothing");
        assertTrue(new ReplayWait(tasks, ReplayWaitTest::ends, Progress.NONE).awaitTasks(List.of(), 1));
    }

    @Test
    void notPlacedOrNotCaughtUpInTimeIsFalse() {
        Fake tasks = new Fake();
        tasks.placed = false;
        assertFalse(new ReplayWait(tasks, ReplayWaitTest::ends, Progress.NONE).awaitTasks(List.of(T0), 60_000));
        tasks.placed = true;
        long began = System.nanoTime();
        assertFalse(new ReplayWait(tasks, ReplayWaitTest::ends, Progress.NONE).awaitTasks(List.of(T0), 300));
        assertTrue(System.nanoTime() - began >= 300_000_000L);
    }
}
