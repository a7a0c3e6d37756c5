package io.coilgun.planner.window;

import io.coilgun.planner.agg.Aggregator;
import io.coilgun.planner.event.EventCodec;
import io.coilgun.planner.event.GroupKeys;
import io.coilgun.planner.model.ColumnType;
import io.coilgun.planner.model.MetricDef;
import io.coilgun.planner.model.StreamDef;
import io.coilgun.storage.reservoir.Reservoir;
import io.coilgun.storage.reservoir.Subscription;
import io.coilgun.storage.state.StateStore;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A metric over {@code SLIDING w}: for event e of group g with clock T (the largest event time of g), the
 * aggregate over g's events with {@code T - w < t <= T} (SPEC.md).
 *
 * <p>How it stays exact with memory bounded by lateness, not window length. Let S be the task's stream time and L
 * the stream's lateness.
 * <ul>
 *   <li>The group state (RocksDB, key {@code g<metric>\0<group>}) holds the clock T and the aggregate of g's
 *       events not yet passed by the <em>main tail</em>, the reservoir iterator at lag {@code w} (horizon
 *       {@code S - w}).</li>
 *   <li>The main tail removes each event it passes from its group's state and records it in the group's
 *       <em>zone</em> (key {@code z<metric>\0<group><t><seq>}); the <em>zone tail</em>, at lag {@code w + L},
 *       deletes it from the zone again. So the zone holds g's events with {@code S - w - L < t <= S - w}.</li>
 *   <li>An accepted event has {@code t >= S - L}, so its group's clock T is at least {@code S - L}: g's window
 *       {@code (T - w, T]} is the group state plus the zone events with {@code t > T - w}. When T = S (the usual,
 *       in-order case) no zone event qualifies and nothing is read.</li>
 * </ul>
 * Both tails are shared reservoir iterators: metrics with the same window size read the reservoir once.
 */
public final class SlidingWindowMetric implements MetricOperator {
    private static final byte TAG_NULL = 0;
    private static final byte TAG_LONG = 1;
    private static final byte TAG_DOUBLE = 2;
    private static final byte TAG_PRESENT = 3;

    private final MetricDef def;
    private final StateStore store;
    private EventCodec codec;
    private final long size;
    private final long lateness;
    private final int[] groupColumns;
    private final int[] argumentColumns;
    private final Aggregator[] aggregators;
    private final int[] slots;
    private final int stateBytes;
    private final byte[] statePrefix;
    private final byte[] zonePrefix;
    private final byte[] minSeqKey;
    private final long minSeq;
    private final Subscription mainTail;
    private final Subscription zoneTail;
    private Object[] scratch;
    /** The group, state key and clock of the event last accepted, for {@link #report}. */
    private byte[] lastGroup;
    private byte[] lastStateKey;
    private long lastClock;

    /**
     * @param nextSeq the seq (Kafka offset) of the task's next event: a metric created on a live stream starts
     *     empty there, and its tails ignore the events before it
     */
    public SlidingWindowMetric(MetricDef def, StreamDef stream, StateStore store, Reservoir reservoir,
            long nextSeq) {
        this.def = def;
        this.store = store;
        this.codec = new EventCodec(stream);
        this.size = def.window().sizeMicros();
        this.lateness = stream.latenessMicros();
        this.groupColumns = def.groupBy().stream().mapToInt(Integer::intValue).toArray();
        this.aggregators = new Aggregator[def.aggregations().size()];
        this.argumentColumns = new int[aggregators.length];
        this.slots = new int[aggregators.length];
        int at = 8; // the group's clock comes first
        for (int i = 0; i < aggregators.length; i++) {
            var agg = def.aggregations().get(i);
            argumentColumns[i] = agg.argument();
            aggregators[i] = Aggregator.of(agg,
                    agg.argument() < 0 ? ColumnType.BIGINT : stream.column(agg.argument()).type());
            slots[i] = at;
            at += aggregators[i].stateBytes();
        }
        this.stateBytes = at;
        this.statePrefix = prefix('g', def.name());
        this.zonePrefix = prefix('z', def.name());
        this.minSeqKey = prefix('t', def.name() + "\0minSeq");
        this.scratch = new Object[codec.columnCount()];
        byte[] saved = store.get(minSeqKey);
        this.minSeq = saved != null ? ByteBuffer.wrap(saved).getLong() : nextSeq;
        this.mainTail = reservoir.iterator(size).subscribe(minSeq, this::expire);
        this.zoneTail = reservoir.iterator(size + lateness).subscribe(minSeq, this::forget);
    }

    private static byte[] prefix(char kind, String name) {
        byte[] n = name.getBytes(StandardCharsets.UTF_8);
        byte[] p = new byte[n.length + 2];
        p[0] = (byte) kind;
        System.arraycopy(n, 0, p, 1, n.length);
        return p;
    }

    @Override
    public MetricDef def() {
        return def;
    }

