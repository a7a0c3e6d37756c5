package io.coilgun.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coilgun.cluster.assign.ClusterView;
import io.coilgun.cluster.assign.TaskPlacements;
import io.coilgun.cluster.task.TaskId;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class DrainTest {
    static final TaskId T0 = new TaskId("coilgun.stream.p.card", 0);
    static final TaskId T1 = new TaskId("coilgun.stream.p.card", 1);

    /** Generation {@code g}: T0 led by {@code t0}, T1 by {@code t1} (n1's unit is m1, n2's m2). */
    static ClusterView view(int g, String t0, String t1) {
        return new ClusterView(g, Map.of("m1", new ClusterView.Member("n1", 0), "m2", new ClusterView.Member("n2", 0)),
                new TaskPlacements(Map.of(T0, new TaskPlacements.Copies(t0, List.of()),
                        T1, new TaskPlacements.Copies(t1, List.of()))));
    }

    @Test
    void aNodeAloneHasNoOneToHandOverTo() {
        NodeTasks tasks = new NodeTasks("n1");
        tasks.placed(new ClusterView(1, Map.of("m1", new ClusterView.Member("n1", 0)), new TaskPlacements(Map.of(
                T0, new TaskPlacements.Copies("m1", List.of())))));
        AtomicInteger asked = new AtomicInteger();
        assertTrue(new Drain(tasks, asked::incrementAndGet, Progress.NONE).run(60_000));
        assertEquals(0, asked.get(), "its units were not asked to drain");
    }

    @Test
    void itEndsWhenThePlacementLeavesTheNodeNoTask() throws Exception {
        NodeTasks tasks = new NodeTasks("n1");
        tasks.placed(view(1, "m1", "m1"));
        AtomicInteger asked = new AtomicInteger();
        List<long[]> reports = new CopyOnWriteArrayList<>();
        CompletableFuture<Boolean> drained = CompletableFuture.supplyAsync(() -> new Drain(tasks,
                asked::incrementAndGet, (op, done, total) -> reports.add(new long[] {done, total})).run(60_000));
        ReplayWaitTest.awaitReport(reports); // a report after a second
        tasks.placed(view(2, "m2", "m1")); // one moved
        Thread.sleep(200);
        assertFalse(drained.isDone(), "one task is still led here");
        tasks.placed(view(3, "m2", "m2"));
        assertTrue(drained.get(10, TimeUnit.SECONDS), "woken by the placement that leaves it none");
        assertEquals(1, asked.get(), "its units were asked to drain, once");
        assertTrue(reports.size() >= 2, "a report while it lasted and one at its end: " + reports.size());
        assertEquals(0, reports.get(0)[0]);
        assertEquals(2, reports.get(0)[1], "two led at the start");
        long[] last = reports.get(reports.size() - 1);
        assertEquals(2, last[0], "the bar ends full");
        assertEquals(2, last[1]);
    }

    @Test
    void itGivesUpAfterItsTimeout() {
        NodeTasks tasks = new NodeTasks("n1");
        tasks.placed(view(1, "m1", "m2"));
        long began = System.nanoTime();
        assertFalse(new Drain(tasks, () -> { }, Progress.NONE).run(300));
        assertTrue(System.nanoTime() - began >= 300_000_000L);
    }
}
