package io.coilgun.cluster.unit;

import io.coilgun.cluster.assign.ClusterView;
import io.coilgun.cluster.assign.CoilgunAssignor;
import io.coilgun.cluster.assign.UnitInfo;
import io.coilgun.cluster.task.TaskId;
import io.coilgun.cluster.task.TaskProcessor;
import io.coilgun.cluster.task.TaskRole;
import io.coilgun.cluster.task.TaskState;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The tasks of a processor unit, and what becomes of them when the group's assignment changes: which to open,
 * close, promote from replica to active, and which consumer reads each.
 *
 * <p>The active consumer is a member of the cluster's task group: Kafka gives it the partitions whose tasks the unit
 * leads. The replica consumer reads by manual assignment the tasks the unit keeps a hot replica of, and the tasks the
 * view gives the unit to lead before Kafka gives it their partition (a handover under the cooperative protocol: the
 * old leader gives it back first, {@link CoilgunAssignor}). A task stays open across rebalances while it stays on the
 * unit, whatever its role: a replica that becomes active is promoted without recovery. A task given to the unit is
 * opened by its {@link TaskOpener} and joins the unit between two polls ({@link #opened}).
 *
 * <p>Only the unit's thread calls it (the rebalance listener runs inside the active consumer's poll).
 */
final class TaskReconciler {
    private static final Logger LOG = LoggerFactory.getLogger(TaskReconciler.class);

    private final String unitName;
    private final UnitHost host;
    /** The unit, as the host knows it (null in tests whose host needs none). */
    private final ProcessorUnit unit;
    private final Consumer<byte[], byte[]> active;
    private final Consumer<byte[], byte[]> replica;
    /**
     * Asks Kafka for the partitions' first offsets and never fetches: the broker answers a connection's requests in
     * order, so the active consumer's question waited behind its fetch in flight (up to its 500 ms wait) for every
     * task opened.
     */
    private final Consumer<byte[], byte[]> offsets;
    private final TaskOpener opener;
    private final Map<TopicPartition, TaskProcessor> tasks = new HashMap<>();
    /**
     * The partitions the replica consumer reads: those of the unit's replicas, and those of the tasks it leads whose
     * Kafka partition it does not own yet.
     */
    private final Set<TopicPartition> replicaReads = new HashSet<>();
    /**
     * Tasks whose Kafka partition just came to the active consumer while the replica consumer read it (a task this
     * unit led before it owned the partition). Both consumers read it (the task skips what it applied) until the
     * active consumer's first record of it: its first fetch waits for the one in flight for the other partitions,
     * up to the fetch wait, which the task's events must not.
     */
    private final Set<TopicPartition> handingOver = new HashSet<>();
    /**
     * Tasks given to this unit that are not open yet (being opened, copied from a peer first where needed), with the
     * role they get.
     */
    private final Map<TopicPartition, TaskRole> opening = new HashMap<>();
    /**
     * Tasks promoted at the last rebalance, until their first event as active (System.nanoTime() of the promotion):
     * how long a handover kept events waiting is logged once per handover.
     */
    private final Map<TopicPartition, Long> promotedAt = new HashMap<>();

    TaskReconciler(String unitName, UnitHost host, ProcessorUnit unit, Consumer<byte[], byte[]> active,
            Consumer<byte[], byte[]> replica, Consumer<byte[], byte[]> offsets, TaskOpener opener) {
        this.unitName = unitName;
        this.host = host;
        this.unit = unit;
        this.active = active;
        this.replica = replica;
        this.offsets = offsets;
        this.opener = opener;
    }

    /** The task of {@code tp}, whatever its role, or null. */
    TaskProcessor task(TopicPartition tp) {
        return tasks.get(tp);
    }

    /** The unit's tasks (actives and replicas; a live view). */
    Collection<TaskProcessor> tasks() {
        return tasks.values();
    }

    /** Whether the replica consumer reads anything. */
    boolean replicating() {
        return !replicaReads.isEmpty();
    }

    /**
     * Where task {@code tp} is ({@link ProgressWaiters.Progress}): its next offset, or GONE when it goes no further
     * here (not held, or stopped).
     */
    long progress(TopicPartition tp) {
        TaskProcessor task = tasks.get(tp);
        return task == null || task.state() == TaskState.FAILED ? ProgressWaiters.GONE : task.nextOffset();
    }

    /** How far behind the end of its partition the task is, in records (-1 unknown). */
    long lag(TopicPartition tp) {
        if (!tasks.containsKey(tp)) {
            return -1;
        }
        OptionalLong lag = (replicaReads.contains(tp) ? replica : active).currentLag(tp);
        return lag.isPresent() ? lag.getAsLong() : -1;
    }

    /** Adds the tasks the unit holds, and those on their way to it, to what it tells the assignor. */
    void addHeld(Map<TaskId, UnitInfo.Held> held) {
        for (TaskProcessor task : tasks.values()) {
            // a replica still filling a metric from history is not caught up: led by it, the metric would answer
            // NULL until the fill ends, so a planned move waits for it (a failover still takes it over a cold copy)
            boolean filling = task.role() == TaskRole.REPLICA && task.hasBackfillWork();
            held.put(task.id(), new UnitInfo.Held(task.role(), filling ? 0 : task.nextOffset()));
        }
        for (TopicPartition tp : opening.keySet()) {
            held.putIfAbsent(TaskId.of(tp), new UnitInfo.Held(TaskRole.STALE, -1)); // its copy is on the way here
        }
    }

    /**
     * Makes the unit's tasks what the view says: the tasks it leads (the view's, whose Kafka partitions it owns or
     * will own at the next rebalance) and those it replicates. A task whose partition the active consumer owns is
     * read there; every other task through the replica consumer. Under the cooperative protocol Kafka revokes only
     * the partitions that move (before the new view is known) and names only the added ones; under the eager
     * protocol it revokes everything first.
     *
     * @param memberId the unit's member id in {@code view}
     * @param added the partitions the active consumer did not own before this rebalance
     */
    void reconcile(ClusterView view, String memberId, Set<TopicPartition> added) {
        long started = System.nanoTime();
        Set<TopicPartition> owned = active.assignment();
        Set<TopicPartition> leads = new HashSet<>(owned);
        for (TaskId id : view.placements().activeOf(memberId)) {
            leads.add(id.topicPartition());
        }
        Set<TopicPartition> replicas = new HashSet<>();
        for (TaskId id : view.placements().replicasOf(memberId)) {
            if (!leads.contains(id.topicPartition())) {
                replicas.add(id.topicPartition());
            }
        }
        // release first, so a task moving to another unit of this node can be opened there
        for (TopicPartition tp : new ArrayList<>(tasks.keySet())) {
            if (!leads.contains(tp) && !replicas.contains(tp)) {
                release(tp);
            }
        }
        for (TopicPartition tp : new ArrayList<>(opening.keySet())) {
            if (!leads.contains(tp) && !replicas.contains(tp)) {
                opening.remove(tp);
                opener.withdraw(tp); // a copy from a peer under way goes on, and stays on disk
            }
        }
        Set<TopicPartition> moved = new HashSet<>(added); // tasks whose reading consumer starts at their position
        Set<TopicPartition> all = new HashSet<>(leads);
        all.addAll(replicas);
        Map<TopicPartition, Long> logStarts = logStarts(all);
        for (TopicPartition tp : all) {
            TaskRole role = leads.contains(tp) ? TaskRole.ACTIVE : TaskRole.REPLICA;
            TaskProcessor task = tasks.get(tp);
            if (task == null) {
                if (!opening.containsKey(tp)) {
                    opener.open(tp, role, logStarts.getOrDefault(tp, 0L));
                }
                opening.put(tp, role);
            } else {
                changeRole(tp, task, role);
            }
        }
        assignReads(owned, moved);
        LOG.info("unit={} generation={} leads {} tasks ({} owned in Kafka), replicates {}, opens {}; in {} ms",
                unitName, view.generation(), leads.size(), owned.size(), replicas.size(), opening.size(),
                (System.nanoTime() - started) / 1_000_000);
    }

    /** A task the unit keeps takes its new role: a replica that becomes active is promoted. */
    private void changeRole(TopicPartition tp, TaskProcessor task, TaskRole role) {
        if (task.role() == TaskRole.REPLICA && role == TaskRole.ACTIVE) {
            int sent = task.promote(committed(tp));
            promotedAt.put(tp, System.nanoTime());
            LOG.info("unit={} task={} replica promoted to active; {} kept replies sent", unitName, task.id(), sent);
        } else if (task.role() != role) {
            LOG.info("unit={} task={} {} -> {}", unitName, task.id(), task.role(), role);
            task.role(role);
        }
    }

    /**
     * Which consumer reads each open task, and from where: a task whose partition the active consumer does not own
     * is read by the replica consumer; one whose partition just came to the active consumer from the replica
     * consumer is read by both until the handover ends ({@link #handingOver}). A consumer that starts reading a task
     * starts at its position.
     */
    private void assignReads(Set<TopicPartition> owned, Set<TopicPartition> moved) {
        Set<TopicPartition> before = new HashSet<>(replicaReads);
        handingOver.retainAll(owned);
        Set<TopicPartition> reads = new HashSet<>();
        for (var e : tasks.entrySet()) {
            TopicPartition tp = e.getKey();
            if (!owned.contains(tp)) {
                reads.add(tp);
            } else if (before.contains(tp) && e.getValue().state() != TaskState.FAILED) {
                handingOver.add(tp);
                reads.add(tp);
                moved.add(tp); // the active consumer starts at its position
            }
        }
        replicaReads.clear();
        replicaReads.addAll(reads);
        replica.assign(new HashSet<>(replicaReads)); // the partitions it keeps keep their positions
        for (TopicPartition tp : replicaReads) {
            if (!before.contains(tp) || moved.contains(tp) && !handingOver.contains(tp)) {
                replica.seek(tp, tasks.get(tp).nextOffset());
            }
        }
        for (TopicPartition tp : owned) {
            TaskProcessor task = tasks.get(tp);
            if (task == null) {
                active.pause(Set.of(tp)); // its stream is not here (dropped meanwhile), or its copy is on the way
            } else if (moved.contains(tp)) {
                active.seek(tp, task.nextOffset());
                if (task.state() == TaskState.FAILED) {
                    active.pause(Set.of(tp));
                }
            }
        }
    }

    /**
     * A task given to the unit is open (or could not be opened). It runs with the role it has now, unless it was
     * given to another unit or node meanwhile. A task whose data ends before the first offset Kafka still holds
     * cannot go on exactly (the events between are gone): it is stopped, loudly, never run from an empty or partial
     * window.
     *
     * @param running false when the unit is stopping (the task is closed again)
     * @param topics the topics the unit subscribes to: a task of another is discarded (its stream is being dropped)
     */
    void opened(TaskOpener.Opened opened, boolean running, Set<String> topics) {
        TopicPartition tp = opened.partition();
        TaskProcessor task = opened.task();
        // an earlier open of a task taken away and given again is not the one it waits for: closed like one given
        // elsewhere
        TaskRole role = opener.take(opened) ? opening.remove(tp) : null;
        if (opened.failure() != null) {
            LOG.error("unit={} task={} cannot be opened; it does not run here until the next rebalance", unitName, tp,
                    opened.failure());
            return;
        }
        if (task == null) {
            return;
        }
        if (role == null || tasks.containsKey(tp) || !running) {
            close(task, !topics.contains(tp.topic())); // given elsewhere meanwhile; its data stays on disk
            return;
        }
        long logStart = logStarts(Set.of(tp)).getOrDefault(tp, 0L);
        tasks.put(tp, task);
        task.role(role);
        if (task.nextOffset() < logStart) {
            task.stopFor("its history is lost: this node's copy ends at offset " + task.nextOffset() + ", Kafka keeps "
                    + "the partition only from offset " + logStart + " on, and no other node has a copy to recover "
                    + "from");
        }
        if (active.assignment().contains(tp)) {
            active.seek(tp, task.nextOffset());
            if (task.state() != TaskState.FAILED) {
                active.resume(Set.of(tp));
            }
        } else {
            replicaReads.add(tp);
            replica.assign(new HashSet<>(replicaReads));
            replica.seek(tp, task.nextOffset());
        }
        Boolean copied = opened.copied();
        LOG.info("unit={} task={} opened as {} at offset {}{}", unitName, task.id(), role, task.nextOffset(),
                copied == null ? "" : copied ? ", copied from a peer" : ", not copied: from its own data and Kafka");
    }

    /** Each partition's first offset in Kafka (what retention kept), for those this unit has not open or opening. */
    private Map<TopicPartition, Long> logStarts(Set<TopicPartition> partitions) {
        Set<TopicPartition> unopened = new HashSet<>(partitions);
        unopened.removeAll(tasks.keySet());
        unopened.removeAll(opening.keySet());
        if (unopened.isEmpty()) {
            return Map.of();
        }
        for (int attempt = 0; attempt < 3; attempt++) {
            try {
                return offsets.beginningOffsets(unopened, Duration.ofSeconds(5));
            } catch (WakeupException e) {
                // a wake-up call (when the offsets consumer is the active one, in tests): ask again
            } catch (RuntimeException e) {
                LOG.warn("unit={} first offsets of {} unknown ({})", unitName, unopened, e.toString());
                return Map.of();
            }
        }
        return Map.of();
    }

    /** The offset the task group committed for a partition (replies sent before it), or -1. */
    private long committed(TopicPartition tp) {
        for (int attempt = 0; attempt < 3; attempt++) {
            try {
                OffsetAndMetadata c = active.committed(Set.of(tp), Duration.ofSeconds(5)).get(tp);
                return c == null ? -1 : c.offset();
            } catch (WakeupException e) {
                // a command for the unit woke the consumer (meant for its poll, which waits 50 ms at most): ask
                // again. Taken as "no commit", a promoted decider would fill every added partitioner again
            } catch (RuntimeException e) {
                LOG.warn("unit={} task={} committed offset unknown ({}); every kept reply is sent", unitName, tp,
                        e.toString());
                return -1;
            }
        }
        LOG.warn("unit={} task={} committed offset unknown (woken up 3 times); every kept reply is sent", unitName, tp);
        return -1;
    }

    /**
     * The offsets of the active tasks, committed to the task group: the replies of the records before them were
     * sent. A replica promoted later re-sends the replies from there on.
     */
    Map<TopicPartition, OffsetAndMetadata> activePositions() {
        Map<TopicPartition, OffsetAndMetadata> positions = new HashMap<>();
        for (var e : tasks.entrySet()) {
            TopicPartition tp = e.getKey();
            if (e.getValue().role() == TaskRole.ACTIVE
                    && (!replicaReads.contains(tp) || handingOver.contains(tp))) { // its partition's owner
                positions.put(tp, new OffsetAndMetadata(e.getValue().committableOffset()));
            }
        }
        return positions;
    }

    // While the unit takes records

    /** Whether this unit leads the task of {@code tp}. */
    boolean ledHere(TopicPartition tp) {
        TaskProcessor task = tasks.get(tp);
        return task != null && task.role() == TaskRole.ACTIVE;
    }

    /** Whether the unit leads a task from its replica consumer (a handover under way). */
    boolean leadsFromReplica() {
        for (TopicPartition tp : replicaReads) {
            if (ledHere(tp)) {
                return true;
            }
        }
        return false;
    }

    /**
     * {@code consumer} hands records of {@code tp} to its task, the first of them published at
     * {@code firstTimestamp} (ms): the active consumer's first records end a handover, and a promoted task's first
     * event as active is logged. Two empty-set tests when neither is under way.
     */
    void taking(Consumer<byte[], byte[]> consumer, TopicPartition tp, TaskProcessor task, long firstTimestamp) {
        if (consumer == active && !handingOver.isEmpty() && handingOver.remove(tp)) {
            replicaReads.remove(tp); // the active consumer reads it now
            replica.assign(new HashSet<>(replicaReads));
        }
        if (!promotedAt.isEmpty() && task.role() == TaskRole.ACTIVE) {
            Long promoted = promotedAt.remove(tp);
            if (promoted != null) {
                LOG.info("unit={} task={} first event as active {} ms after the promotion, {} ms after it was sent "
                        + "(from the {} consumer)", unitName, task.id(), (System.nanoTime() - promoted) / 1_000_000,
                        System.currentTimeMillis() - firstTimestamp, consumer == active ? "active" : "replica");
            }
        }
    }

    /**
     * After a task rolled back: the consumers that read it read it again from its position, or no more while it is
     * stopped.
     */
    void rewind(Consumer<byte[], byte[]> consumer, TopicPartition tp, TaskProcessor task) {
        rewind(consumer, tp, task.state(), task.nextOffset());
        if (handingOver.contains(tp)) {
            rewind(consumer == active ? replica : active, tp, task.state(), task.nextOffset());
        }
    }

    private static void rewind(Consumer<byte[], byte[]> consumer, TopicPartition tp, TaskState state, long next) {
        if (state == TaskState.FAILED) {
            consumer.pause(Set.of(tp));
        } else {
            consumer.seek(tp, next);
        }
    }

    // Closing tasks

    /** Stops running the tasks of these topics and releases them without a checkpoint (their stream is dropped). */
    void discardTasksOf(Set<String> dropped) {
        for (TopicPartition tp : new ArrayList<>(tasks.keySet())) {
            if (dropped.contains(tp.topic())) {
                TaskProcessor task = forget(tp);
                task.discard();
                host.released(task.id(), unit);
            }
        }
        replica.assign(new HashSet<>(replicaReads));
    }

    /** Closes every task, with a checkpoint (the unit stops). */
    void releaseAll() {
        for (TopicPartition tp : new ArrayList<>(tasks.keySet())) {
            release(tp);
        }
    }

    /** Stops every task (the unit's thread died), so statements for them fail at once. */
    void stopAll(String reason) {
        for (TaskProcessor task : tasks.values()) {
            task.stopFor(reason);
        }
    }

    /** Closes a task this unit no longer holds, with a checkpoint; its data stays on the node's disk. */
    private void release(TopicPartition tp) {
        TaskProcessor task = forget(tp);
        if (task != null) {
            close(task, false);
        }
    }

    private TaskProcessor forget(TopicPartition tp) {
        replicaReads.remove(tp);
        handingOver.remove(tp);
        promotedAt.remove(tp);
        return tasks.remove(tp);
    }

    /** Closes a task (with a checkpoint, or discarded when its stream is being dropped) and tells the node. */
    private void close(TaskProcessor task, boolean discard) {
        try {
            if (discard) {
                task.discard();
            } else {
                task.close();
            }
        } catch (RuntimeException e) {
            LOG.error("unit={} task={} close failed", unitName, task.id(), e);
        } finally {
            host.released(task.id(), unit);
        }
    }

    /** Whether the replica consumer reads {@code tp} (tests). */
    boolean readsFromReplica(TopicPartition tp) {
        return replicaReads.contains(tp);
    }

    /** Whether {@code tp} is being opened for the unit (tests). */
    boolean isOpening(TopicPartition tp) {
        return opening.containsKey(tp);
    }

    /** Whether both consumers read {@code tp}, a handover under way (tests). */
    boolean handingOver(TopicPartition tp) {
        return handingOver.contains(tp);
    }
}
