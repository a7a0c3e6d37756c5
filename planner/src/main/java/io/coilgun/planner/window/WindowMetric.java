package io.coilgun.planner.window;

import io.coilgun.planner.agg.Aggregator;
import io.coilgun.planner.event.EventCodec;
import io.coilgun.planner.event.GroupKeys;
import io.coilgun.planner.expr.CompiledExpression;
import io.coilgun.planner.expr.Expressions;
import io.coilgun.planner.model.ColumnType;
import io.coilgun.planner.model.MetricDef;
import io.coilgun.planner.model.StreamDef;
import io.coilgun.planner.model.WindowSpec;
import io.coilgun.storage.reservoir.Reservoir;
import io.coilgun.storage.reservoir.Subscription;
import io.coilgun.storage.state.StateStore;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

/**
 * A metric over any window of SPEC.md: {@code SLIDING w}, {@code TUMBLING w} or {@code INFINITE}, each optionally
 * {@code DELAYED BY d}. For event e of group g with clock T (the largest event time of g's accepted events), the
 * aggregate over g's events in
 * <pre>
 *   SLIDING:  T - d - w &lt; t &lt;= T - d
 *   TUMBLING: floor((T - d) / w) * w &lt;= t &lt;= T - d
 *   INFINITE: t &lt;= T - d
 * </pre>
 *
 * <h2>How it stays exact with memory bounded by lateness</h2>
 * Let S be the task's stream time and L the stream's lateness; every accepted event has {@code t >= S - L}, so
 * every group's clock is in {@code [S - L, S]}.
 * <ul>
 *   <li>The group state holds the group's clock and its aggregate <em>as if its clock were S</em>: the
 *       <b>head</b> adds events once {@code t <= S - d} (with no delay, on arrival; else a reservoir iterator at
 *       lag d), and for SLIDING the <b>tail</b> (iterator at lag {@code d + w}) removes them again. TUMBLING keeps
 *       one aggregate per bucket {@code floor(t / w)} instead of a tail, for the few buckets a clock in
 *       {@code [S - L, S]} can reach; INFINITE never removes.</li>
 *   <li>A group whose clock T is behind S needs two corrections, both within one lateness of the iterators:
 *       the events the head already added with {@code T - d < t <= S - d} are subtracted (the <b>head zone</b>,
 *       rows {@code h<metric>\0<group><t><seq>} kept by the head and cleared by an iterator at lag
 *       {@code d + L}; with no delay there are none, T being the group's newest event), and for SLIDING the events
 *       the tail already removed with {@code T - d - w < t <= S - d - w} are added back (the <b>tail zone</b>,
 *       rows {@code z...}, cleared at lag {@code d + w + L}). When {@code T = S}, the usual in-order case,
 *       nothing is read.</li>
 * </ul>
 * Iterators are shared reservoir subscriptions: metrics with aligned window ends read the reservoir once.
 */
public final class WindowMetric implements MetricOperator {
    private static final byte TAG_NULL = 0;
    private static final byte TAG_LONG = 1;
    private static final byte TAG_DOUBLE = 2;
    private static final byte TAG_PRESENT = 3;

    private final MetricDef def;
    private final StateStore store;
    private final Reservoir reservoir;
    private EventCodec codec;
    private final WindowSpec.Kind kind;
    private final long size;
    private final long delay;
    private final long lateness;
    private final int[] groupColumns;
    private final int[] argumentColumns;
    /** Per aggregation, its argument expression, or null when it reads a column (or is COUNT(*)). */
    private CompiledExpression[] argumentExpressions;
    /** The metric's WHERE clause, or null. */
    private CompiledExpression filter;
    private final Aggregator[] aggregators;
    private final int[] slots;
    private final int aggBytes;
    private final byte[] statePrefix;
    private final byte[] headZonePrefix;
    private final byte[] tailZonePrefix;
    private final byte[] minSeqKey;
    private final long minSeq;
    private final Subscription[] subscriptions;
    private Object[] scratch;
    /** The group and clock of the event last accepted, for {@link #report}. */
    private byte[] lastGroup;
    private long lastClock;

