package io.coilgun.cluster.assign;

import io.coilgun.cluster.task.TaskId;
import io.coilgun.cluster.task.TaskRole;
import java.util.Map;

/**
 * A processor unit as it joins the active group: the physical node it runs on, its index there, and what it holds
 * (each task with its role and the offset its local copy has reached, -1 when unknown).
 *
 * @param member the unit's member id in the group
 * @param draining the unit's node is stopping: it takes no copy, and hands its actives over replica first
 */
public record UnitInfo(String member, String node, int unit, Map<TaskId, Held> held, boolean draining) {
    public UnitInfo {
        held = Map.copyOf(held);
    }

    public UnitInfo(String member, String node, int unit, Map<TaskId, Held> held) {
        this(member, node, unit, held, false);
    }

    /** A task this unit holds: its role and the next offset of its local copy (-1 when unknown). */
    public record Held(TaskRole role, long offset) {
    }

    public Held held(TaskId task) {
        return held.get(task);
    }
}
