package io.coilgun.cluster.assign;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coilgun.cluster.task.TaskId;
import io.coilgun.cluster.task.TaskRole;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * A cluster as the assignor sees it, for tests: nodes with units, the tasks each node has data for, and the last
 * placement; {@link #rebalance()} runs the assignor with what every unit would report and checks the invariants.
 */
final class AssignorModel {
    final Map<TaskId, Integer> copies = new LinkedHashMap<>();
    final Map<String, Integer> nodes = new LinkedHashMap<>(); // node -> units
    /** The tasks whose data a node has on disk (it held a copy once). */
    final Map<String, Set<TaskId>> data = new HashMap<>();
    TaskPlacements last = new TaskPlacements(Map.of());

    /** What the last rebalance cost. */
    int dataMoves;
    /** Copies placed on a unit that did not hold a copy of that task before (a promotion is no move). */
    int copyMoves;
    int promotions;
    int lowerBound;

    AssignorModel tasks(String topic, int partitions, int copiesEach) {
        for (int p = 0; p < partitions; p++) {
            copies.put(new TaskId(topic, p), copiesEach);
        }
        return this;
    }

    AssignorModel node(String node, int units) {
        nodes.put(node, units);
        data.computeIfAbsent(node, n -> new HashSet<>());
        return this;
    }

    void kill(String node) {
        nodes.remove(node); // its data stays on its disk, stale, if it comes back
    }

    static String member(String node, int unit) {
        return node + "/" + unit;
    }

    static String nodeOf(String member) {
        return member.substring(0, member.indexOf('/'));
    }

    /** The offset every replica reports (the actives report 100): 90 is caught up, 100 - 1000 or less is not. */
    long replicaOffset = 90;
    /** Nodes that are stopping (their units say they drain). */
    final Set<String> draining = new HashSet<>();

    List<UnitInfo> units() {
        List<UnitInfo> units = new ArrayList<>();
        for (var e : nodes.entrySet()) {
            for (int u = 0; u < e.getValue(); u++) {
                String m = member(e.getKey(), u);
                Map<TaskId, UnitInfo.Held> held = new HashMap<>();
                for (var t : last.tasks().entrySet()) {
                    if (m.equals(t.getValue().active())) {
                        held.put(t.getKey(), new UnitInfo.Held(TaskRole.ACTIVE, 100));
                    } else if (t.getValue().replicas().contains(m)) {
                        held.put(t.getKey(), new UnitInfo.Held(TaskRole.REPLICA, replicaOffset));
                    }
                }
                if (u == 0) { // a node reports its stale data through one unit
                    for (TaskId t : data.get(e.getKey())) {
                        if (!heldOnNode(t, e.getKey())) {
                            held.put(t, new UnitInfo.Held(TaskRole.STALE, 10));
                        }
                    }
                }
                units.add(new UnitInfo(m, e.getKey(), u, held, draining.contains(e.getKey())));
            }
        }
        return units;
    }

    private boolean heldOnNode(TaskId t, String node) {
        TaskPlacements.Copies c = last.of(t);
        if (c == null || !nodes.containsKey(node)) {
            return false;
        }
        if (c.active() != null && nodeOf(c.active()).equals(node)) {
            return true;
        }
        return c.replicas().stream().anyMatch(r -> nodeOf(r).equals(node));
    }

    /** Runs the assignor, checks every invariant, counts what moved, and makes the result the current placement. */
    TaskPlacements rebalance() {
        List<UnitInfo> units = units();
        Set<String> alive = new HashSet<>();
        units.forEach(u -> alive.add(u.member()));
        TaskPlacements next = TaskAssignor.assign(units, copies);
        // every node computes the placement on its own from the same view: it must be a function of that view
        TaskPlacements again = TaskAssignor.assign(units, copies);
        assertEquals(next.tasks(), again.tasks(), "the assignor gave two placements for one view");
        assertEquals(next.warmingUp(), again.warmingUp(), "the assignor gave two placements for one view");
        int unitCount = (int) Math.max(1, units.stream().filter(u -> !u.draining()).count());
        int totalCopies = 0;
        Map<String, Integer> activeLoad = new HashMap<>();
        Map<String, Integer> load = new HashMap<>();
        dataMoves = 0;
        copyMoves = 0;
        promotions = 0;
        int lost = 0;
        for (var e : copies.entrySet()) {
            TaskId t = e.getKey();
            int want = Math.min(e.getValue(), nodes.size() - draining.size());
            totalCopies += want;
            TaskPlacements.Copies c = next.of(t);
            assertNotNull(c, t + " placed");
            assertNotNull(c.active(), t + " has an active");
            boolean warming = next.warmingUp().contains(t);
            // a warm-up copy is one more than asked, where a node is free for it
            int extra = c.replicas().size() - (want - 1);
            assertTrue(extra == 0 || warming && extra == 1, t + " replicas (and a warm-up copy): " + c.replicas());
            List<String> all = new ArrayList<>(c.replicas());
            all.add(c.active());
            Set<String> onNodes = new TreeSet<>();
            for (String m : all) {
                assertTrue(alive.contains(m), m + " is a live unit");
                assertTrue(onNodes.add(nodeOf(m)), t + ": two copies on node " + nodeOf(m) + " " + all);
                load.merge(m, 1, Integer::sum);
                if (!data.get(nodeOf(m)).contains(t)) {
                    dataMoves++;
                }
            }
            if (!warming) { // an active waiting for its warm-up copy stays over budget, on purpose
                activeLoad.merge(c.active(), 1, Integer::sum);
            }
            TaskPlacements.Copies before = last.of(t);
            for (String m : all) {
                if (before == null || !m.equals(before.active()) && !before.replicas().contains(m)) {
                    copyMoves++;
                }
            }
            if (before != null) {
                if (before.replicas().contains(c.active())) {
                    promotions++;
                }
                List<String> had = new ArrayList<>(before.replicas());
                if (before.active() != null) {
                    had.add(before.active());
                }
                for (String m : had) {
                    if (!alive.contains(m)) {
                        lost++;
                    }
                }
                // copies beyond what fewer nodes can hold are not lost: they need no new home
                lost = Math.max(0, lost - Math.max(0, had.size() - want));
            }
        }
        int activeBudget = (copies.size() + unitCount - 1) / unitCount;
        int totalBudget = (totalCopies + unitCount - 1) / unitCount;
        int underfill = 0;
        for (String m : alive) {
            if (draining.contains(nodeOf(m))) {
                if (next.warmingUp().isEmpty()) {
                    assertEquals(0, load.getOrDefault(m, 0), m + " drained: it holds no copy");
                }
                continue;
            }
            assertTrue(activeLoad.getOrDefault(m, 0) <= activeBudget, m + " actives within budget");
            if (next.warmingUp().isEmpty()) { // while copies warm up, they fill units instead of actives
                assertTrue(load.getOrDefault(m, 0) <= totalBudget, m + " copies within budget");
                assertTrue(load.getOrDefault(m, 0) >= totalCopies / unitCount, m + " has at least its floor of copies");
                assertTrue(activeLoad.getOrDefault(m, 0) >= copies.size() / unitCount, m + " has its floor of actives");
            }
            int kept = 0;
            for (var t : last.tasks().entrySet()) {
                if (m.equals(t.getValue().active()) || t.getValue().replicas().contains(m)) {
                    kept++;
                }
            }
            underfill += Math.max(0, totalCopies / unitCount - kept);
        }
        lowerBound = last.tasks().isEmpty() ? totalCopies : Math.max(lost, underfill);
        for (var e : next.tasks().entrySet()) {
            data.get(nodeOf(e.getValue().active())).add(e.getKey());
            e.getValue().replicas().forEach(r -> data.get(nodeOf(r)).add(e.getKey()));
        }
        last = next;
        return next;
    }
}
