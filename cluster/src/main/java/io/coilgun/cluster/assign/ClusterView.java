package io.coilgun.cluster.assign;

import io.coilgun.cluster.task.TaskId;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The placement of every task after a rebalance, as each member receives it: who the members are (physical node
 * and unit) and each task's active and replica members. Every node learns where any task runs from it (routing,
 * {@code coilgun.tasks}).
 *
 * @param generation the group generation it belongs to (a later one replaces it)
 */
public record ClusterView(int generation, Map<String, Member> members, TaskPlacements placements,
        Map<String, AwayNode> away) {
    public static final ClusterView EMPTY = new ClusterView(-1, Map.of(), new TaskPlacements(Map.of()));

    /**
     * A node that left the group, or drains, recently: its copies are awaited back for a while before other nodes
     * get new ones ({@link ReplicaRestore}).
     *
     * @param sinceMillis when the group's leader first saw it gone or draining (wall clock)
     * @param tasks the tasks it held a copy of (active or replica) then
     */
    public record AwayNode(long sinceMillis, Set<TaskId> tasks) {
        public AwayNode {
            tasks = Set.copyOf(tasks);
        }
    }

    public ClusterView(int generation, Map<String, Member> members, TaskPlacements placements) {
        this(generation, members, placements, Map.of());
    }

    /** A processor unit of the group. */
    public record Member(String node, int unit) {
        @Override
        public String toString() {
            return node + "/unit-" + unit;
        }
    }

    public ClusterView {
        members = Map.copyOf(members);
        away = Map.copyOf(away);
    }

    /** The member leading {@code task}, or null when nobody does. */
    public Member activeOf(TaskId task) {
        TaskPlacements.Copies c = placements.of(task);
        return c == null || c.active() == null ? null : members.get(c.active());
    }

    /** The members holding a replica of {@code task}. */
    public List<Member> replicasOf(TaskId task) {
        TaskPlacements.Copies c = placements.of(task);
        return c == null ? List.of() : c.replicas().stream().map(members::get).toList();
    }

    /** The physical nodes of the group. */
    public List<String> nodes() {
        return members.values().stream().map(Member::node).distinct().sorted().toList();
    }
}
