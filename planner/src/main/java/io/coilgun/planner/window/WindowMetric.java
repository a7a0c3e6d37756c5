package io.coilgun.planner.window;

import io.coilgun.planner.agg.Aggregator;
import io.coilgun.planner.agg.Argument;
import io.coilgun.planner.agg.Results;
import io.coilgun.planner.event.EventView;
import io.coilgun.planner.event.GroupKeys;
import io.coilgun.planner.model.AggregationKind;
import io.coilgun.planner.model.ColumnType;
import io.coilgun.planner.model.MetricDef;
import io.coilgun.planner.model.StreamDef;
import io.coilgun.planner.model.WindowSpec;
import io.coilgun.storage.reservoir.Reservoir;
import io.coilgun.storage.reservoir.Subscription;
import io.coilgun.storage.state.StateStore;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A metric over any window of docs/sql.md: {@code SLIDING w}, {@code TUMBLING w} or {@code INFINITE}, each optionally
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
 *       the events the head already added with {@code T - d < t <= S - d} are subtracted (the <b>head zone</b>:
 *       the head's events of the last lateness, {@code S - d - L < t <= S - d}; with no delay there are none, T
 *       being the group's newest event), and for SLIDING the events the tail already removed with
 *       {@code T - d - w < t <= S - d - w} are added back (the <b>tail zone</b>, {@code S - d - w - L < t <=
 *       S - d - w}). When {@code T = S}, the usual in-order case, nothing is read. The zones are {@link Zone}s in
 *       memory, rebuilt from the reservoir when the task opens: a function of the reservoir and S, they cost the
 *       state store nothing.</li>
 * </ul>
 * Iterators are shared reservoir subscriptions: metrics with aligned window ends read the reservoir once.
 */
public final class WindowMetric implements MetricOperator {
    private final MetricDef def;
    /** The metric's group states and position: rows {@code <name>\0...} of {@link MetricRows#STATE_FAMILY}. */
    private final StateStore.Family groupRows;
    /** The group states in memory, in the group-by's arena; {@link #groupRows} holds them durably. */
    private final MetricSlots slots;
    private final GroupArena arena;
    private final RowLayout layout;
    /** Its candidates and value counts: rows {@code <name>\0...} of {@link MetricRows#AUX_FAMILY}. */
    private final StateStore.Family aux;
    private final Reservoir reservoir;
    private final SharedOperators shared;
    private final SharedOperators.Filter filter;
    private final SharedOperators.GroupBy groupBy;
    private final WindowSpec.Kind kind;
    private final long size;
    private final long delay;
    private final long lateness;
    private final int[] groupColumns;
    /** The aggregations' arguments, read from the events in place. */
    private final EventArguments arguments;
    /** The arguments of the event at hand, encoded for a zone (reused). */
    private byte[] encodedArguments = new byte[64];
    /** Per aggregation, its invertible aggregator, or null for MIN, MAX, LAST and PREV (see {@link Candidates}). */
    private final Aggregator[] aggregators;
    private final AggregationKind[] kinds;
    private final boolean anyCandidates;
    /** Whether an aggregation is COUNT(DISTINCT x) (value counts in rows of their own). */
    private final boolean anyDistinct;
    private final byte[] candidatesPrefix;
    private final byte[] distinctPrefix;
    /** Per aggregation, where its full state starts in a bucket's aggregates (see {@link RowLayout}). */
    private final int[] fullSlots;
    private final int aggBytes;
    private final byte[] statePrefix;
    /** The head zone (with a delay) and the tail zone (SLIDING); null when the window has none. */
    private final Zone headZone;
    private final Zone tailZone;
    private final byte[] minSeqKey;
    private final long minSeq;
    /** A backfilled metric also counts the events before its start with {@code t >= countedFrom} (row 'f'). */
    private final byte[] countedFromKey;
    private final long countedFrom;
    private final Subscription[] subscriptions;
    /**
     * The group (its key in the first {@link #lastGroupLength} bytes), its clock and its arena entry of the event
     * last accepted, for {@link #report}.
     */
    private byte[] lastGroup = new byte[64];
    private int lastGroupLength;
    private long lastHash;
    private long lastClock;
    private int lastId = -1;
    /** The entry's stamp when it was accepted: if it changed, the entry was evicted since and the id reused. */
    private int lastStamp;
    /** The values of a group a query asks for ({@link #current}, {@link #scanCurrent}), before they are boxed. */
    private final Results queried;
    /** The reported bucket's aggregates with the zones' corrections (reused per report). */
    private final ByteBuffer window;
    private final List<Long> droppedBuckets = new ArrayList<>(0);
    /** Its group states went to the metric that took over from it ({@link #handOverSlots}). */
    private boolean handedOver;

    /**
     * @param nextSeq the seq (Kafka offset) of the task's next event: a metric created on a live stream starts
     *     empty there, and its iterators ignore the events before it
     * @param shared the task's shared operators: this metric's filter and group-by come from there
     */
    public WindowMetric(MetricDef def, StreamDef stream, StateStore store, Reservoir reservoir, long nextSeq,
            SharedOperators shared) {
        this(def, stream, store, reservoir, nextSeq, Long.MAX_VALUE, shared);
    }

    /**
     * A metric that counts the events with {@code seq >= nextSeq} (from its start on) or {@code t >= backfilledFrom}
     * (the history a backfill filled it from; {@link Long#MAX_VALUE} for none). What the store says wins over both.
     */
    public WindowMetric(MetricDef def, StreamDef stream, StateStore store, Reservoir reservoir, long nextSeq,
            long backfilledFrom, SharedOperators shared) {
        this(def, stream, store, reservoir, nextSeq, backfilledFrom, shared, null);
    }

    /**
     * The metric a backfill filled ({@code filled}, over its scratch reservoir), live on the task's reservoir: it
     * takes over the filled one's group states in memory (they are committed) instead of reading the store again.
     * {@code filled} is closed.
     */
    public WindowMetric(WindowMetric filled, StreamDef stream, StateStore store, Reservoir reservoir, long nextSeq,
            long backfilledFrom, SharedOperators shared) {
        this(filled.def, stream, store, reservoir, nextSeq, backfilledFrom, shared, filled);
    }

    private WindowMetric(MetricDef def, StreamDef stream, StateStore store, Reservoir reservoir, long nextSeq,
            long backfilledFrom, SharedOperators shared, WindowMetric filled) {
        this.def = def;
        this.groupRows = MetricRows.states(store);
        this.aux = MetricRows.aux(store);
        this.reservoir = reservoir;
        this.shared = shared;
        this.kind = def.window().kind();
        this.size = def.window().sizeMicros();
        this.delay = def.window().delayMicros();
        this.lateness = stream.latenessMicros();
        this.groupColumns = def.groupBy().stream().mapToInt(Integer::intValue).toArray();
        this.filter = shared.filter(def.filter());
        this.groupBy = shared.groupBy(groupColumns);
        this.aggregators = new Aggregator[def.aggregations().size()];
        this.kinds = new AggregationKind[aggregators.length];
        boolean candidates = false;
        this.fullSlots = new int[aggregators.length];
        int at = 0;
        for (int i = 0; i < aggregators.length; i++) {
            var agg = def.aggregations().get(i);
            kinds[i] = agg.kind();
            fullSlots[i] = at;
            if (usesCandidates(agg.kind())) {
                candidates = true;
                continue;
            }
            if (agg.kind() == AggregationKind.COUNT_DISTINCT) {
                at += 8; // the distinct count; the count of each value is a row of its own (see distinctKey)
                continue;
            }
            aggregators[i] = agg.argument() >= 0 ? Aggregator.of(agg, stream.column(agg.argument()).type(),
                    stream.column(agg.argument()).unconstrained())
                    : Aggregator.of(agg, agg.resultType() == ColumnType.BIGINT || agg.resultType() == ColumnType.NUMERIC
                            ? ColumnType.BIGINT : ColumnType.DOUBLE);
            at += aggregators[i].stateBytes();
        }
        this.aggBytes = at;
        this.anyCandidates = candidates;
        this.anyDistinct = Arrays.asList(kinds).contains(AggregationKind.COUNT_DISTINCT);
        this.candidatesPrefix = MetricRows.prefix(def.name(), 'x');
        this.distinctPrefix = MetricRows.prefix(def.name(), 'd');
        this.arguments = new EventArguments(def, stream);
        this.statePrefix = MetricRows.prefix(def.name(), 'g');
        this.headZone = delay > 0 ? new Zone() : null;
        this.tailZone = kind == WindowSpec.Kind.SLIDING ? new Zone() : null;
        this.minSeqKey = MetricRows.prefix(def.name(), 't');
        this.window = ByteBuffer.allocate(aggBytes);
        this.queried = new Results(aggregators.length);
        this.layout = new RowLayout(aggregators, kinds, fullSlots, aggBytes, kind == WindowSpec.Kind.TUMBLING,
                RowLayout.sharedStates(def, aggregators));
        this.slots = filled != null ? filled.handOverSlots()
                : new MetricSlots(groupRows, statePrefix, layout, groupBy.arena());
        this.arena = slots.arena();
        byte[] saved = groupRows.get(minSeqKey);
        this.minSeq = saved != null ? ByteBuffer.wrap(saved).getLong() : nextSeq;
        this.countedFromKey = MetricRows.prefix(def.name(), 'f');
        byte[] from = groupRows.get(countedFromKey);
        this.countedFrom = from != null ? ByteBuffer.wrap(from).getLong()
                : saved != null ? Long.MAX_VALUE : backfilledFrom;
        List<Subscription> subs = new ArrayList<>();
        if (delay > 0) {
            subs.add(reservoir.iterator(delay).subscribe(minSeq, countedFrom, this::headPassed));
            if (anyCandidates) {
                subs.add(reservoir.iterator(delay + lateness).subscribe(minSeq, countedFrom, this::headSettled));
            }
        }
        if (kind == WindowSpec.Kind.SLIDING) {
            subs.add(reservoir.iterator(delay + size).subscribe(minSeq, countedFrom, this::tailPassed));
        }
        this.subscriptions = subs.toArray(Subscription[]::new);
        if (minSeq <= reservoir.lastSeq() || countedFrom != Long.MAX_VALUE) {
            rebuild(headZone, delay);
            rebuild(tailZone, delay + size);
        }
    }

    /** Fills {@code zone} (of the iterator at {@code lag}) with the reservoir's events it holds at this stream time. */
    private void rebuild(Zone zone, long lag) {
        if (zone == null) {
            return;
        }
        long s = reservoir.streamTime();
        reservoir.scan(s - lag - lateness, s - lag, (seq, t, schema, data, off, len) -> {
            if (seq >= minSeq || t >= countedFrom) {
                EventView e = shared.passed(seq, data, off, len);
                if (passes()) {
                    addToZone(zone, t, seq, e);
                }
            }
        });
    }

    @Override
    public boolean current(byte[] group, long streamTime, Object[] out, int at) {
        long h = KnownGroups.hash(group);
        int id = arena.lookup(group, h);
        if (id >= 0 ? !slots.has(id)
                : !arena.mayBeStored(h) || groupRows.get(MetricRows.concat(statePrefix, group)) == null) {
            return false;
        }
        // as if its clock were S
        report(group, group.length, arena.find(group, h), streamTime, streamTime, queried, 0);
        queried.copyTo(0, out, at);
        return true;
    }

    @Override
    public byte[] scanCurrent(byte[] after, int limit, long streamTime, Object[] out, CurrentValues visitor) {
        byte[] from = after == null ? statePrefix
                : MetricRows.concat(MetricRows.concat(statePrefix, after), new byte[] {0});
        List<byte[]> groups = new ArrayList<>(Math.min(limit, 1024));
        groupRows.scan(from, MetricRows.after(statePrefix), (key, value) -> {
            groups.add(Arrays.copyOfRange(key, statePrefix.length, key.length));
            return groups.size() < limit;
        });
        // groups created since the last commit are only in memory
        for (byte[] group : slots.changedKeys()) {
            if (after == null || Arrays.compareUnsigned(group, after) > 0) {
                groups.add(group);
            }
        }
        groups.sort(Arrays::compareUnsigned);
        List<byte[]> page = new ArrayList<>(Math.min(limit, groups.size()));
        for (byte[] group : groups) {
            if (page.size() == limit) {
                break;
            }
            if (page.isEmpty() || !Arrays.equals(page.get(page.size() - 1), group)) {
                page.add(group);
            }
        }
        for (byte[] group : page) {
            report(group, group.length, arena.find(group, KnownGroups.hash(group)), streamTime, streamTime, queried,
                    0);
            queried.copyTo(0, out, 0);
            visitor.accept(group, out);
        }
        return page.size() < limit ? null : page.get(page.size() - 1);
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
        arguments.streamChanged(stream); // the filter is a shared operator
    }

    /** Whether the current event enters this metric's aggregates (its clock counts every event of the group). */
    private boolean passes() {
        return filter.test();
    }

    /** The bucket an event at {@code t} is aggregated in: its tumbling bucket, or the one bucket of other windows. */
    private long bucketOf(long t) {
        return kind == WindowSpec.Kind.TUMBLING ? Math.floorDiv(t, size) : 0;
    }

    @Override
    public void accept(long eventTime, long seq) {
        EventView values = shared.current();
        byte[] group = groupBy.keyBytes();
        int groupLength = groupBy.keyLength();
        long h = groupBy.hash();
        int id = arena.find(group, groupLength, h);
        int off = slots.load(id);
        ByteBuffer state = off >= 0 ? slots.slab(id) : slots.wideRow(id);
        off = Math.max(off, 0); // the clock is the first long of both forms
        long clock = Math.max(state.getLong(off), eventTime);
        state.putLong(off, clock);
        if (groupLength > lastGroup.length) {
            lastGroup = new byte[Math.max(groupLength, 2 * lastGroup.length)];
        }
        System.arraycopy(group, 0, lastGroup, 0, groupLength);
        lastGroupLength = groupLength;
        lastHash = h;
        lastClock = clock;
        lastId = id;
        lastStamp = arena.stamp(id);
        if (delay == 0 && passes()) {
            long bucket = bucketOf(eventTime);
            apply(id, bucket, values, true);
            if (anyCandidates) {
                CandidateState cs = loadCandidates(groupBy.key());
                cs.insert(bucket, false, eventTime, seq, candidateArguments(values));
                saveCandidates(groupBy.key(), cs);
            }
        }
        save(id);
    }

    @Override
    public void report(long streamTime, Results out, int at) {
        // the entry accepted the event; the iterators may have evicted it since (only if it was committed)
        int id = lastId >= 0 && arena.live(lastId) && arena.stamp(lastId) == lastStamp ? lastId
                : arena.find(lastGroup, lastGroupLength, lastHash);
        report(lastGroup, lastGroupLength, id, lastClock, streamTime, out, at);
    }

    /**
     * The values of the group with key {@code group[0 .. groupLength)} (arena entry {@code id}) for a group clock
     * {@code clock}.
     */
    private void report(byte[] group, int groupLength, int id, long clock, long streamTime, Results out, int at) {
        long bucket = bucketOf(clock - delay);
        int off = slots.load(id);
        if (off >= 0) {
            layout.copyBucket(slots.slab(id), off, bucket, window);
        } else {
            GroupState.copyOf(slots.wideRow(id), bucket, aggBytes, window);
        }
        List<ZoneEvent> tailEvents = List.of();
        List<ZoneEvent> headEvents = List.of();
        if (clock < streamTime) {
            if (kind == WindowSpec.Kind.SLIDING) {
                // the tail already removed the group's events in (T - d - w, S - d - w]: still in its window
                tailEvents = zone(tailZone, group, groupLength, clock - delay - size, streamTime - delay - size);
            }
            if (delay > 0) {
                // the head already added the group's events in (T - d, S - d]: not in this group's window
                headEvents = zone(headZone, group, groupLength, clock - delay, streamTime - delay);
            }
            // Add before subtracting, so that every intermediate state is a real multiset of events (aggregators
            // reset an emptied window to exact zeros): when w < L the two zones overlap and cancel.
            for (ZoneEvent e : tailEvents) {
                applyArgs(window, e.args(), true);
            }
            for (ZoneEvent e : headEvents) {
                if (bucketOf(e.time()) == bucket) {
                    applyArgs(window, e.args(), false);
                }
            }
        }
        CandidateState candidates = null;
        List<ZoneEvent> headUpToClock = List.of();
        if (anyCandidates || anyDistinct) {
            group = Arrays.copyOf(group, groupLength); // the keys of their rows
        }
        if (anyCandidates) {
            candidates = loadCandidates(group);
            if (delay > 0 && clock < streamTime) {
                // the head's events a clock behind S still sees: (S - d - L, T - d]
                headUpToClock = zone(headZone, group, groupLength, streamTime - delay - lateness, clock - delay);
            }
        }
        for (int i = 0; i < aggregators.length; i++) {
            if (kinds[i] == AggregationKind.COUNT_DISTINCT) {
                out.setLong(at + i, distinctResult(i, group, window, bucket, headEvents, tailEvents));
            } else if (aggregators[i] != null) {
                aggregators[i].result(window, fullSlots[i], out, at + i);
            } else {
                out.set(at + i, candidateResult(i, candidates, bucket, clock, streamTime, headUpToClock, tailEvents));
            }
        }
    }

    /**
     * MIN, MAX, LAST or PREV for a group with clock {@code clock}: the settled candidates, the head's candidates when
     * the clock is the stream time (else the head zone's events up to {@code clock - d}, in {@code headUpToClock}),
     * and the tail zone's events, keeping only those inside the group's window.
     */
    private Object candidateResult(int i, CandidateState cs, long bucket, long clock, long streamTime,
            List<ZoneEvent> headUpToClock, List<ZoneEvent> tailEvents) {
        List<Candidates.Entry> pool = new ArrayList<>();
        pool.addAll(cs.settled(i, bucket).entries);
        if (delay > 0) {
            if (clock == streamTime) {
                pool.addAll(cs.head(i, bucket).entries);
            } else {
                for (ZoneEvent e : headUpToClock) {
                    if (e.args()[i] != null) {
                        pool.add(new Candidates.Entry(e.time(), e.seq(), e.args()[i]));
                    }
                }
            }
        }
        for (ZoneEvent e : tailEvents) {
            if (e.args()[i] != null) {
                pool.add(new Candidates.Entry(e.time(), e.seq(), e.args()[i]));
            }
        }
        pool.removeIf(e -> !inWindow(e.time(), clock));
        return Candidates.result(kinds[i], pool);
    }

    /**
     * COUNT(DISTINCT x) of the reported group: the base distinct count, corrected value by value for the tail
     * zone's events (added back) and the head zone's events of this bucket (taken out).
     */
    private long distinctResult(int i, byte[] group, ByteBuffer window, long bucket, List<ZoneEvent> headEvents,
            List<ZoneEvent> tailEvents) {
        long distinct = window.getLong(fullSlots[i]);
        if (headEvents.isEmpty() && tailEvents.isEmpty()) {
            return distinct;
        }
        Map<ByteBuffer, long[]> delta = new HashMap<>();
        for (ZoneEvent e : tailEvents) {
            if (e.args()[i] != null) {
                delta.computeIfAbsent(ByteBuffer.wrap(GroupKeys.encodeOne(e.args()[i])), k -> new long[1])[0]++;
            }
        }
        for (ZoneEvent e : headEvents) {
            if (e.args()[i] != null && bucketOf(e.time()) == bucket) {
                delta.computeIfAbsent(ByteBuffer.wrap(GroupKeys.encodeOne(e.args()[i])), k -> new long[1])[0]--;
            }
        }
        for (Map.Entry<ByteBuffer, long[]> d : delta.entrySet()) {
            long base = readCount(distinctKey(i, group, bucket, d.getKey().array()));
            distinct += (base + d.getValue()[0] > 0 ? 1 : 0) - (base > 0 ? 1 : 0);
        }
        return distinct;
    }

    /** Counts one more (or one fewer) event with value {@code v}, moving the distinct count on 0 -> 1 and 1 -> 0. */
    private void countValue(ByteBuffer aggs, int slot, int i, byte[] group, long bucket, Object v, boolean add) {
        if (v == null) {
            return;
        }
        byte[] key = distinctKey(i, group, bucket, GroupKeys.encodeOne(v));
        long count = readCount(key);
        long now = count + (add ? 1 : -1);
        if (now <= 0) {
            aux.delete(key);
        } else {
            aux.put(key, ByteBuffer.allocate(8).putLong(now).array());
        }
        if (count == 0 && now > 0) {
            aggs.putLong(slot, aggs.getLong(slot) + 1);
        } else if (count > 0 && now <= 0) {
            aggs.putLong(slot, aggs.getLong(slot) - 1);
        }
    }

    private long readCount(byte[] key) {
        byte[] v = aux.get(key);
        return v == null ? 0 : ByteBuffer.wrap(v).getLong();
    }

    /** {@code d<metric>\0 <aggregation> <group> <bucket> <value>}: the count of one value in one bucket. */
    private byte[] distinctKey(int i, byte[] group, long bucket, byte[] value) {
        ByteBuffer k = ByteBuffer.allocate(distinctPrefix.length + 1 + group.length + 8 + value.length);
        k.put(distinctPrefix).put((byte) i).put(group).putLong(bucket ^ Long.MIN_VALUE).put(value);
        return k.array();
    }

    /** docs/sql.md's window of a group with clock {@code clock}. */
    private boolean inWindow(long t, long clock) {
        long upper = clock - delay;
        return switch (kind) {
            case SLIDING -> upper - size < t && t <= upper;
            case TUMBLING -> Math.floorDiv(upper, size) * size <= t && t <= upper;
            case INFINITE -> t <= upper;
        };
    }

    /** The head (lag d) passed an event: it enters its group's aggregate and the head zone. */
    private void headPassed(long seq, long eventTime, int schema, byte[] data, int off, int len) {
        EventView e = shared.passed(seq, data, off, len);
        if (!passes()) {
            return;
        }
        int id = arena.find(groupBy.keyBytes(), groupBy.keyLength(), groupBy.hash());
        apply(id, bucketOf(eventTime), e, true);
        save(id);
        headZone.expire(reservoir.streamTime() - delay - lateness);
        addToZone(headZone, eventTime, seq, e);
        if (anyCandidates) {
            CandidateState cs = loadCandidates(groupBy.key());
            cs.insert(bucketOf(eventTime), true, eventTime, seq, candidateArguments(e));
            saveCandidates(groupBy.key(), cs);
        }
    }

    /**
     * An event left the head zone (lag d + L): no clock can be before it any more, so its candidate moves from the
     * head's candidates to the settled ones, unless a short sliding window expired it.
     */
    private void headSettled(long seq, long eventTime, int schema, byte[] data, int off, int len) {
        EventView e = shared.passed(seq, data, off, len);
        if (!passes()) {
            return;
        }
        byte[] group = groupBy.key();
        CandidateState cs = loadCandidates(group);
        cs.removeHead(bucketOf(eventTime), eventTime, seq);
        boolean expired = kind == WindowSpec.Kind.SLIDING && eventTime <= reservoir.streamTime() - delay - size;
        if (!expired) {
            cs.insert(bucketOf(eventTime), false, eventTime, seq, candidateArguments(e));
        }
        saveCandidates(group, cs);
    }

    /** The sliding tail (lag d + w) passed an event: it leaves its group's aggregate and enters the tail zone. */
    private void tailPassed(long seq, long eventTime, int schema, byte[] data, int off, int len) {
        EventView e = shared.passed(seq, data, off, len);
        if (!passes()) {
            return;
        }
        int id = arena.find(groupBy.keyBytes(), groupBy.keyLength(), groupBy.hash());
        apply(id, 0, e, false);
        save(id);
        tailZone.expire(reservoir.streamTime() - delay - size - lateness);
        addToZone(tailZone, eventTime, seq, e);
        if (anyCandidates) {
            CandidateState cs = loadCandidates(groupBy.key());
            cs.removeBoth(0, eventTime, seq);
            saveCandidates(groupBy.key(), cs);
        }
    }

    /** Adds the event at hand ({@code e}, of the group-by's current group) to {@code zone}. */
    private void addToZone(Zone zone, long time, long seq, EventView e) {
        int n = arguments.encode(e, encodedArguments);
        if (n > encodedArguments.length) {
            encodedArguments = new byte[Math.max(n, 2 * encodedArguments.length)];
            n = arguments.encode(e, encodedArguments);
        }
        zone.add(time, seq, groupBy.keyBytes(), groupBy.keyLength(), groupBy.hash(), encodedArguments, n);
    }

    /**
     * Adds (or removes) an event to the aggregates of {@code bucket} of arena entry {@code id}: in its compact slot
     * when it fits, else in its wide row (widened at the first aggregation that does not fit).
     */
    private void apply(int id, long bucket, EventView values, boolean add) {
        int off = slots.load(id);
        int i = 0;
        if (off >= 0) {
            ByteBuffer slab = slots.slab(id);
            if (layout.holdsBucket(slab, off, bucket)) {
                for (; i < aggregators.length; i++) {
                    int at = off + layout.compactSlot(i);
                    if (layout.sharesState(i)) {
                        continue; // applied with the aggregation it shares its state with
                    }
                    if (kinds[i] == AggregationKind.COUNT_DISTINCT) {
                        countValue(slab, at, i, groupBy.key(), bucket, arguments.value(values, i), add);
                    } else if (aggregators[i] != null) {
                        Argument v = arguments.of(values, i);
                        if (!(add ? aggregators[i].addCompact(slab, at, v)
                                : aggregators[i].removeCompact(slab, at, v))) {
                            break;
                        }
                    }
                }
                if (i == aggregators.length) {
                    return;
                }
            }
            slots.widen(id);
        }
        ByteBuffer row = slots.wideRow(id);
        int base = GroupState.aggregatesOf(row, bucket, aggBytes);
        if (base < 0) {
            row = GroupState.withBucket(row, bucket, aggBytes);
            slots.setWide(id, row);
            base = row.capacity() - aggBytes;
        }
        int widenedAt = i;
        for (; i < aggregators.length; i++) {
            int shared = layout.sharesStateOf(i);
            if (shared >= 0 && shared < widenedAt) {
                continue; // the compact state it shared already had the event when it was widened
            }
            if (kinds[i] == AggregationKind.COUNT_DISTINCT) {
                countValue(row, base + fullSlots[i], i, groupBy.key(), bucket, arguments.value(values, i), add);
                continue;
            }
            if (aggregators[i] == null) {
                continue;
            }
            Argument v = arguments.of(values, i);
            if (add) {
                aggregators[i].add(row, base + fullSlots[i], v);
            } else {
                aggregators[i].remove(row, base + fullSlots[i], v);
            }
        }
    }

    /** Marks entry {@code id} changed, dropping tumbling buckets no clock in [S - L, S] can reach any more. */
    private void save(int id) {
        if (kind == WindowSpec.Kind.TUMBLING) {
            long oldest = bucketOf(reservoir.streamTime() - lateness - delay);
            droppedBuckets.clear();
            int off = slots.load(id);
            if (off >= 0) {
                long held = layout.bucket(slots.slab(id), off);
                if (held != RowLayout.NO_BUCKET && held < oldest) {
                    layout.dropBucket(slots.slab(id), off);
                    droppedBuckets.add(held);
                }
            } else {
                ByteBuffer row = slots.wideRow(id);
                ByteBuffer kept = GroupState.dropBucketsBefore(row, oldest, aggBytes, droppedBuckets);
                if (kept != row) {
                    slots.setWide(id, kept);
                }
            }
            if (!droppedBuckets.isEmpty()) {
                dropDistinctRows(arena.key(id), droppedBuckets);
            }
        }
        slots.changed(id);
    }

    /** Deletes the value counts of tumbling buckets no clock can reach any more. */
    private void dropDistinctRows(byte[] group, List<Long> buckets) {
        for (int i = 0; i < kinds.length; i++) {
            if (kinds[i] != AggregationKind.COUNT_DISTINCT) {
                continue;
            }
            for (long bucket : buckets) {
                byte[] from = distinctKey(i, group, bucket, new byte[0]);
                byte[] to = distinctKey(i, group, bucket + 1, new byte[0]);
                aux.deleteRange(from, to);
            }
        }
    }

    /** One event of a zone: its key and its aggregations' arguments. */
    private record ZoneEvent(long time, long seq, Object[] args) {
    }

    /** The group's events in {@code zone} with {@code after < t <= upTo}, in key order. */
    private List<ZoneEvent> zone(Zone zone, byte[] group, int groupLength, long after, long upTo) {
        if (upTo <= after) {
            return List.of();
        }
        List<ZoneEvent> out = new ArrayList<>();
        long hash = GroupKeys.hash(group, 0, groupLength);
        zone.forEach(group, groupLength, hash, after, upTo, (t, seq, bytes, argumentsAt) -> {
            ByteBuffer args = ByteBuffer.wrap(bytes, argumentsAt, bytes.length - argumentsAt);
            Object[] decoded = new Object[aggregators.length];
            for (int i = 0; i < decoded.length; i++) {
                decoded[i] = Candidates.Values.read(args);
            }
            out.add(new ZoneEvent(t, seq, decoded));
        });
        out.sort((a, b) -> a.time() != b.time() ? Long.compare(a.time(), b.time()) : Long.compare(a.seq(), b.seq()));
        return out;
    }

    private void applyArgs(ByteBuffer window, Object[] args, boolean add) {
        for (int i = 0; i < aggregators.length; i++) {
            if (aggregators[i] == null) {
                continue;
            }
            if (add) {
                aggregators[i].add(window, fullSlots[i], args[i]);
            } else {
                aggregators[i].remove(window, fullSlots[i], args[i]);
            }
        }
    }

    /** Whether aggregation kind {@code k} keeps candidates (not invertible) rather than an aggregator's slots. */
    public static boolean usesCandidates(AggregationKind k) {
        return k == AggregationKind.MIN || k == AggregationKind.MAX || k == AggregationKind.LAST
                || k == AggregationKind.PREV;
    }

    private CandidateState loadCandidates(byte[] group) {
        return CandidateState.read(kinds, aux.get(MetricRows.concat(candidatesPrefix, group)));
    }

    private void saveCandidates(byte[] group, CandidateState cs) {
        if (kind == WindowSpec.Kind.TUMBLING) {
            cs.dropBucketsBefore(bucketOf(reservoir.streamTime() - lateness - delay));
        }
        aux.put(MetricRows.concat(candidatesPrefix, group), cs.encode());
    }

    /** The argument of each aggregation that keeps candidates, boxed (null for the invertible ones: not needed). */
    private Object[] candidateArguments(EventView e) {
        Object[] args = new Object[aggregators.length];
        for (int i = 0; i < args.length; i++) {
            if (aggregators[i] == null) {
                args[i] = arguments.value(e, i);
            }
        }
        return args;
    }

    @Override
    public void checkpoint() {
        groupRows.put(minSeqKey, ByteBuffer.allocate(8).putLong(minSeq).array());
        if (countedFrom != Long.MAX_VALUE) {
            groupRows.put(countedFromKey, ByteBuffer.allocate(8).putLong(countedFrom).array());
        }
    }

    /**
     * A backfill's metric: its group states are held back from the task's checkpoints (nothing reads them before it
     * goes live, and a restart begins it again), so that a group changed by many events of the history is written
     * once, not at every checkpoint of the task. They are written while the memory budget is spent (only committed
     * states can be evicted), and as {@link #releaseRows} allows.
     */
    public void holdRows(boolean hold) {
        slots.holdWrites(hold);
    }

    /** Lets the next commit write up to {@code rows} of the group states held back. */
    public void releaseRows(int rows) {
        slots.release(rows);
    }

    /** The group states changed and not written yet. */
    public int heldRows() {
        return slots.changedRows();
    }

    /**
     * Stops this metric and gives its group states, committed, to the metric that goes on with it (with the arena
     * they are in: the fill's own, beside the task's arena of the same group-by until the task opens again).
     */
    private MetricSlots handOverSlots() {
        if (slots.changedRows() > 0) {
            throw new IllegalStateException("metric " + def.name() + " hands over group states not committed");
        }
        for (Subscription s : subscriptions) {
            s.cancel();
        }
        handedOver = true;
        return slots;
    }

    @Override
    public void close() {
        for (Subscription s : subscriptions) {
            s.cancel();
        }
        if (!handedOver) {
            slots.close();
        }
    }
}
