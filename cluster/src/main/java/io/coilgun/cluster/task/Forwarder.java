package io.coilgun.cluster.task;

import io.coilgun.cluster.ingest.EventPublisher;
import io.coilgun.cluster.kafka.KafkaHeaders;
import io.coilgun.cluster.kafka.Topics;
import io.coilgun.planner.event.GroupKeys;
import io.coilgun.planner.model.StreamDef;
import io.coilgun.planner.plan.TaskPlan;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
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
 * statement with its metrics. A checkpoint of the decider waits until Kafka has every forward before it
 * ({@link #awaitSent}): a decision past the checkpoint is never lost, and one forwarded twice (after a crash or a
 * failover) is applied once, its tasks knowing the last decision they applied.
 */
public final class Forwarder {
    /** Sends a record with a callback: the node's producer. */
    @FunctionalInterface
    public interface Sender {
        void send(ProducerRecord<byte[], byte[]> record, Callback callback);
    }

    private static final long SEND_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(30);

    /** How long a checkpoint may wait for the forwards' acknowledgements before it waits for them. */
    private static final long MAX_CHECKPOINT_DEFERRAL_NANOS = 1_000_000_000L;

    private final Sender sender;
    private final AtomicLong inFlight = new AtomicLong();
    private final AtomicReference<Exception> failure = new AtomicReference<>();
    /** When the decider last checkpointed (System.nanoTime; the unit's thread). */
    private long checkpointedAt = System.nanoTime();
    /** The decider's ledger of forwards and the plan it was loaded from (the unit's thread). */
    private ForwardLedger ledger;
    private TaskPlan ledgerOf;

    public Forwarder(Sender sender) {
        this.sender = sender;
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
    }

    /**
     * On the unit's thread, before a checkpoint: whether it may be made now. A checkpoint never passes a decision
     * Kafka does not have: while forwards are on their way it waits for a later round (the unit's thread does not wait
     * for Kafka), for a second at most, then it waits ({@link #awaitSent}).
     */
    boolean readyForCheckpoint(TaskPlan plan) {
        if (failure.get() != null) {
            return false; // a forward failed: the decider rolls back to its checkpoint first (takeFailure)
        }
        if (!settled() && System.nanoTime() - checkpointedAt < MAX_CHECKPOINT_DEFERRAL_NANOS) {
            return false;
        }
        awaitSent();
        if (ledger != null && ledgerOf == plan) {
            ledger.keep(plan);
        }
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

    /** The decider checkpointed. */
    void checkpointed() {
        checkpointedAt = System.nanoTime();
    }

    /** Sends a forward; its acknowledgement is awaited by the next {@link #awaitSent}. */
    void send(ProducerRecord<byte[], byte[]> forward) {
        inFlight.incrementAndGet();
        sender.send(forward, (md, e) -> {
            if (e != null) {
                failure.compareAndSet(null, e);
            }
            inFlight.decrementAndGet();
        });
    }

    /** Whether Kafka acknowledged every forward sent so far (or one failed: {@link #awaitSent} says so at once). */
    boolean settled() {
        return inFlight.get() == 0 || failure.get() != null;
    }

    /**
     * Before a checkpoint, on the unit's thread: waits until Kafka acknowledged every forward sent (at once when
     * {@link #settled}).
     *
     * @throws IllegalStateException when a forward failed or none came in 30 s: the checkpoint must not be made
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
