package io.coilgun.cluster.assign;

import io.coilgun.cluster.task.TaskId;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Delayed restoration of replicas. When a node leaves the group or drains, the tasks it held a copy of are short of
 * one; for {@code delay} they wait for that node to come back (a restart, a rolling upgrade) with its copies, which
 * then only replay what they missed, before other nodes get new copies to build (a peer copy of the whole task, or
 * a replay of its partition). Elasticsearch delays the allocation of a departed node's replicas the same way. An
 * active never waits: a hot replica takes over at once ({@link TaskAssignor}).
 *
 * <p>The group's leader works it out at each rebalance from the view before ({@link ClusterView#away()}) and the
 * members now, and carries it on in the view it hands out, so a new leader goes on from it. Pure logic.
 */
final class ReplicaRestore {
    private final Map<String, ClusterView.AwayNode> away;
    private final long nowMillis;
    private final long delayMs;

    private ReplicaRestore(Map<String, ClusterView.AwayNode> away, long nowMillis, long delayMs) {
        this.away = away;
        this.nowMillis = nowMillis;
        this.delayMs = delayMs;
    }

    /**
     * @param last the view of the previous rebalance, as this member received it
     * @param units the members now
     * @param delayMs how long a node's copies are awaited back; 0 for not at all
     */
    static ReplicaRestore of(ClusterView last, List<UnitInfo> units, long nowMillis, long delayMs) {
        Set<String> present = new HashSet<>();
        Set<String> draining = new HashSet<>();
        for (UnitInfo u : units) {
            (u.draining() ? draining : present).add(u.node());
        }
        present.removeAll(draining);
        Map<String, Set<TaskId>> held = new HashMap<>(); // node -> tasks it had a copy of in the last view
        last.placements().tasks().forEach((t, c) -> {
            if (c.active() != null && last.members().containsKey(c.active())) {
                held.computeIfAbsent(last.members().get(c.active()).node(), n -> new HashSet<>()).add(t);
            }
            for (String r : c.replicas()) {
                if (last.members().containsKey(r)) {
                    held.computeIfAbsent(last.members().get(r).node(), n -> new HashSet<>()).add(t);
                }
            }
        });
        Set<String> gone = new HashSet<>(last.away().keySet());
        for (ClusterView.Member m : last.members().values()) {
            gone.add(m.node());
        }
        gone.removeAll(present);
        Map<String, ClusterView.AwayNode> away = new HashMap<>();
        if (delayMs > 0) {
            for (String node : gone) {
                ClusterView.AwayNode before = last.away().get(node);
                long since = before == null ? nowMillis : before.sinceMillis();
                Set<TaskId> tasks = new HashSet<>(held.getOrDefault(node, Set.of()));
                if (before != null) {
                    tasks.addAll(before.tasks());
                }
                if (nowMillis - since < delayMs && !tasks.isEmpty()) {
                    away.put(node, new ClusterView.AwayNode(since, tasks));
                }
            }
        }
        return new ReplicaRestore(away, nowMillis, delayMs);
    }

    /** The nodes whose copies are still awaited back, to carry on in the next view. */
    Map<String, ClusterView.AwayNode> away() {
        return away;
    }

    /** Per task, how many of its copies are awaited back (no new copy is made for those yet). */
    Map<TaskId, Integer> awaited() {
        Map<TaskId, Integer> awaited = new HashMap<>();
        for (ClusterView.AwayNode n : away.values()) {
            for (TaskId t : n.tasks()) {
                awaited.merge(t, 1, Integer::sum);
            }
        }
        return awaited;
    }

    /** In how many ms the first awaited node's wait ends (the leader rebalances then), or -1 when none waits. */
    long nextEndInMs() {
        long next = -1;
        for (ClusterView.AwayNode n : away.values()) {
            long in = Math.max(0, n.sinceMillis() + delayMs - nowMillis);
            next = next < 0 ? in : Math.min(next, in);
        }
        return next;
    }
}
