package io.coilgun.cluster.unit;

import io.coilgun.cluster.assign.ClusterView;
import io.coilgun.cluster.assign.UnitInfo;
import io.coilgun.cluster.task.TaskId;
import io.coilgun.cluster.task.TaskProcessor;
import io.coilgun.cluster.task.TaskRole;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Map;
import java.util.concurrent.Semaphore;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/** What a processor unit needs from its node: the streams deployed here, the tasks' data, the node's view. */
public interface UnitHost {
    /** The node's id (a physical node: the assignor never puts two copies of a task on it). */
    String nodeId();

    /**
     * Opens task {@code id} for {@code unit} (on its opener thread) from its data on this node (empty when there is
     * none), after any other unit of the node has released it. Null when its stream is not deployed here (dropped
     * meanwhile), or when the unit stopped wanting it while it waited for the other unit ({@code wanted}, looked at
     * again after {@link #openWithdrawn}).
     */
    TaskProcessor open(TaskId id, ProcessorUnit unit, BooleanSupplier wanted);

    /** A unit no longer wants task {@code id}, which it may be waiting to open: that wait ends. */
    default void openWithdrawn(TaskId id) {
    }

    /**
     * On the unit's opener thread, before opening a task it was given: whether the node first copies it from a peer
     * (peer recovery), because this node has no copy of it, or one far behind, or one older than what Kafka still
     * holds ({@code logStart}, the partition's first offset). When true, {@code whenDone} is called (on another
     * thread) once the copy is in place ({@code true}) or could not be made ({@code false}); the unit opens the task
     * then.
     *
     * @param role what the unit runs it as
     */
    boolean recoverFirst(TaskId id, TaskRole role, long logStart, ProcessorUnit unit,
            Consumer<Boolean> whenDone);

    /** On the unit's thread: the unit no longer holds task {@code id} (closed, its data stays on disk). */
    void released(TaskId id, ProcessorUnit unit);

    /** The copies the tasks of a partitioner topic want (its stream's {@code replicas}). */
    int copies(String topic);

    /** How long the copies of a node that left or drains are awaited back before new ones are made (ms). */
    default long replicaRestoreDelayMs() {
        return 0;
    }

    /** Tasks with data on this node's disk that no unit of the node holds (candidates for a cheap move here). */
    Map<TaskId, UnitInfo.Held> staleTasks();

    /** The placement of the latest rebalance, as one of the node's units received it. */
    void placed(ClusterView view);

    /**
     * What lets units run background work (backfills, replays) in a slice: a unit takes a permit before a slice and
     * gives it back after, so that background work leaves at least one unit's core to live events. Permits: the
     * number of units minus one (1 on a node of two units or fewer).
     */
    default Semaphore backgroundSlots() {
        return UNLIMITED;
    }

    /** When the next background slice may begin (System.nanoTime): the node keeps background work to its share. */
    default long backgroundNotBefore() {
        return System.nanoTime();
    }

    /** A background slice ran from {@code began} to {@code ended} (System.nanoTime). */
    default void backgroundRan(long began, long ended) {
    }

    /** Background work new on a unit waits until {@code notBefore} (System.nanoTime) at least. */
    default void deferBackground(long notBefore) {
    }

    /** No limit (a host that does not share one): every unit runs its background work. */
    Semaphore UNLIMITED = new Semaphore(Integer.MAX_VALUE);

    /** Where the unit's and its tasks' meters go. */
    MeterRegistry meters();
}
