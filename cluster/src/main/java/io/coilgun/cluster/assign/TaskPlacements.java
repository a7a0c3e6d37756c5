package io.coilgun.cluster.assign;

import io.coilgun.cluster.task.TaskId;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Where every task runs: its active unit and its replicas' units (member ids). What the assignor computes and every
 * member receives, so each node knows where any task is (routing of reads and subscriptions).
 */
public final class TaskPlacements {
    /** The units of one task: the active first, then the replicas. */
    public record Copies(String active, List<String> replicas) {
        public Copies {
            replicas = List.copyOf(replicas);
        }
    }

    private final Map<TaskId, Copies> tasks;
    private final Set<TaskId> warmingUp;

    public TaskPlacements(Map<TaskId, Copies> tasks) {
        this(tasks, Set.of());
    }

    /** @param warmingUp the tasks with a warm-up copy (the leader's to know; not sent to the members) */
    public TaskPlacements(Map<TaskId, Copies> tasks, Set<TaskId> warmingUp) {
        this.tasks = Collections.unmodifiableMap(new LinkedHashMap<>(tasks));
        this.warmingUp = Set.copyOf(warmingUp);
    }

    /**
     * The tasks whose active stays on a unit over its budget while a warm-up replica catches up to take it over
     * (TaskAssignor, replica first): the leader rebalances again soon.
     */
    public Set<TaskId> warmingUp() {
        return warmingUp;
    }

    public Map<TaskId, Copies> tasks() {
        return tasks;
    }

    public Copies of(TaskId task) {
        return tasks.get(task);
    }

    /** The tasks {@code member} runs as the active copy. */
    public List<TaskId> activeOf(String member) {
        List<TaskId> out = new ArrayList<>();
        tasks.forEach((t, c) -> {
            if (member.equals(c.active())) {
                out.add(t);
            }
        });
        return out;
    }

    /** The tasks {@code member} runs as a replica. */
    public List<TaskId> replicasOf(String member) {
        List<TaskId> out = new ArrayList<>();
        tasks.forEach((t, c) -> {
            if (c.replicas().contains(member)) {
                out.add(t);
            }
        });
        return out;
    }
}
