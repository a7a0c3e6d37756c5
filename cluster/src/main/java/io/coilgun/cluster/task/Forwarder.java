package io.coilgun.cluster.task;

import io.coilgun.cluster.ingest.EventPublisher;
import io.coilgun.cluster.kafka.KafkaHeaders;
import io.coilgun.cluster.kafka.Topics;
import io.coilgun.planner.event.EventCodec;
import io.coilgun.planner.event.GroupKeys;
import io.coilgun.planner.model.StreamDef;
import io.coilgun.planner.plan.TaskPlan;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeaders;

/**
 * A decider's forwards (a stream partitioned by several fields, {@link Topics#decider}): each event it accepts goes,
 * with its final time, to every partitioner topic of the stream, keyed there by that field, carrying the decision's
 * offset ({@link KafkaHeaders#DECISION}) and the publisher's reply headers, so each partitioning answers the
 * statement with its metrics. A checkpoint of the decider keeps the forwards Kafka has not acknowledged yet
 * ({@link UnsentForwards}), sent again by a decider opened from it: a decision past the checkpoint is never lost, and
 * one forwarded twice (after a crash or a failover) is applied once, in the order decided ({@link #inTurn}).
 */
public final class Forwarder {
    /** Sends a record with a callback: the node's producer. */
    @FunctionalInterface
    public interface Sender {
        void send(ProducerRecord<byte[], byte[]> record, Callback callback);
    }

    private static final long SEND_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(30);

    private final Sender sender;
    private final AtomicLong inFlight = new AtomicLong();
    private final AtomicReference<Exception> failure = new AtomicReference<>();
    /** The forwards Kafka has not acknowledged, kept with each checkpoint. */
    private final UnsentForwards unsent = new UnsentForwards();
    /** The forwards the checkpoint the plan was opened from kept: sent again first (the unit's thread). */
    private List<ProducerRecord<byte[], byte[]>> carried = List.of();
    /** The decider's ledger of forwards and the plan it was loaded from (the unit's thread). */
    private ForwardLedger ledger;
    private TaskPlan ledgerOf;

    /** Called on the producer's thread when a forward failed: the decider's unit rolls it back soon. */
    private final Runnable failed;

    public Forwarder(Sender sender) {
        this(sender, () -> { });
    }

    /** @param failed called (on the producer's thread) when a forward fails: asks the unit to roll the decider back */
    public Forwarder(Sender sender, Runnable failed) {
        this.sender = sender;
        this.failed = failed;
    }

    /**
     * The forwards of the event the decider accepted from {@code record}: {@code payload} its final form; each
     * recorded in {@code ledger} and carrying the decision forwarded before it to its partition.
     */
    static List<ProducerRecord<byte[], byte[]>> forwards(StreamDef stream, ConsumerRecord<byte[], byte[]> record,
            byte[] payload, Object[] values, ForwardLedger ledger) {
        List<ProducerRecord<byte[], byte[]>> out = new ArrayList<>(stream.partitionBy().size());
        for (int f = 0; f < stream.partitionBy().size(); f++) {
            String field = stream.partitionBy().get(f);
            byte[] key = GroupKeys.encodeOne(values[stream.columnIndex(field).orElseThrow()]);
            int partition = EventPublisher.partition(key, stream.partitions(field));
            RecordHeaders headers = new RecordHeaders();
            for (String name : List.of(KafkaHeaders.REPLY_TO, KafkaHeaders.CORRELATION)) {
                Header h = record.headers().lastHeader(name);
                if (h != null) {
                    headers.add(name, h.value());
                }
            }
            headers.add(KafkaHeaders.DECISION, ByteBuffer.allocate(16).putLong(record.offset())
                    .putLong(ledger.forwarded(f, partition, record.offset())).array());
            out.add(new ProducerRecord<>(Topics.partitioner(stream.name(), field), partition, key, payload, headers));
        }
        return out;
    }

    /**
     * A decider replica promoted: the forwards of the events it accepted from offset {@code from} (the old active's
     * last commit: it may not have sent those) up to {@code keptFrom}, the oldest whose forwards it kept ({@link
     * ReplyEmitter#oldestKept}; -1: none kept), are made again from its reservoir and sent before the kept ones. They
     * carry no reply address (their statements were answered or timed out) and do not know the decision before them
     * ({@link ForwardLedger#UNKNOWN}); they come in the order decided, so each partitioner task takes those it lacks.
     */
    void reforward(TaskPlan plan, StreamDef stream, long from, long keptFrom) {
        if (keptFrom >= 0 && keptFrom <= from) {
            return; // every forward since the old active's commit was kept
        }
        EventCodec codec = new EventCodec(stream);
        ForwardLedger unknown = ForwardLedger.unknown(stream);
        for (Map.Entry<Long, byte[]> e : plan.acceptedBetween(from, keptFrom < 0 ? Long.MAX_VALUE : keptFrom)) {
            Object[] values = new Object[codec.columnCount()];
            codec.decode(e.getValue(), values);
            ConsumerRecord<byte[], byte[]> decided = new ConsumerRecord<>(Topics.decider(stream.name()), 0,
                    e.getKey(), null, e.getValue());
            for (ProducerRecord<byte[], byte[]> forward : forwards(stream, decided, e.getValue(), values, unknown)) {
                send(forward);
            }
        }
    }

