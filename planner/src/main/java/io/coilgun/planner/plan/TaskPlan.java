package io.coilgun.planner.plan;

import io.coilgun.planner.event.EventCodec;
import io.coilgun.planner.model.LatePolicy;
import io.coilgun.planner.model.MetricDef;
import io.coilgun.planner.model.StreamDef;
import io.coilgun.planner.model.WindowSpec;
import io.coilgun.planner.window.MetricOperator;
import io.coilgun.planner.window.SlidingWindowMetric;
import io.coilgun.storage.reservoir.EventReservoir;
import io.coilgun.storage.state.StateStore;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Everything one task (a partition of a partitioner topic) computes, without Kafka: the task's event
 * reservoir, its state store and the operators of the metrics that run on it.
 *
 * <p>Per event ({@link #process}): judge lateness against the stream time S, advance S, append the event to
 * the reservoir, and let every metric operator report its values. {@link #checkpoint} makes the reservoir,
 * the state and the Kafka offset of the last applied event durable together, so a reopened plan resumes
 * exactly after that offset (the caller replays from {@link #nextOffset()}).
 *
 * <p>Single-threaded: a processor unit's thread owns it. The metric list may change between events
 * ({@link #addMetric}); a new metric starts empty at the current stream time.
 */
public final class TaskPlan implements AutoCloseable {
    /** The stream time of a task that has accepted nothing yet; far from overflow when windows are subtracted. */
    public static final long NO_TIME = Long.MIN_VALUE / 4;

    private static final byte[] META_OFFSET = "m\0offset".getBytes(StandardCharsets.UTF_8);
    private static final byte[] META_RESERVOIR = "m\0reservoir".getBytes(StandardCharsets.UTF_8);
    private static final byte[] META_STREAM_TIME = "m\0streamTime".getBytes(StandardCharsets.UTF_8);
    private static final byte[] META_SEQ = "m\0seq".getBytes(StandardCharsets.UTF_8);

    private final StreamDef stream;
    private final EventCodec codec;
    private final StateStore store;
    private final EventReservoir reservoir;
    private final List<MetricOperator> operators = new ArrayList<>();
    private final Object[] values;
    private long streamTime;
    private long nextSeq;
    private long lastOffset;

    private TaskPlan(StreamDef stream, StateStore store, EventReservoir reservoir, long streamTime, long nextSeq,
            long lastOffset) {
        this.stream = stream;
        this.codec = new EventCodec(stream);
        this.store = store;
        this.reservoir = reservoir;
        this.values = new Object[codec.columnCount()];
        this.streamTime = streamTime;
        this.nextSeq = nextSeq;
        this.lastOffset = lastOffset;
    }

    /** Opens the task's data under {@code dir} ({@code state/} for RocksDB, {@code reservoir/}), recovering to its checkpoint. */
    public static TaskPlan open(Path dir, StreamDef stream, List<MetricDef> metrics) {
        StateStore store = StateStore.open(dir.resolve("state"));
        try {
            long reservoirSize = readLong(store, META_RESERVOIR, 0);
            EventReservoir reservoir = EventReservoir.open(dir.resolve("reservoir"), reservoirSize);
            TaskPlan plan = new TaskPlan(stream, store, reservoir, readLong(store, META_STREAM_TIME, NO_TIME),
                    readLong(store, META_SEQ, 0), readLong(store, META_OFFSET, -1));
            for (MetricDef m : metrics) {
                plan.addMetric(m);
            }
            return plan;
        } catch (RuntimeException e) {
            store.close();
            throw e;
        }
    }

    private static long readLong(StateStore store, byte[] key, long absent) {
        byte[] v = store.get(key);
        return v == null ? absent : ByteBuffer.wrap(v).getLong();
    }

    public StreamDef stream() {
        return stream;
    }

    public void addMetric(MetricDef metric) {
        if (metric.window().kind() != WindowSpec.Kind.SLIDING || metric.window().delayMicros() != 0) {
            throw new IllegalArgumentException("window " + metric.window() + " is not supported yet");
        }
        operators.add(new SlidingWindowMetric(metric, stream, store, reservoir, streamTime));
    }

    public List<MetricDef> metrics() {
        return operators.stream().map(MetricOperator::def).toList();
    }

    /** Number of values {@link #process} reports per event: one per aggregation of every metric. */
    public int resultWidth() {
        int n = 0;
        for (MetricOperator op : operators) {
            n += op.def().aggregations().size();
        }
        return n;
    }

    /** The offset to resume consuming from. */
    public long nextOffset() {
        return lastOffset + 1;
    }

    public long streamTime() {
        return streamTime;
    }

    /**
     * Applies one event that arrived at Kafka {@code offset}.
     *
     * @param results receives the values of every metric, in {@link #metrics()} order (length {@link #resultWidth()})
     * @param decoded receives the event's column values
     * @return what happened to the event
     */
    public Outcome process(byte[] payload, long offset, Object[] decoded, Object[] results) {
        lastOffset = offset;
        codec.decode(payload, values);
        System.arraycopy(values, 0, decoded, 0, values.length);
        Object t = values[stream.eventTimeIndex()];
        if (t == null) {
            return Outcome.NULL_TIME; // the front end refuses these; a raw producer may not
        }
        long eventTime = (Long) t;
        if (eventTime < streamTime - stream.latenessMicros()) {
            if (stream.latePolicy() == LatePolicy.CLAMP) {
                eventTime = streamTime - stream.latenessMicros();
                values[stream.eventTimeIndex()] = eventTime;
                payload = codec.encode(values, codec.decode(payload, new Object[values.length]));
            } else {
                return stream.latePolicy() == LatePolicy.DROP ? Outcome.DROPPED : Outcome.LATE;
            }
        }
        streamTime = Math.max(streamTime, eventTime);
        long seq = nextSeq++;
        reservoir.append(seq, eventTime, streamTime, offset, payload);
        int at = 0;
        for (MetricOperator op : operators) {
            op.onEvent(values, eventTime, seq, streamTime, results, at);
            at += op.def().aggregations().size();
        }
        return Outcome.APPLIED;
    }

    /** Records that {@code offset} was consumed without an event to apply (e.g. a skipped record). */
    public void skip(long offset) {
        lastOffset = offset;
    }

    /** Makes everything applied so far durable, together with the offset of the last applied record. */
    public void checkpoint() {
        reservoir.flush();
        for (MetricOperator op : operators) {
            op.checkpoint();
        }
        store.put(META_RESERVOIR, longBytes(reservoir.size()));
        store.put(META_STREAM_TIME, longBytes(streamTime));
        store.put(META_SEQ, longBytes(nextSeq));
        store.put(META_OFFSET, longBytes(lastOffset));
        store.commit();
    }

    private static byte[] longBytes(long v) {
        return ByteBuffer.allocate(8).putLong(v).array();
    }

    @Override
    public void close() {
        try {
            reservoir.close();
        } finally {
            store.close();
        }
    }

    /** What {@link #process} did with an event. */
    public enum Outcome {
        APPLIED, LATE, DROPPED, NULL_TIME
    }
}