    /**
     * @param nextSeq the seq (Kafka offset) of the task's next event: a metric created on a live stream starts
     *     empty there, and its iterators ignore the events before it
     */
    public WindowMetric(MetricDef def, StreamDef stream, StateStore store, Reservoir reservoir, long nextSeq) {
        this.def = def;
        this.store = store;
        this.reservoir = reservoir;
        this.codec = new EventCodec(stream);
        this.kind = def.window().kind();
        this.size = def.window().sizeMicros();
        this.delay = def.window().delayMicros();
        this.lateness = stream.latenessMicros();
        this.groupColumns = def.groupBy().stream().mapToInt(Integer::intValue).toArray();
        this.aggregators = new Aggregator[def.aggregations().size()];
        this.argumentColumns = new int[aggregators.length];
        this.slots = new int[aggregators.length];
        int at = 0;
        for (int i = 0; i < aggregators.length; i++) {
            var agg = def.aggregations().get(i);
            argumentColumns[i] = agg.argument();
            aggregators[i] = Aggregator.of(agg, agg.argument() >= 0 ? stream.column(agg.argument()).type()
                    : agg.resultType() == ColumnType.BIGINT ? ColumnType.BIGINT : ColumnType.DOUBLE);
            slots[i] = at;
            at += aggregators[i].stateBytes();
        }
        this.aggBytes = at;
        compileExpressions(stream);
        this.statePrefix = prefix('g', def.name());
        this.headZonePrefix = prefix('h', def.name());
        this.tailZonePrefix = prefix('z', def.name());
        this.minSeqKey = prefix('t', def.name() + "\0minSeq");
        this.scratch = new Object[codec.columnCount()];
        byte[] saved = store.get(minSeqKey);
        this.minSeq = saved != null ? ByteBuffer.wrap(saved).getLong() : nextSeq;
        java.util.List<Subscription> subs = new java.util.ArrayList<>();
        if (delay > 0) {
            subs.add(reservoir.iterator(delay).subscribe(minSeq, this::headPassed));
            subs.add(reservoir.iterator(delay + lateness).subscribe(minSeq, this::headZoneLeft));
        }
        if (kind == WindowSpec.Kind.SLIDING) {
            subs.add(reservoir.iterator(delay + size).subscribe(minSeq, this::tailPassed));
            subs.add(reservoir.iterator(delay + size + lateness).subscribe(minSeq, this::tailZoneLeft));
        }
        this.subscriptions = subs.toArray(Subscription[]::new);
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
    public long reach() {
        return delay + (kind == WindowSpec.Kind.SLIDING ? size : kind == WindowSpec.Kind.TUMBLING ? size : 0)
                + lateness;
    }

    @Override
    public void streamChanged(StreamDef stream) {
        codec = new EventCodec(stream);
        scratch = new Object[codec.columnCount()];
        compileExpressions(stream);
    }

    /** Compiles the filter and the expression arguments once, over the stream's columns. */
    private void compileExpressions(StreamDef stream) {
        List<String> columns = stream.columns().stream().map(c -> c.name()).toList();
        filter = def.filter() == null ? null : Expressions.compile(def.filter(), columns);
        argumentExpressions = new CompiledExpression[aggregators.length];
        for (int i = 0; i < aggregators.length; i++) {
            String e = def.aggregations().get(i).expression();
            argumentExpressions[i] = e == null ? null : Expressions.compile(e, columns);
        }
    }

    /** Whether an event enters this metric's aggregates (its clock counts every event of the group). */
    private boolean passes(Object[] values) {
        return filter == null || filter.test(values);
    }

    /** The bucket an event at {@code t} is aggregated in: its tumbling bucket, or the one bucket of other windows. */
    private long bucketOf(long t) {
        return kind == WindowSpec.Kind.TUMBLING ? Math.floorDiv(t, size) : 0;
    }

    @Override
    public void accept(Object[] values, long eventTime, long seq) {
        lastGroup = GroupKeys.encode(values, groupColumns);
        GroupState state = GroupState.load(store, concat(statePrefix, lastGroup), aggBytes);
        state.clock = Math.max(state.clock, eventTime);
        lastClock = state.clock;
        if (delay == 0 && passes(values)) {
            apply(state.bucket(bucketOf(eventTime)), values, true);
        }
        save(state);
    }

    @Override
    public void report(long streamTime, Object[] out, int at) {
        GroupState state = GroupState.load(store, concat(statePrefix, lastGroup), aggBytes);
        long clock = lastClock;
        long bucket = bucketOf(clock - delay);
        ByteBuffer window = state.copyOf(bucket);
        if (clock < streamTime) {
            // Add before subtracting, so that every intermediate state is a real multiset of events (aggregators
            // reset an emptied window to exact zeros): when w < L the two zones overlap on events the base no
            // longer holds, and they cancel.
            if (kind == WindowSpec.Kind.SLIDING) {
                // the tail already removed the group's events in (T - d - w, S - d - w]: still in its window
                scanZone(tailZonePrefix, clock - delay - size, streamTime - delay - size, Long.MIN_VALUE, window,
                        true);
            }
            if (delay > 0) {
                // the head already added the group's events in (T - d, S - d]: not in this group's window
                scanZone(headZonePrefix, clock - delay, streamTime - delay, bucket, window, false);
            }
        }
        for (int i = 0; i < aggregators.length; i++) {
            out[at + i] = aggregators[i].result(window, slots[i]);
        }
    }

    /** The head (lag d) passed an event: it enters its group's aggregate and the head zone. */
    private void headPassed(long seq, long eventTime, int schema, byte[] data, int off, int len) {
        codec.decode(data, off, len, scratch);
        if (!passes(scratch)) {
            return;
        }
        byte[] group = GroupKeys.encode(scratch, groupColumns);
        GroupState state = GroupState.load(store, concat(statePrefix, group), aggBytes);
        apply(state.bucket(bucketOf(eventTime)), scratch, true);
        save(state);
        store.put(zoneKey(headZonePrefix, group, eventTime, seq), encodeArguments(scratch));
    }

    private void headZoneLeft(long seq, long eventTime, int schema, byte[] data, int off, int len) {
        codec.decode(data, off, len, scratch);
        if (!passes(scratch)) {
            return;
        }
        store.delete(zoneKey(headZonePrefix, GroupKeys.encode(scratch, groupColumns), eventTime, seq));
    }

    /** The sliding tail (lag d + w) passed an event: it leaves its group's aggregate and enters the tail zone. */
    private void tailPassed(long seq, long eventTime, int schema, byte[] data, int off, int len) {
        codec.decode(data, off, len, scratch);
        if (!passes(scratch)) {
            return;
        }
        byte[] group = GroupKeys.encode(scratch, groupColumns);
        GroupState state = GroupState.load(store, concat(statePrefix, group), aggBytes);
        apply(state.bucket(0), scratch, false);
        save(state);
        store.put(zoneKey(tailZonePrefix, group, eventTime, seq), encodeArguments(scratch));
    }

    private void tailZoneLeft(long seq, long eventTime, int schema, byte[] data, int off, int len) {
        codec.decode(data, off, len, scratch);
        if (!passes(scratch)) {
            return;
        }
        store.delete(zoneKey(tailZonePrefix, GroupKeys.encode(scratch, groupColumns), eventTime, seq));
    }

    private void apply(ByteBuffer aggs, Object[] values, boolean add) {
        for (int i = 0; i < aggregators.length; i++) {
            Object v = argument(values, i);
            if (add) {
                aggregators[i].add(aggs, slots[i], v);
            } else {
                aggregators[i].remove(aggs, slots[i], v);
            }
        }
    }

    /** Saves the group state, dropping tumbling buckets no clock in [S - L, S] can reach any more. */
    private void save(GroupState state) {
        if (kind == WindowSpec.Kind.TUMBLING) {
            state.dropBucketsBefore(bucketOf(reservoir.streamTime() - lateness - delay));
        }
        store.put(state.key, state.encode());
    }

    /**
     * Applies to {@code window} the group's zone rows with {@code after < t <= upTo} (only those in {@code bucket},
     * unless it is Long.MIN_VALUE): added back, or subtracted.
     */
    private void scanZone(byte[] zonePrefix, long after, long upTo, long bucket, ByteBuffer window, boolean add) {
        if (upTo <= after) {
            return;
        }
        byte[] from = zoneKey(zonePrefix, lastGroup, after + 1, Long.MIN_VALUE);
        byte[] to = zoneKey(zonePrefix, lastGroup, upTo + 1, Long.MIN_VALUE);
        int timeAt = zonePrefix.length + lastGroup.length;
        store.scan(from, to, (key, value) -> {
            long t = ByteBuffer.wrap(key, timeAt, 8).getLong() ^ Long.MIN_VALUE;
            if (bucket != Long.MIN_VALUE && bucketOf(t) != bucket) {
                return true;
            }
            ByteBuffer args = ByteBuffer.wrap(value);
            for (int i = 0; i < aggregators.length; i++) {
                Object v = decodeArgument(args);
                if (add) {
                    aggregators[i].add(window, slots[i], v);
                } else {
                    aggregators[i].remove(window, slots[i], v);
                }
            }
            return true;
        });
    }

    private Object argument(Object[] values, int i) {
        if (argumentExpressions[i] != null) {
            return argumentExpressions[i].evaluate(values);
        }
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

    private static byte[] zoneKey(byte[] prefix, byte[] group, long eventTime, long seq) {
        ByteBuffer k = ByteBuffer.allocate(prefix.length + group.length + 16);
        k.put(prefix).put(group).putLong(eventTime ^ Long.MIN_VALUE).putLong(seq ^ Long.MIN_VALUE);
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
        for (Subscription s : subscriptions) {
            s.cancel();
        }
    }
}
