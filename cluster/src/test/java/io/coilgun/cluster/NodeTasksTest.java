package io.coilgun.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coilgun.cluster.assign.ClusterView;
import io.coilgun.cluster.assign.TaskPlacements;
import io.coilgun.cluster.task.TaskId;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class NodeTasksTest {
    static final TaskId T0 = new TaskId("coilgun.stream.p.card", 0);
    static final TaskId T1 = new TaskId("coilgun.stream.p.card", 1);

    /** Generation {@code g}: T0 led by n2 (replica on n1), T1 led by n3. */
    static ClusterView view(int g) {
        Map<String, ClusterView.Member> members = Map.of("m1", new ClusterView.Member("n1", 0),
                "m2", new ClusterView.Member("n2", 0), "m3", new ClusterView.Member("n3", 1));
        return new ClusterView(g, members, new TaskPlacements(Map.of(
                T0, new TaskPlacements.Copies("m2", List.of("m1")),
                T1, new TaskPlacements.Copies("m3", List.of()))));
    }

    @Test
    void anOlderPlacementDoesNotReplaceANewerOne() {
        NodeTasks tasks = new NodeTasks("n1");
        assertNull(tasks.activeNodeOf(T0), "nothing placed yet");
        tasks.placed(view(5));
        tasks.placed(new ClusterView(4, Map.of(), new TaskPlacements(Map.of())));
        assertEquals(5, tasks.view().generation());
        assertEquals("n2", tasks.activeNodeOf(T0));
        assertEquals(List.of("n1"), tasks.replicaNodesOf(T0));
        assertEquals(List.of("n2", "n3"), tasks.otherNodes());
    }

    @Test
    void tasksLedElsewhereArePlacedWithoutAUnitHere() {
        NodeTasks tasks = new NodeTasks("n1");
        assertFalse(tasks.placed(List.of(T0, T1)));
        tasks.placed(view(1));
        assertTrue(tasks.placed(List.of(T0, T1)), "both led by other nodes");
        assertTrue(tasks.placed(List.of()), "nothing to place");
    }

    @Test
    void aWaiterWakesWithTheNewPlacement() throws Exception {
        NodeTasks tasks = new NodeTasks("n1");
        CompletableFuture<Boolean> waiter = CompletableFuture.supplyAsync(
                () -> tasks.await(() -> tasks.placed(List.of(T0, T1)), 60_000));
        Thread.sleep(50);
        tasks.placed(view(2));
        assertTrue(waiter.get(10, TimeUnit.SECONDS));
    }

    @Test
    void aTaskNotHeldHereIsReadAsNull() throws Exception {
        NodeTasks tasks = new NodeTasks("n1");
        assertFalse(tasks.holds(T0));
        assertNull(tasks.unitOf(T0));
        assertNull(tasks.onTask(T0, t -> "read").get(1, TimeUnit.SECONDS));
        assertEquals(List.of(), tasks.eachTask((u, t) -> t).get(1, TimeUnit.SECONDS), "no unit, no task");
    }
}
