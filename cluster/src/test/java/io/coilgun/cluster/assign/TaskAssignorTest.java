package io.coilgun.cluster.assign;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coilgun.cluster.task.TaskId;
import io.coilgun.cluster.task.TaskRole;
import org.junit.jupiter.api.Test;

class TaskAssignorTest {
    @Test
    void oneNodeRunsEveryTaskSpreadOverItsUnits() {
        AssignorModel m = new AssignorModel().tasks("a", 12, 1).node("n1", 4);
        TaskPlacements p = m.rebalance();
        for (int u = 0; u < 4; u++) {
            assertEquals(3, p.activeOf(AssignorModel.member("n1", u)).size());
        }
        assertEquals(0, p.of(new TaskId("a", 0)).replicas().size());
    }

    @Test
    void replicasAreOnOtherNodesAndCappedByTheNodeCount() {
        AssignorModel m = new AssignorModel().tasks("a", 12, 3).node("n1", 2).node("n2", 2);
        m.rebalance(); // two nodes hold at most two copies; the model checks one copy per node
        assertEquals(1, m.last.of(new TaskId("a", 5)).replicas().size());
        m.node("n3", 2).rebalance();
        assertEquals(2, m.last.of(new TaskId("a", 5)).replicas().size());
    }

    @Test
    void aKilledNodesActivesMoveToTheirReplicas() {
        AssignorModel m = new AssignorModel().tasks("a", 24, 2).node("n1", 2).node("n2", 2).node("n3", 2);
        TaskPlacements before = m.rebalance();
        m.kill("n2");
        TaskPlacements after = m.rebalance();
        int led = 0;
        for (var e : before.tasks().entrySet()) {
            if (AssignorModel.nodeOf(e.getValue().active()).equals("n2")) {
                led++;
                assertEquals(e.getValue().replicas().get(0), after.of(e.getKey()).active(),
                        e.getKey() + " is led by its replica");
            }
        }
        assertTrue(led > 0);
        assertEquals(led, m.promotions);
    }

    @Test
    void nothingMovesWhenNothingChanged() {
        AssignorModel m = new AssignorModel().tasks("a", 30, 2).tasks("b", 7, 3).node("n1", 3).node("n2", 3)
                .node("n3", 2);
        TaskPlacements first = m.rebalance();
        TaskPlacements again = m.rebalance();
        assertEquals(first.tasks(), again.tasks());
        assertEquals(0, m.dataMoves);
    }

    @Test
    void aReturningNodeGetsBackTheTasksItHasDataFor() {
        AssignorModel m = new AssignorModel().tasks("a", 24, 2).node("n1", 2).node("n2", 2).node("n3", 2);
        m.rebalance();
        m.kill("n3");
        m.rebalance();
        m.node("n3", 2);
        TaskPlacements back = m.rebalance();
        int moved = m.copyMoves;
        int onNewData = m.dataMoves;
        // replica first: n3's old data comes back as replicas (warm-up copies) while the actives stay where they run
        for (var e : back.tasks().entrySet()) {
            assertTrue(!AssignorModel.nodeOf(e.getValue().active()).equals("n3"), e.getKey() + " is not led cold by n3");
        }
        m.rebalance(); // the leader's probe: the copies caught up
        moved += m.copyMoves;
        onNewData += m.dataMoves;
        // n3 gets its share back, nearly all of it copies of tasks whose data it kept; a few replicas move to make
        // room where one copy per node leaves no other choice; its actives come as changes of role
        assertTrue(moved >= 12, "n3's units are refilled: " + moved);
        assertTrue(onNewData <= moved / 4, onNewData + " of " + moved + " moved onto new data");
        assertTrue(m.promotions > 0, "n3 leads some tasks now, taken over by its caught-up copies");
    }

    /**
     * Replica first: a node joins a cluster whose tasks have no replica. The actives balance would move stay where
     * they are while the new node's units warm up copies of them, and move (a change of role) only once those are
     * caught up; meanwhile every task has a running active.
     */
    @Test
    void aJoiningNodeWarmsUpCopiesBeforeItLeads() {
        AssignorModel m = new AssignorModel().tasks("a", 8, 1).node("n1", 2);
        TaskPlacements first = m.rebalance();
        m.node("n2", 2);
        m.replicaOffset = 100 - TaskAssignor.ACCEPTABLE_LAG - 1; // not caught up yet
        for (int round = 0; round < 2; round++) {
            TaskPlacements warming = m.rebalance();
            assertEquals(4, warming.warmingUp().size(), "half the tasks warm up on n2");
            for (var e : warming.tasks().entrySet()) {
                assertEquals(first.of(e.getKey()).active(), e.getValue().active(), "no active moves yet");
                if (warming.warmingUp().contains(e.getKey())) {
                    assertEquals("n2", AssignorModel.nodeOf(e.getValue().replicas().get(0)), "warmed up on n2");
                }
            }
            assertEquals(0, m.promotions);
        }
        m.replicaOffset = 100 - TaskAssignor.ACCEPTABLE_LAG; // caught up
        TaskPlacements moved = m.rebalance();
        assertTrue(moved.warmingUp().isEmpty());
        assertEquals(4, m.promotions, "the warm-up copies take over");
        for (int u = 0; u < 2; u++) {
            assertEquals(2, moved.activeOf(AssignorModel.member("n2", u)).size());
        }
        assertEquals(0, moved.of(new TaskId("a", 0)).replicas().size(), "the old copies are dropped");
    }

