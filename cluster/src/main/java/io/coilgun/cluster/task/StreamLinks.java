package io.coilgun.cluster.task;

import io.coilgun.cluster.reply.ReplyStatus;
import io.coilgun.planner.model.StreamDef;
import io.coilgun.planner.plan.TaskPlan;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * What a task does for the other tasks of its stream, besides applying events: a decider's forwards to the
 * partitioner topics ({@link Forwarder}) and its intake of the history judged before it existed ({@link Seeding}); a
 * partitioner task's cut when its stream gains a decider ({@link StreamCut}). A task of a stream with neither has
 * none of them, and every method here is then a no-op. Called on the task's thread, with its plan of the moment (a
 * rollback replaces it).
 */
final class StreamLinks {
    private Forwarder forwarder;
    private Seeding seeding;
    private StreamCut cut;

    void forwarder(Forwarder f) {
        this.forwarder = f;
    }

    void seeding(Seeding s) {
        this.seeding = s;
    }

    void cut(StreamCut c) {
        this.cut = c;
    }

    /** Whether the task is its stream's decider. */
    boolean decider() {
        return forwarder != null;
    }

    /** The plan was opened, or opened again at its checkpoint (a rollback): where each link stands in it. */
    void opened(TaskPlan plan, StreamDef stream) {
        if (forwarder != null) {
            plan.decider();
            forwarder.opened(plan, stream);
        }
        if (seeding != null) {
            seeding.opened(plan);
        }
        if (cut != null) {
            cut.stopWriting();
        }
    }

    /** A replica neither writes its history for a new decider nor merges the histories (its active does). */
    void roleChanged(TaskRole role) {
        if (role != TaskRole.ACTIVE) {
            if (cut != null) {
                cut.stopWriting();
            }
            if (seeding != null) {
                seeding.stopMerge();
            }
        }
    }

    /**
     * A decider's copy taking over ({@code committed}: the old active's commit) makes the forwards since then again,
     * never of the history; returns the replies it sent.
     */
    int takeOver(TaskPlan plan, StreamDef stream, long committed, ReplyEmitter replies, Runnable checkpoint) {
        long from = seeding == null ? committed : seeding.forwardsFrom(committed, plan);
        return forwarder.takeOver(plan, stream, from, replies, checkpoint);
    }

    boolean readyForCheckpoint(TaskPlan plan) {
        return forwarder == null || forwarder.readyForCheckpoint(plan);
    }

    /** The offset the task's group may commit, at most {@code next} ({@link Forwarder#committable}). */
    long committable(long next) {
        return forwarder == null ? next : forwarder.committable(next);
    }

    void streamChanged(StreamDef altered) {
        if (forwarder != null) {
            forwarder.streamChanged(altered);
        }
    }

    /** Whether the active copy writes its history for a new decider, or the new decider has the histories to merge. */
    boolean seedWork(TaskRole role, TaskPlan plan) {
        return role == TaskRole.ACTIVE && (cut != null && cut.due(plan) || seeding != null && seeding.turnDue());
    }

    /** Whether this is the active decider of a stream with a partitioner added and not filled yet. */
    boolean fillsPartitioners(TaskRole role) {
        return forwarder != null && role == TaskRole.ACTIVE && forwarder.filling()
                && (seeding == null || !seeding.waiting());
    }

    /** The background work of the active copy until {@code deadlineNanos}: history handed over, partitioners filled. */
    void background(TaskRole role, TaskPlan plan, StreamDef stream, long deadlineNanos) {
        if (seedWork(role, plan)) {
            if (cut != null) {
                cut.step(plan, stream.name(), deadlineNanos);
            } else {
                seeding.activeTurn(stream);
            }
        }
        if (fillsPartitioners(role)) {
            forwarder.fill(plan, stream, deadlineNanos);
        }
    }

    /** A decider's fills of added partitioners, for its status; null for any other task. */
    List<String> fillProgress(TaskRole role) {
        return forwarder == null ? null : role == TaskRole.ACTIVE ? forwarder.fillProgress() : List.of();
    }

    /** Before a record: the active decider sends what its checkpoint kept unacknowledged, before anything newer. */
    void beforeRecord(TaskRole role) {
        if (forwarder != null && role == TaskRole.ACTIVE) {
            forwarder.sendCarried();
        }
    }

    /** Whether the record is one of the links' own (a decider's markers, history; a cut marker): no event. */
    boolean isControl(ConsumerRecord<byte[], byte[]> record) {
        // a cut marker, like a decider's own markers, has no value: an event's record is never looked through for it
        return seeding != null && Seeding.isRecord(record.headers())
                || cut != null && record.value().length == 0 && StreamCut.isMarker(record.headers())
                || forwarder != null && Forwarder.isMarker(record);
    }

    /** Takes such a record (every copy, at its offset); throws when it could not (the task rolls back). */
    void control(ConsumerRecord<byte[], byte[]> record, TaskPlan plan, StreamDef stream, boolean active) {
        if (seeding != null && Seeding.isRecord(record.headers())) {
            seeding.take(record, plan, stream, active);
            return;
        }
        if (cut != null && StreamCut.isMarker(record.headers())) {
            cut.marker(record, plan);
        } else {
            forwarder.marker(record, plan, stream, active);
        }
        plan.skip(record.offset());
    }

    /**
     * Whether an event published by a front end is refused ({@link ReplyStatus#RETRY}): it reached a task past its
     * cut, or a decider still taking the history (a front end that did not know the stream is gaining a decider).
     */
    boolean refusesEvents(TaskPlan plan) {
        return plan.isCut() || seeding != null && seeding.waiting();
    }

    /** An event the decider accepted goes on to the partitioner topics. */
    void accepted(StreamDef stream, ConsumerRecord<byte[], byte[]> record, TaskPlan plan, boolean active,
            ReplyEmitter replies) {
        if (forwarder != null) {
            forwarder.accepted(stream, record, plan, active, replies);
        }
    }

    /** A forward Kafka refused, once (the decider then rolls back), or null. */
    Exception takeFailure() {
        return forwarder == null ? null : forwarder.takeFailure();
    }

    /** How many partitioners answer after the decider; -1 for any other task. */
    int followers(StreamDef stream) {
        return forwarder == null ? -1 : forwarder.followers(stream);
    }

    /** The task closes: its last checkpoint must cover every decision, forwarded; no merge goes on. */
    void close(boolean dirty) {
        if (forwarder != null && dirty) {
            forwarder.awaitSent();
        }
        if (seeding != null) {
            seeding.stopMerge();
        }
    }
}
