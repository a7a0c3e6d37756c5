package io.coilgun.cluster.unit;

import io.coilgun.cluster.assign.ClusterView;
import io.coilgun.cluster.assign.CoilgunAssignor;
import io.coilgun.cluster.assign.UnitInfo;
import io.coilgun.cluster.task.TaskId;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.consumer.Consumer;

/**
 * A processor unit as a member of the cluster's task group: what it tells {@link CoilgunAssignor} (the tasks it holds,
 * whether its node drains), the placement it last received, and when it asks the group to rebalance. The assignor
 * calls it on the unit's thread, inside the active consumer's poll; the unit's commands call it on that thread too.
 */
final class GroupMembership implements CoilgunAssignor.UnitContext {
    /** The tasks a unit holds, or has on the way to it ({@link TaskReconciler#addHeld}). */
    @FunctionalInterface
    interface HeldTasks {
        void addTo(Map<TaskId, UnitInfo.Held> held);
    }

    private final int index;
    private final UnitHost host;
    private final HeldTasks tasks;
    /** The assignment being received (set by the assignor inside the poll, used by the rebalance listener). */
    private ClusterView view = ClusterView.EMPTY;
    private String memberId = "";
    /** The node is stopping: the unit asks for no copy and hands its actives over (TaskAssignor, draining). */
    private volatile boolean draining;
    /** When this unit, the group's leader, rebalances again (System.nanoTime()), 0 for not planned. */
    private long rebalanceAt;
    /**
     * When the unit last asked the group to rebalance, and when it last joined (System.nanoTime()). Kafka forgets a
     * request made while a rebalance is under way (its member joined before the request: a drain, a change of
     * replicas the leader has not seen): the unit asks again once that rebalance is over.
     */
    private long askedAt;
    private long joinedAt;

    GroupMembership(int index, UnitHost host, HeldTasks tasks) {
        this.index = index;
        this.host = host;
        this.tasks = tasks;
    }

    /** The member id the group gave this unit at the last rebalance ("" before any). */
    String memberId() {
        return memberId;
    }

    @Override
    public String node() {
        return host.nodeId();
    }

    @Override
    public int unit() {
        return index;
    }

    @Override
    public Map<TaskId, UnitInfo.Held> held() {
        Map<TaskId, UnitInfo.Held> held = new HashMap<>(host.staleTasks());
        tasks.addTo(held);
        return held;
    }

    @Override
    public int copies(String topic) {
        return host.copies(topic);
    }

    @Override
    public boolean draining() {
        return draining;
    }

    /** The node is stopping: the unit tells the group at once (a rebalance), which moves its tasks away. */
    void startDraining() {
        draining = true;
        rebalanceIn(0);
    }

    @Override
    public void joining() {
        joinedAt = System.nanoTime();
    }

    /** Plans a rebalance in {@code delayMs}, unless one is planned sooner. */
    @Override
    public void rebalanceIn(long delayMs) {
        long at = System.nanoTime() + delayMs * 1_000_000L;
        if (rebalanceAt == 0 || at - rebalanceAt < 0) {
            rebalanceAt = at == 0 ? 1 : at;
        }
    }

    /** Asks the group to rebalance through {@code active} when a planned rebalance is due at {@code now}. */
    void rebalanceIfDue(Consumer<?, ?> active, long now) {
        if (rebalanceAt != 0 && now - rebalanceAt >= 0) {
            rebalanceAt = 0;
            askedAt = now;
            active.enforceRebalance(draining ? "the node drains" : "asked by the node or the leader");
        }
    }

    @Override
    public ClusterView lastView() {
        return view;
    }

    @Override
    public long replicaRestoreDelayMs() {
        return host.replicaRestoreDelayMs();
    }

    @Override
    public void assigned(ClusterView view, String memberId) {
        this.view = view;
        this.memberId = memberId;
        host.placed(view);
        if (askedAt - joinedAt > 0) {
            rebalanceIn(0); // asked while this rebalance was under way: it may not know why
        }
    }
}
