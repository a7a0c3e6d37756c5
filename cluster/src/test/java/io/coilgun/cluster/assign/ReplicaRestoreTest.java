package io.coilgun.cluster.assign;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coilgun.cluster.task.TaskId;
import io.coilgun.cluster.task.TaskRole;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Delayed restoration of replicas: what a departed or draining node's copies hold back, and for how long. */
class ReplicaRestoreTest {
    static final TaskId T0 = new TaskId("a", 0);
    static final TaskId T1 = new TaskId("a", 1);
    static final TaskId T2 = new TaskId("a", 2);

    /** The view before: n1 leads t0 and replicates t1; n2 leads t1, t2; n3 replicates t0, t2. */
    static ClusterView before(Map<String, ClusterView.AwayNode> away) {
        Map<String, ClusterView.Member> members = Map.of("m1", new ClusterView.Member("n1", 0),
                "m2", new ClusterView.Member("n2", 0), "m3", new ClusterView.Member("n3", 0));
        return new ClusterView(5, members, new TaskPlacements(Map.of(
                T0, new TaskPlacements.Copies("m1", List.of("m3")),
                T1, new TaskPlacements.Copies("m2", List.of("m1")),
                T2, new TaskPlacements.Copies("m2", List.of("m3")))), away);
    }

    static UnitInfo unit(String node, boolean draining) {
        return new UnitInfo("x" + node, node, 0, Map.of(), draining);
    }

    @Test
    void aNodeThatLeftHoldsBackNewCopiesOfItsTasksUntilTheDelayEnds() {
        ReplicaRestore r = ReplicaRestore.of(before(Map.of()), List.of(unit("n2", false), unit("n3", false)), 1_000,
                60_000);
        assertEquals(Set.of("n1"), r.away().keySet());
        assertEquals(Map.of(T0, 1, T1, 1), r.awaited());
        assertEquals(60_000, r.nextEndInMs());

        ClusterView next = new ClusterView(6, Map.of(), new TaskPlacements(Map.of()), r.away());
        ReplicaRestore later = ReplicaRestore.of(next, List.of(unit("n2", false), unit("n3", false)), 41_000, 60_000);
        assertEquals(Map.of(T0, 1, T1, 1), later.awaited(), "carried on from the view, from when it left");
        assertEquals(20_000, later.nextEndInMs());

        ReplicaRestore over = ReplicaRestore.of(next, List.of(unit("n2", false), unit("n3", false)), 61_000, 60_000);
        assertEquals(Map.of(), over.awaited(), "the wait is over: new copies are made");
        assertEquals(-1, over.nextEndInMs());
    }

    @Test
    void aDrainingNodeIsAwaitedBackAndAReturnedOneNoLonger() {
        ReplicaRestore draining = ReplicaRestore.of(before(Map.of()),
                List.of(unit("n1", true), unit("n2", false), unit("n3", false)), 1_000, 60_000);
        assertEquals(Map.of(T0, 1, T1, 1), draining.awaited());

        ClusterView next = new ClusterView(6, Map.of(), new TaskPlacements(Map.of()), draining.away());
        ReplicaRestore back = ReplicaRestore.of(next,
                List.of(unit("n1", false), unit("n2", false), unit("n3", false)), 5_000, 60_000);
        assertTrue(back.away().isEmpty(), "n1 is back with its copies: " + back.away());
    }

    @Test
    void noDelayMeansNoWait() {
        ReplicaRestore r = ReplicaRestore.of(before(Map.of()), List.of(unit("n2", false), unit("n3", false)), 1_000, 0);
        assertEquals(Map.of(), r.awaited());
        assertEquals(-1, r.nextEndInMs());
    }

    @Test
    void theAwayNodesTravelInTheView() {
        Map<String, ClusterView.AwayNode> away = Map.of("n1", new ClusterView.AwayNode(123, Set.of(T0, T1)));
        ClusterView v = before(away);
        ClusterView decoded = AssignmentCodec.decodeAssignment(
                AssignmentCodec.encodeAssignment(5, v.members(), v.placements(), away));
        assertEquals(away, decoded.away());
        assertEquals(v.placements().tasks(), decoded.placements().tasks());
    }

    /** A task whose copy is awaited back gets no new replica in its place; the others get theirs. */
    @Test
    void anAwaitedCopyIsNotReplacedByANewOne() {
        List<UnitInfo> units = List.of(
                TaskAssignorTest.unit("n2", 0, false, Map.of(T0, TaskAssignorTest.held(TaskRole.REPLICA, 9))),
                TaskAssignorTest.unit("n3", 0, false, Map.of(T1, TaskAssignorTest.held(TaskRole.ACTIVE, 9))));
        Map<TaskId, Integer> copies = Map.of(T0, 2, T1, 2);
        TaskPlacements now = TaskAssignor.assign(units, copies, Map.of(T0, 1, T1, 1));
        assertEquals("n2/0", now.of(T0).active(), "t0's replica leads it");
        assertEquals(List.of(), now.of(T0).replicas(), "t0 waits for n1's copy");
        assertEquals(List.of(), now.of(T1).replicas(), "t1 too");
        TaskPlacements later = TaskAssignor.assign(units, copies, Map.of());
        assertEquals(1, later.of(T0).replicas().size());
        assertEquals(1, later.of(T1).replicas().size());
    }
}
