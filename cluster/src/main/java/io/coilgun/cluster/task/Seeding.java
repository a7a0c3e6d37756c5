package io.coilgun.cluster.task;

import io.coilgun.cluster.kafka.KafkaHeaders;
import io.coilgun.cluster.kafka.Topics;
import io.coilgun.planner.model.StreamDef;
import io.coilgun.planner.plan.TaskPlan;
import java.nio.ByteBuffer;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Headers;

/**
 * The decider of a stream that was partitioned by one field takes the history its tasks judged before it existed
 * ({@link StreamCut}, {@link SeedMerge}) before it decides anything: the merged history's numbered records in its
 * decision log are taken in order, each number once, as accepted ({@link TaskPlan#processSeeded}), so its dedup
 * index and stream time are those of every task together; the end record completes it, and the active copy then
 * tells the node ({@code seeded}), which ends the conversion in the catalog. Until then an event published to the
 * decider is answered {@code RETRY}, and no added partitioner is filled (the history is not all there).
 */
public final class Seeding {
    private static final String STATE = "seeded";

    /** What the node does once the history is in: end the stream's conversion (the active copy; idempotent). */
    @FunctionalInterface
    public interface Listener {
        void seeded(String stream);
    }

    private final Supplier<Consumer<byte[], byte[]>> consumers;
    private final Forwarder.Sender sender;
    private final BooleanSupplier converting;
    private final Listener listener;
    private long next;
    private boolean done;
    /** The offset of the history's end record in the decision log once taken (every record up to it is history). */
    private long through = -1;
    /** This copy's merge while it is active (it ends by itself, or goes on until the copy stops being active). */
    private SeedMerge merge;
    /** Whether this copy told the node the history is in. */
    private boolean told;

    /**
     * @param converting whether the stream is still converting (the catalog has not recorded its end)
     */
    public Seeding(Supplier<Consumer<byte[], byte[]>> consumers, Forwarder.Sender sender, BooleanSupplier converting,
            Listener listener) {
        this.consumers = consumers;
        this.sender = sender;
        this.converting = converting;
        this.listener = listener;
    }

    static boolean isRecord(Headers headers) {
        return headers.lastHeader(KafkaHeaders.SEEDED) != null || headers.lastHeader(KafkaHeaders.SEEDED_END) != null;
    }

    /** The plan was opened (or reopened at its checkpoint): where its history stands. */
    void opened(TaskPlan plan) {
        byte[] kept = plan.meta(STATE);
        next = kept == null ? 0 : ByteBuffer.wrap(kept).getLong();
        done = kept != null && kept[8] == 1;
        through = kept == null ? -1 : ByteBuffer.wrap(kept).getLong(9);
        stopMerge();
    }

    /** Whether the decider still waits for the history (it decides nothing meanwhile). */
    boolean waiting() {
        return !done && converting.getAsBoolean();
    }

    /** Takes a record of the merged history (every copy, in log order). */
    void take(ConsumerRecord<byte[], byte[]> record, TaskPlan plan, StreamDef stream, boolean active) {
        Headers h = record.headers();
        if (done) {
            plan.skip(record.offset()); // written again by a copy that took over late: taken already
            return;
        }
        if (h.lastHeader(KafkaHeaders.SEEDED) != null) {
            if (KafkaHeaders.numberOf(h, KafkaHeaders.SEEDED, 0) == next) {
                plan.processSeeded(record.value(), record.offset());
                next++;
                keep(plan);
            } else {
                plan.skip(record.offset());
            }
            return;
        }
        plan.skip(record.offset());
        if (KafkaHeaders.numberOf(h, KafkaHeaders.SEEDED_END, 0) == next) {
            done = true;
            through = record.offset();
            keep(plan);
            stopMerge();
            if (active) {
                told = true;
                listener.seeded(stream.name());
            }
        }
    }

    private void keep(TaskPlan plan) {
        plan.meta(STATE, ByteBuffer.allocate(17).putLong(next).put((byte) (done ? 1 : 0)).putLong(through).array());
    }

    /**
     * Where a copy taking over makes the forwards again from ({@code committed}: the old active's commit): never
     * from the history, which its tasks have (only decisions after it were forwarded).
     */
    long forwardsFrom(long committed, TaskPlan plan) {
        if (done) {
            return Math.max(committed, through + 1);
        }
        return next > 0 || waiting() ? plan.nextOffset() : committed;
    }

    /** Whether {@link #activeTurn} has something to do. */
    boolean turnDue() {
        return converting.getAsBoolean() && (done ? !told : merge == null);
    }

    /**
     * The active copy (between records): merges the tasks' histories into the log while the decider waits for them,
     * or, when it has them all but the conversion has not ended (the copy before it stopped first), tells the node.
     */
    void activeTurn(StreamDef stream) {
        if (done) {
            if (converting.getAsBoolean() && !told) {
                told = true;
                listener.seeded(stream.name());
            }
            return;
        }
        if (!converting.getAsBoolean() || merge != null) {
            return;
        }
        merge = new SeedMerge(consumers, sender, Topics.seed(stream.name()),
                stream.partitions(stream.partitionBy().get(0)), Topics.decider(stream.name()), next);
        merge.start("coilgun-seed-" + stream.name());
    }

    /** The copy is no longer active, or closes: it writes nothing more. */
    void stopMerge() {
        told = false;
        if (merge != null) {
            merge.stop();
            merge = null;
        }
    }
}