    @Override
    public void streamChanged(StreamDef stream) {
        codec = new EventCodec(stream);
        scratch = new Object[codec.columnCount()];
    }

    @Override
    public long reach() {
        return size + lateness;
    }

    @Override
    public void accept(Object[] values, long eventTime, long seq) {
        lastGroup = GroupKeys.encode(values, groupColumns);
        lastStateKey = concat(statePrefix, lastGroup);
        ByteBuffer state = load(lastStateKey);
        lastClock = Math.max(state.getLong(0), eventTime);
        state.putLong(0, lastClock);
        for (int i = 0; i < aggregators.length; i++) {
            aggregators[i].add(state, slots[i], argument(values, i));
        }
        store.put(lastStateKey, state.array());
    }

    @Override
    public void report(long streamTime, Object[] out, int at) {
        ByteBuffer state = load(lastStateKey);
        if (lastClock < streamTime) {
            addZone(lastGroup, lastClock - size, state);
        }
        for (int i = 0; i < aggregators.length; i++) {
            out[at + i] = aggregators[i].result(state, slots[i]);
        }
    }

    /** The main tail passed an event: it leaves the group state and enters the group's zone. */
    private void expire(long seq, long eventTime, int schema, byte[] data, int off, int len) {
        codec.decode(data, off, len, scratch);
        byte[] group = GroupKeys.encode(scratch, groupColumns);
        byte[] stateKey = concat(statePrefix, group);
        ByteBuffer state = load(stateKey);
        for (int i = 0; i < aggregators.length; i++) {
            aggregators[i].remove(state, slots[i], argument(scratch, i));
        }
        store.put(stateKey, state.array());
        store.put(zoneKey(group, eventTime, seq), encodeArguments(scratch));
    }

    /** The zone tail passed an event: no group clock can reach back to it any more. */
    private void forget(long seq, long eventTime, int schema, byte[] data, int off, int len) {
        codec.decode(data, off, len, scratch);
        store.delete(zoneKey(GroupKeys.encode(scratch, groupColumns), eventTime, seq));
    }

    /** Adds to {@code state} the group's zone events newer than {@code after}. */
    private void addZone(byte[] group, long after, ByteBuffer state) {
        byte[] from = zoneKey(group, after + 1, Long.MIN_VALUE);
        byte[] to = concat(concat(zonePrefix, group), new byte[] {(byte) 0xFF, (byte) 0xFF, (byte) 0xFF,
            (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF});
        store.scan(from, to, (key, value) -> {
            ByteBuffer args = ByteBuffer.wrap(value);
            for (int i = 0; i < aggregators.length; i++) {
                aggregators[i].add(state, slots[i], decodeArgument(args));
            }
            return true;
        });
    }

    private Object argument(Object[] values, int i) {
        int column = argumentColumns[i];
        return column < 0 ? Boolean.TRUE : values[column];
    }

    private byte[] encodeArguments(Object[] values) {
        ByteBuffer b = ByteBuffer.allocate(aggregators.length * 9);
        for (int i = 0; i < aggregators.length; i++) {
            Object v = argument(values, i);
            if (v == null) {
                b.put(TAG_NULL).putLong(0);
            } else if (v instanceof Double d) {
                b.put(TAG_DOUBLE).putDouble(d);
            } else if (v instanceof Number n) {
                b.put(TAG_LONG).putLong(n.longValue());
            } else {
                b.put(TAG_PRESENT).putLong(0);
            }
        }
        return b.array();
    }

    private static Object decodeArgument(ByteBuffer b) {
        byte tag = b.get();
        long bits = b.getLong();
        return switch (tag) {
            case TAG_NULL -> null;
            case TAG_LONG -> bits;
            case TAG_DOUBLE -> Double.longBitsToDouble(bits);
            default -> Boolean.TRUE;
        };
    }

    private ByteBuffer load(byte[] stateKey) {
        byte[] bytes = store.get(stateKey);
        if (bytes == null) {
            ByteBuffer fresh = ByteBuffer.allocate(stateBytes);
            fresh.putLong(0, Long.MIN_VALUE);
            return fresh;
        }
        return ByteBuffer.wrap(Arrays.copyOf(bytes, stateBytes));
    }

    private byte[] zoneKey(byte[] group, long eventTime, long seq) {
        ByteBuffer k = ByteBuffer.allocate(zonePrefix.length + group.length + 16);
        k.put(zonePrefix).put(group).putLong(eventTime ^ Long.MIN_VALUE).putLong(seq ^ Long.MIN_VALUE);
        return k.array();
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] r = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, r, a.length, b.length);
        return r;
    }

    @Override
    public void checkpoint() {
        store.put(minSeqKey, ByteBuffer.allocate(8).putLong(minSeq).array());
    }

    @Override
    public void close() {
        mainTail.cancel();
        zoneTail.cancel();
    }
}
