package io.coilgun.server.query;

import io.coilgun.cluster.ClusterNode;
import io.coilgun.cluster.assign.ClusterView;
import io.coilgun.cluster.directory.NodeStatus;
import io.coilgun.cluster.task.TaskId;
import io.coilgun.cluster.task.TaskRole;
import io.coilgun.planner.model.StreamDef;
import java.util.List;

/** How far a stream's decider filled the partitioners added to the stream (ALTER STREAM … ADD PARTITION BY). */
public final class DeciderFills {
    private DeciderFills() {
    }

    /**
     * The fills the stream's decider reports ({@code +field:forwarded:total:elapsedMs}, none once every added
     * partitioner is live), from its active copy: this node's, or its node's status; null when not known now.
     */
    public static List<String> progress(ClusterNode cluster, StreamDef stream) {
        TaskId decider = TaskId.decider(stream);
        if (decider == null) {
            return List.of();
        }
        List<String> local = cluster.onTask(decider, t -> t.role() != TaskRole.ACTIVE ? null : t.backfillProgress())
                .join();
        if (local != null) {
            return local;
        }
        ClusterView.Member active = cluster.view().activeOf(decider);
        NodeStatus status = active == null ? null : cluster.directory().statuses().get(active.node());
        if (status == null) {
            return null;
        }
        for (NodeStatus.TaskCopy c : status.tasks()) {
            if (c.task().equals(decider.toString()) && c.role().equals("active")) {
                return c.backfills();
            }
        }
        return null;
    }

}