    /** A stopping node hands its actives over the same way: warm-up copies elsewhere first, then a change of role. */
    @Test
    void aDrainingNodeHandsItsTasksOverReplicaFirst() {
        AssignorModel m = new AssignorModel().tasks("a", 8, 1).node("n1", 2).node("n2", 2);
        TaskPlacements before = m.rebalance();
        m.draining.add("n2");
        m.replicaOffset = 100 - TaskAssignor.ACCEPTABLE_LAG - 1;
        TaskPlacements warming = m.rebalance();
        assertEquals(4, warming.warmingUp().size(), "n2's four tasks warm up on n1");
        for (var e : warming.tasks().entrySet()) {
            assertEquals(before.of(e.getKey()).active(), e.getValue().active(), "no active moves yet");
        }
        m.replicaOffset = 100;
        TaskPlacements drained = m.rebalance();
        assertTrue(drained.warmingUp().isEmpty());
        assertEquals(4, m.promotions);
        for (var e : drained.tasks().values()) {
            assertEquals("n1", AssignorModel.nodeOf(e.active()));
        }
    }

    /**
     * The rolling restart's case: a draining node leads two tasks whose hot replicas are on units that lead as many as
     * their budget allows, while units with room hold only old data of them. The actives go to the hot replicas, over
     * budget (a change of role, no catch-up), never to a unit that would open them cold; the units with room get
     * warm-up copies, and the actives move on once those caught up.
     */
    @Test
    void aDrainingNodesActiveGoesToItsHotReplicaEvenOverBudget() {
        TaskId t0 = new TaskId("a", 0);
        TaskId t1 = new TaskId("a", 1);
        TaskId t2 = new TaskId("a", 2);
        TaskId t3 = new TaskId("a", 3);
        java.util.List<UnitInfo> units = java.util.List.of(
                unit("n1", 0, false, java.util.Map.of(t2, held(TaskRole.ACTIVE, 100), t0, held(TaskRole.REPLICA, 99))),
                unit("n1", 1, false, java.util.Map.of(t3, held(TaskRole.ACTIVE, 100), t1, held(TaskRole.REPLICA, 99))),
                unit("n2", 0, false, java.util.Map.of(t2, held(TaskRole.REPLICA, 99), t0, held(TaskRole.STALE, 10))),
                unit("n2", 1, false, java.util.Map.of(t3, held(TaskRole.REPLICA, 99), t1, held(TaskRole.STALE, 10))),
                unit("n3", 0, true, java.util.Map.of(t0, held(TaskRole.ACTIVE, 100))),
                unit("n3", 1, true, java.util.Map.of(t1, held(TaskRole.ACTIVE, 100))));
        TaskPlacements p = TaskAssignor.assign(units, java.util.Map.of(t0, 2, t1, 2, t2, 2, t3, 2));
        assertEquals("n1/0", p.of(t0).active(), "t0 is led by its hot replica");
        assertEquals("n1/1", p.of(t1).active(), "t1 is led by its hot replica");
        assertTrue(p.warmingUp().containsAll(java.util.Set.of(t0, t1)), "and moves on later: " + p.warmingUp());
        assertTrue(p.of(t0).replicas().stream().anyMatch(r -> r.startsWith("n2/")), "a warm-up copy on n2");
    }

    /**
     * The same when the node died (it is no member any more): its tasks are led by their hot replicas over budget,
     * never opened cold on the units with room (a replay of the whole partition, answering nothing meanwhile).
     */
    @Test
    void aDeadNodesActiveGoesToItsHotReplicaEvenOverBudget() {
        TaskId t0 = new TaskId("a", 0);
        TaskId t1 = new TaskId("a", 1);
        TaskId t2 = new TaskId("a", 2);
        TaskId t3 = new TaskId("a", 3);
        java.util.List<UnitInfo> units = java.util.List.of(
                unit("n1", 0, false, java.util.Map.of(t2, held(TaskRole.ACTIVE, 100), t0, held(TaskRole.REPLICA, 99))),
                unit("n1", 1, false, java.util.Map.of(t3, held(TaskRole.ACTIVE, 100), t1, held(TaskRole.REPLICA, 99))),
                unit("n2", 0, false, java.util.Map.of(t2, held(TaskRole.REPLICA, 99))),
                unit("n2", 1, false, java.util.Map.of(t3, held(TaskRole.REPLICA, 99))));
        TaskPlacements p = TaskAssignor.assign(units, java.util.Map.of(t0, 2, t1, 2, t2, 2, t3, 2));
        assertEquals("n1/0", p.of(t0).active(), "t0 is led by its hot replica");
        assertEquals("n1/1", p.of(t1).active(), "t1 is led by its hot replica");
        assertTrue(p.warmingUp().containsAll(java.util.Set.of(t0, t1)), "and moves on later: " + p.warmingUp());
    }

    static UnitInfo unit(String node, int unit, boolean draining, java.util.Map<TaskId, UnitInfo.Held> held) {
        return new UnitInfo(AssignorModel.member(node, unit), node, unit, held, draining);
    }

    static UnitInfo.Held held(TaskRole role, long offset) {
        return new UnitInfo.Held(role, offset);
    }
}
