package io.coilgun.cluster.task;

import io.coilgun.cluster.ingest.EventPublisher;
import io.coilgun.cluster.kafka.KafkaHeaders;
import io.coilgun.cluster.kafka.Topics;
import io.coilgun.planner.event.EventCodec;
import io.coilgun.planner.event.GroupKeys;
import io.coilgun.planner.model.StreamDef;
import io.coilgun.planner.plan.TaskPlan;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A decider's forwards (a stream partitioned by several fields, {@link Topics#decider}): each event it accepts goes,
 * with its final time, to every partitioner topic of the stream, keyed there by that field, carrying the decision's
 * offset ({@link KafkaHeaders#DECISION}) and the publisher's reply headers, so each partitioning answers the
 * statement with its metrics. A checkpoint of the decider keeps the forwards Kafka has not acknowledged yet
 * ({@link UnsentForwards}), sent again by a decider opened from it: a decision past the checkpoint is never lost, and
 * one forwarded twice (after a crash or a failover) is applied once, in the order decided ({@link #inTurn}).
 */
public final class Forwarder {
    private static final Logger LOG = LoggerFactory.getLogger(Forwarder.class);
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
    /** The oldest decision among {@link #carried}: the committed offset stays at it until they are sent. */
    private long carriedOldest = Long.MAX_VALUE;
    /** The decider's ledger of forwards and the plan it was loaded from (the unit's thread). */
    private ForwardLedger ledger;
    private TaskPlan ledgerOf;
    /** The decider's fills of partitioners added to its stream (the unit's thread). */
    private PartitionerFills fills = new PartitionerFills();
    /** Which partitioners live decisions go to: not those being filled. */
    private final Predicate<String> live = field -> fills.live(field);
    private EventCodec codec;
    private TopicMarkers markers;
    /** The stream's partitioner topics now: a forward kept for one dropped since is not sent. */
    private Set<String> topics;

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
        return forwards(stream, record, payload, values, ledger, field -> true);
    }

    /** As above, to the partitioners {@code to} takes (not those being filled). */
    static List<ProducerRecord<byte[], byte[]>> forwards(StreamDef stream, ConsumerRecord<byte[], byte[]> record,
            byte[] payload, Object[] values, ForwardLedger ledger, Predicate<String> to) {
        List<ProducerRecord<byte[], byte[]>> out = new ArrayList<>(stream.partitionBy().size());
        for (int f = 0; f < stream.partitionBy().size(); f++) {
            String field = stream.partitionBy().get(f);
            if (!to.test(field)) {
                continue;
            }
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
    void reforward(TaskPlan plan, StreamDef stream, long from, long keptFrom,
            Consumer<ProducerRecord<byte[], byte[]>> out) {
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
            for (ProducerRecord<byte[], byte[]> forward : forwards(stream, decided, e.getValue(), values, unknown,
                    fills::live)) {
                out.accept(forward);
            }
        }
    }

    /** The decision a forwarded record carries, or -1 for a record that is no forward. */
    static long decisionOf(ConsumerRecord<byte[], byte[]> record) {
        return KafkaHeaders.decisionOf(record.headers());
    }

    /**
     * The offset the decider may commit, at most {@code next}: not past a decision whose live forward Kafka has not
     * acknowledged, so a replica taking over from the committed offset forwards it again (its checkpoint keeps such
     * forwards for its own restart, which a replica cannot read).
     */
    long committable(long next) {
        return Math.min(Math.min(next, carriedOldest), unsent.oldestUnacknowledgedDecision());
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
                plan.lastEvent(), ledger, live)) {
            if (active) {
                send(forward);
            } else {
                replies.keepRecord(record.offset(), forward);
            }
        }
    }

    /**
     * How many partitioners answer the statement of an event the decider accepts now: those it forwards to live (the
     * front end waits for their replies).
     */
    int followers(StreamDef stream) {
        int n = 0;
        for (String field : stream.partitionBy()) {
            if (fills.live(field)) {
                n++;
            }
        }
        return n;
    }

    /** The decider's plan was opened (again): its ledger and fills are the ones its checkpoint kept. */
    void opened(TaskPlan plan, StreamDef stream) {
        ledger = ForwardLedger.load(plan, stream);
        ledgerOf = plan;
        fills = PartitionerFills.load(plan, stream);
        markers = new TopicMarkers(Topics.decider(stream.name()));
        codec = new EventCodec(stream);
        topics = topicsOf(stream);
        unsent.reset();
        carried = UnsentForwards.carried(plan);
        carriedOldest = Long.MAX_VALUE;
        for (ProducerRecord<byte[], byte[]> r : carried) {
            carriedOldest = Math.min(carriedOldest, KafkaHeaders.decisionOf(r.headers()));
        }
    }

    private static Set<String> topicsOf(StreamDef stream) {
        Set<String> out = new HashSet<>();
        for (String field : stream.partitionBy()) {
            out.add(Topics.partitioner(stream.name(), field));
        }
        return out;
    }

    /** On the unit's thread: the stream gained or lost a partitioner, or a column. */
    void streamChanged(StreamDef altered) {
        if (ledger != null) {
            ledger = ledger.resized(altered);
        }
        fills.streamChanged(altered);
        codec = new EventCodec(altered);
        topics = topicsOf(altered);
    }

    /**
     * On the unit's thread: this copy takes over as the active one ({@code committed}: the old active's last committed
     * offset). Added partitioners that went live after it, or were filling, are filled again from the beginning
     * ({@link PartitionerFills}).
     */
    private void promoted(long committed) {
        List<String> again = fills.promoted(committed, markers);
        for (String field : again) {
            ledger.forget(field);
        }
        if (!again.isEmpty()) { // their metrics answer NULL until the fill is over
            LOG.warn("task={} taking over from the old active's commit {}: partitioners {} filled again (they went "
                    + "live after it, or were filling)", markers.topic, committed, again);
        }
    }

    /**
     * On the unit's thread, the decider's copy taking over as the active one ({@code committed}: the old active's last
     * committed offset): added partitioners it cannot vouch for are filled again, and the forwards of the records
     * since that offset are made again from its reservoir and the ones it kept, then checkpointed ({@code
     * checkpoint}) before they are sent, so that a rollback of this copy sends them again too. Returns the replies
     * it sent of those records.
     */
    int takeOver(TaskPlan plan, StreamDef stream, long committed, ReplyEmitter replies, Runnable checkpoint) {
        promoted(committed);
        List<ProducerRecord<byte[], byte[]>> again = new ArrayList<>();
        reforward(plan, stream, Math.max(0, committed), replies.oldestKept(), again::add);
        int sent = replies.promote(committed, again::add);
        carry(again);
        checkpoint.run();
        sendCarried();
        return sent;
    }

    /**
     * On the unit's thread: a {@code filled} or {@code promoted} marker in the decider's topic ({@link
     * PartitionerFills}), taken by every copy at its offset; {@code active} whether this copy forwards.
     */
    void marker(ConsumerRecord<byte[], byte[]> record, TaskPlan plan, StreamDef stream, boolean active) {
        Header filled = record.headers().lastHeader(KafkaHeaders.FILLED);
        if (filled != null) {
            ByteBuffer b = ByteBuffer.wrap(filled.value());
            int epoch = b.getInt();
            String field = new String(filled.value(), 4, filled.value().length - 4, StandardCharsets.UTF_8);
            if (fills.filledMarker(field, epoch, record.offset(), plan, active ? fillSender(stream) : null)) {
                LOG.info("task={} partitioner {} is filled: forwarded to live from offset {}", record.topic() + "-"
                        + record.partition(), field, record.offset());
            }
            return;
        }
        Header promoted = record.headers().lastHeader(KafkaHeaders.PROMOTED);
        if (promoted != null) {
            ByteBuffer b = ByteBuffer.wrap(promoted.value());
            for (String field : fills.promotedMarker(b.getInt(), b.getLong())) {
                ledger.forget(field);
            }
        }
    }

    /** Whether {@code record} is a decider's own marker ({@link #marker}). */
    static boolean isMarker(ConsumerRecord<byte[], byte[]> record) {
        return record.headers().lastHeader(KafkaHeaders.FILLED) != null
                || record.headers().lastHeader(KafkaHeaders.PROMOTED) != null;
    }

    /** Whether a partitioner added to the stream is still being filled (background work of the active copy). */
    boolean filling() {
        return fills.filling();
    }

    /** On the active copy's thread, between records: fills added partitioners until {@code deadlineNanos}. */
    void fill(TaskPlan plan, StreamDef stream, long deadlineNanos) {
        sendCarried(); // a decider opened again sends what its checkpoint kept before anything newer
        fills.step(plan, deadlineNanos, fillSender(stream), markers);
    }

    /** Forwards an event of the history to an added partitioner: no reply headers (no statement waits for it). */
    private PartitionerFills.FillSender fillSender(StreamDef stream) {
        return (field, seq, payload) -> {
            Object[] values = new Object[codec.columnCount()];
            codec.decode(payload, values);
            int f = stream.partitionBy().indexOf(field);
            byte[] key = GroupKeys.encodeOne(values[stream.columnIndex(field).orElseThrow()]);
            int partition = EventPublisher.partition(key, stream.partitions(field));
            RecordHeaders headers = new RecordHeaders(); // history: no statement waits for it
            headers.add(KafkaHeaders.DECISION, ByteBuffer.allocate(16).putLong(seq)
                    .putLong(ledger.forwarded(f, partition, seq)).array());
            return send(new ProducerRecord<>(Topics.partitioner(stream.name(), field), partition, key, payload,
                    headers), true);
        };
    }

    /** Writes the decider's markers to its own topic, again when a send fails (a few times). */
    private final class TopicMarkers implements PartitionerFills.Markers {
        private final String topic;

        TopicMarkers(String topic) {
            this.topic = topic;
        }

        @Override
        public void filled(String field, int epoch) {
            byte[] name = field.getBytes(StandardCharsets.UTF_8);
            write(KafkaHeaders.FILLED, ByteBuffer.allocate(4 + name.length).putInt(epoch).put(name).array(), 5);
        }

        @Override
        public void promoted(int epoch, long committed) {
            write(KafkaHeaders.PROMOTED, ByteBuffer.allocate(12).putInt(epoch).putLong(committed).array(), 5);
        }

        private void write(String header, byte[] value, int attempts) {
            RecordHeaders headers = new RecordHeaders();
            headers.add(header, value);
            sender.send(new ProducerRecord<byte[], byte[]>(topic, 0, (byte[]) null, new byte[0], headers), (md, e) -> {
                if (e != null && attempts > 1) {
                    LOG.warn("{} marker to {} not written ({}): again", header, topic, e.toString());
                    write(header, value, attempts - 1);
                }
            });
        }
    }

    /** The fills under way ({@link PartitionerFills#progress}), for the decider's status. */
    List<String> fillProgress() {
        return fills.progress(unsent.acknowledgedThrough());
    }

    /**
     * On the unit's thread, a copy taking over: the forwards it makes again ({@code again}: from its reservoir and
     * those it kept) are sent after the carried ones, and kept by its next checkpoint until then.
     */
    void carry(List<ProducerRecord<byte[], byte[]>> again) {
        if (!again.isEmpty()) {
            List<ProducerRecord<byte[], byte[]>> all = new ArrayList<>(carried);
            all.addAll(again);
            carried = all;
            for (ProducerRecord<byte[], byte[]> r : again) {
                carriedOldest = Math.min(carriedOldest, KafkaHeaders.decisionOf(r.headers()));
            }
        }
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
        carriedOldest = Long.MAX_VALUE; // pending now (or history: a replica's checkpoint)
    }

    /**
     * On the unit's thread, before a checkpoint: whether it may be made now, and what it keeps besides the state: the
     * ledger and the forwards Kafka has not acknowledged yet (so it never waits for Kafka). Not while a forward
     * failed: the decider rolls back to its last checkpoint first ({@link #takeFailure}).
     */
    boolean readyForCheckpoint(TaskPlan plan) {
        if (failure.get() != null || fills.liveUnacknowledged(unsent.acknowledgedThrough())) {
            return false; // (the second: a partitioner went live; its fill is whole in Kafka before a commit past it)
        }
        if (ledger != null && ledgerOf == plan) {
            ledger.keep(plan);
            fills.keep(plan);
        }
        unsent.keep(plan, carried);
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

    /** Sends a forward; its acknowledgement is awaited by the next {@link #awaitSent}. Returns its number. */
    long send(ProducerRecord<byte[], byte[]> forward) {
        return send(forward, false);
    }

    private long send(ProducerRecord<byte[], byte[]> forward, boolean fill) {
        if (topics != null && !topics.contains(forward.topic())) {
            return -1; // a forward kept before its partitioner was dropped (ALTER STREAM … DROP PARTITION BY)
        }
        inFlight.incrementAndGet();
        long n = unsent.sending(forward, fill);
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
        return n;
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