    /** The decision a forwarded record carries, or -1 for a record that is no forward. */
    static long decisionOf(ConsumerRecord<byte[], byte[]> record) {
        Header h = record.headers().lastHeader(KafkaHeaders.DECISION);
        return h == null ? -1 : ByteBuffer.wrap(h.value()).getLong();
    }

    /**
     * Whether a partitioner task whose last applied decision is {@code last} applies the forward {@code record} of
     * decision {@code decision} now: it is newer, and the decision forwarded before it to this partition is the one
     * the task applied last (or not known). Otherwise it was applied already, or one before it is missing: skipped
     * either way (the missing one comes again, and this one after it, when the decider rolls back).
     */
    static boolean inTurn(ConsumerRecord<byte[], byte[]> record, long decision, long last) {
        if (decision <= last) {
            return false;
        }
        byte[] h = record.headers().lastHeader(KafkaHeaders.DECISION).value();
        long before = h.length >= 16 ? ByteBuffer.wrap(h, 8, 8).getLong() : ForwardLedger.UNKNOWN;
        return before == ForwardLedger.UNKNOWN || before == last;
    }

    /**
     * On the unit's thread: the decider accepted the event of {@code record} ({@code plan} just applied it): the
     * active sends its forwards, a replica keeps them for a promotion (the active may not have sent them).
     */
    void accepted(StreamDef stream, ConsumerRecord<byte[], byte[]> record, TaskPlan plan, boolean active,
            ReplyEmitter replies) {
        for (ProducerRecord<byte[], byte[]> forward : forwards(stream, record, plan.acceptedPayload(),
                plan.lastEvent(), ledger)) {
            if (active) {
                send(forward);
            } else {
                replies.keepRecord(record.offset(), forward);
            }
        }
    }

    /** The decider's plan was opened (again): its ledger is the one its checkpoint kept. */
    void opened(TaskPlan plan, StreamDef stream) {
        ledger = ForwardLedger.load(plan, stream);
        ledgerOf = plan;
        carried = UnsentForwards.carried(plan);
    }

    /**
     * On the unit's thread, as the active copy, before anything else: sends again the forwards the checkpoint it was
     * opened from kept (Kafka had not acknowledged them then), oldest first.
     */
    void sendCarried() {
        if (!carried.isEmpty()) {
            List<ProducerRecord<byte[], byte[]>> again = carried;
            carried = List.of();
            again.forEach(this::send);
        }
    }

    /**
     * On the unit's thread, before a checkpoint: whether it may be made now, and what it keeps besides the state: the
     * ledger and the forwards Kafka has not acknowledged yet (so it never waits for Kafka). Not while a forward
     * failed: the decider rolls back to its last checkpoint first ({@link #takeFailure}).
     */
    boolean readyForCheckpoint(TaskPlan plan) {
        if (failure.get() != null) {
            return false;
        }
        if (ledger != null && ledgerOf == plan) {
            ledger.keep(plan);
        }
        unsent.keep(plan);
        return true;
    }

    /**
     * On the unit's thread: a forward Kafka refused since the last call, or null. The decider then rolls back to its
     * checkpoint and forwards again from there (its ledger with it); a partitioner task takes nothing after the
     * missing forward meanwhile ({@link #inTurn}).
     */
    Exception takeFailure() {
        return failure.getAndSet(null);
    }

    /** Sends a forward; its acknowledgement is awaited by the next {@link #awaitSent}. */
    void send(ProducerRecord<byte[], byte[]> forward) {
        inFlight.incrementAndGet();
        long n = unsent.sending(forward);
        sender.send(forward, (md, e) -> {
            if (e != null) {
                if (failure.compareAndSet(null, e)) {
                    failed.run();
                }
            } else {
                unsent.acknowledged(n);
            }
            inFlight.decrementAndGet();
        });
    }

    /**
     * Before the decider's last checkpoint (it closes), on the unit's thread: waits until Kafka acknowledged every
     * forward sent.
     *
     * @throws IllegalStateException when a forward failed or none came in 30 s
     */
    void awaitSent() {
        long deadline = System.nanoTime() + SEND_TIMEOUT_NANOS;
        while (inFlight.get() > 0 && System.nanoTime() < deadline) {
            LockSupport.parkNanos(100_000);
        }
        Exception e = failure.getAndSet(null);
        if (e != null || inFlight.get() > 0) {
            throw new IllegalStateException("forwards to the partitioner topics not acknowledged"
                    + (e == null ? " in 30 s" : ": " + e), e);
        }
    }
}
