package io.coilgun.planner.plan;

import io.coilgun.planner.agg.Results;
import io.coilgun.planner.event.EventCodec;
import io.coilgun.planner.event.EventView;
import io.coilgun.planner.model.LatePolicy;
import io.coilgun.planner.model.MetricDef;
import io.coilgun.planner.model.StreamDef;
import io.coilgun.planner.window.MetricOperator;
import io.coilgun.planner.window.MetricRows;
import io.coilgun.planner.window.SharedOperators;
import io.coilgun.planner.window.WindowMetric;
import io.coilgun.storage.reservoir.ChunkCache;
import io.coilgun.storage.reservoir.Reservoir;
import io.coilgun.storage.reservoir.ReservoirConfig;
import io.coilgun.storage.reservoir.ReservoirIO;
import io.coilgun.storage.snapshot.SnapshotFile;
import io.coilgun.storage.state.StateStore;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Everything one task (a partition of a partitioner topic) computes, without Kafka: the task's event
 * reservoir, its state store and the operators of the metrics that run on it.
 *
 * <p>Per event ({@link #process}): judge lateness against the stream time S, append the event to the reservoir
 * (its seq is its Kafka offset), let every metric operator take it, move the reservoir's shared iterators to their
 * horizons (expiring events leave the windows), and let every operator report its values.
 * {@link #checkpoint} makes the state, the reservoir's position and the Kafka offset of the last applied record
 * durable together, so a reopened plan resumes exactly after that offset ({@link #nextOffset()}).
 *
 * <p>Single-threaded: a processor unit's thread owns it. The metric list may change between events
 * ({@link #addMetric}); a new metric starts empty at the current stream time.
 */
public final class TaskPlan implements AutoCloseable {
    /** The stream time of a task that has accepted nothing yet. */
    public static final long NO_TIME = Reservoir.NO_TIME;

    private static final byte[] META_OFFSET = "m\0offset".getBytes(StandardCharsets.UTF_8);
    private static final byte[] META_RESERVOIR = "m\0reservoir".getBytes(StandardCharsets.UTF_8);
    /** The last decision applied ({@link #processDecided}), with the checkpoint. */
    private static final byte[] META_DECISION = "m\0decision".getBytes(StandardCharsets.UTF_8);
    /** Set once a task of a stream that gained a decider stopped judging its own events ({@link #cut}). */
    private static final byte[] META_CUT = "m\0cut".getBytes(StandardCharsets.UTF_8);
    /** How many failed events a task remembers (the oldest go first). */
    static final int MAX_FAILED_EVENTS = FailedEvents.MAX;

    private StreamDef stream;
    private EventCodec codec;
    private final StateStore store;
    private final Reservoir reservoir;
    private final List<MetricOperator> operators = new ArrayList<>();
    /** The filters, group-bys and event decoding the metrics share. */
    private final SharedOperators shared;
    /** The ids accepted within the dedup horizon; null for a stream without an event_id column. */
    /**
     * The ids accepted within the dedup horizon; null without an event id, and on the partitioner tasks of a stream
     * with a decider (which judges duplicates for them: {@link #decider}).
     */
    private DuplicateIndex duplicates;
    private long lastOffset;
    /** Whether this task is its stream's decider: no metric ever runs here, so its history is kept for its dedup only. */
    private boolean decider;
    /** What a decider's fills of added partitioners have still to read ({@link #holdHistoryFrom}). */
    private long historyHeldFrom = Long.MAX_VALUE;
    /** The offset, in the stream's decision log, of the last decided event applied; -1 before the first. */
    private long lastDecision;
    /** Whether the task reached its cut ({@link #cut}). */
    private boolean cut;
    /** The id the front end assigned to the last event processed (streams without an event_id column). */
    private long assignedId;
    /** The payload of the last event accepted, with its final time (clamped or not). */
    private byte[] acceptedPayload;
    /** The results of {@link #process(byte[], long, Object[])} before they are boxed. */
    private Results boxed;
    /** The records this task skips, by offset: events it failed on (usually empty). */
    private final FailedEvents failedEvents;
    /** The metrics being filled from history and the REPLAYs reading it. */
    private final TaskFills fills;

    private TaskPlan(Path dir, ReservoirIO io, StreamDef stream, StateStore store, Reservoir reservoir,
            long lastOffset) {
        this.fills = new TaskFills(this, store, reservoir, dir, io);
        this.stream = stream;
        this.codec = new EventCodec(stream);
        this.store = store;
        this.reservoir = reservoir;
        this.lastOffset = lastOffset;
        byte[] decision = store.get(META_DECISION);
        this.lastDecision = decision == null ? -1 : ByteBuffer.wrap(decision).getLong();
        this.cut = store.get(META_CUT) != null;
        this.shared = new SharedOperators(stream);
        registerSchemas(stream);
        if (stream.eventIdIndex() >= 0 && (!stream.decided() || judgesUntilCut())) {
            openDuplicates();
        }
        this.failedEvents = new FailedEvents(store);
    }

    /**
     * Opens the task's data under {@code dir} ({@code state/} for RocksDB, {@code reservoir/}), recovering to its
     * checkpoint.
     *
     * @param io the node's reservoir I/O threads
     * @param cache the chunk cache of the processor thread that will run the task
     */
    public static TaskPlan open(Path dir, StreamDef stream, List<MetricDef> metrics, ReservoirIO io,
            ChunkCache cache) {
        return open(dir, stream, metrics, io, cache, false);
    }

    /**
     * As {@link #open(Path, StreamDef, List, ReservoirIO, ChunkCache)}; with {@code startedOnly}, only the metrics
     * that already started in this task's data (a checkpoint holds their start) are added: the others start when
     * the task takes their start marker, at the same offset on every copy of the task.
     */
    public static TaskPlan open(Path dir, StreamDef stream, List<MetricDef> metrics, ReservoirIO io,
            ChunkCache cache, boolean startedOnly) {
        StateStore store = StateStore.open(dir.resolve("state"));
        try {
            MetricRows.migrate(store);
            Reservoir reservoir = Reservoir.open(dir.resolve("reservoir"), ReservoirConfig.of(stream.latenessMicros()),
                    io, cache, store.get(META_RESERVOIR));
            byte[] offset = store.get(META_OFFSET);
            TaskPlan plan = new TaskPlan(dir, io, stream, store, reservoir,
                    offset == null ? -1 : ByteBuffer.wrap(offset).getLong());
            plan.fills.deleteScratch();
            try {
                for (MetricDef m : metrics) {
                    MetricRows.Backfill backfill = MetricRows.backfill(store, m.name());
                    if (backfill != null && !MetricRows.started(store, m.name())) {
                        plan.resumeBackfill(m, backfill); // a restart in the middle of it: begun again
                    } else if (!startedOnly || MetricRows.started(store, m.name())) {
                        plan.addMetric(m);
                    }
                }
                plan.dropLeftoverMetrics();
            } catch (RuntimeException e) {
                plan.fills.close();
                throw e;
            }
            return plan;
        } catch (RuntimeException e) {
            store.close();
            throw e;
        }
    }

    /**
     * The offset a task whose data is in {@code dir} (and not open) goes on from: its checkpoint's; 0 when it has
     * none.
     */
    public static long checkpointedNextOffset(Path dir) {
        byte[] offset = StateStore.readCommitted(dir.resolve("state"), META_OFFSET);
        return offset == null ? 0 : ByteBuffer.wrap(offset).getLong() + 1;
    }

    public StreamDef stream() {
        return stream;
    }

    /** The task's state store (for its memory figures; on the task's thread). */
    public StateStore stateStore() {
        return store;
    }

    public Reservoir reservoir() {
        return reservoir;
    }

    /** Records every schema version of the stream in the reservoir's schema registry (new ones only). */
    private void registerSchemas(StreamDef s) {
        for (int v = 1; v <= s.schemaVersion(); v++) {
            StringBuilder columns = new StringBuilder();
            for (int i = 0; i < s.schemaWidth(v); i++) {
                columns.append(i == 0 ? "" : ", ").append(s.column(i).name()).append(' ')
                        .append(s.column(i).typeName());
            }
            reservoir.registerSchema(v, columns.toString());
        }
    }

    /**
     * The stream's next schema version (ALTER STREAM ... ADD COLUMN), between two events: events are decoded with
     * it from now on, older ones read NULL for the new columns.
     */
    public void alterStream(StreamDef altered) {
        if (altered.schemaVersion() <= stream.schemaVersion()) {
            return;
        }
        stream = altered;
        codec = new EventCodec(altered);
        registerSchemas(altered);
        shared.streamChanged(altered);
        for (MetricOperator op : operators) {
            op.streamChanged(altered);
        }
        fills.streamChanged(altered);
    }

    /** Adds a metric whose state may already be in the store (opening the task). */
    public void addMetric(MetricDef metric) {
        operators.add(new WindowMetric(metric, stream, store, reservoir, nextOffset(), shared));
    }

    /**
     * Adds a metric just created on a live stream: it starts empty at the current stream time, after clearing any
     * rows an earlier metric of the same name left behind (a drop whose clean-up a crash undid).
     */
    public void addNewMetric(MetricDef metric) {
        MetricRows.clear(store, metric.name());
        addMetric(metric);
    }

    /**
     * Starts metric {@code metric} at its start marker, filled from the history of its backfill span first: the
     * metric counts the events after the marker and those of the span ({@code t > S - span}, or all for
     * {@code 'all'}) already in the reservoir. It reports nothing until {@link #backfillStep} makes it live.
     */
    public void startBackfill(MetricDef metric) {
        long s = streamTime();
        long countedFrom = metric.backfillMicros() == MetricDef.BACKFILL_ALL ? Long.MIN_VALUE
                : s == NO_TIME ? Long.MAX_VALUE : s - metric.backfillMicros() + 1;
        // events after the marker may be up to one lateness older than S: the history read covers them too
        long scanFrom = s == NO_TIME ? countedFrom : Math.min(countedFrom, s - stream.latenessMicros());
        fills.start(metric, stream, new MetricRows.Backfill(nextOffset(), countedFrom, scanFrom));
    }

    /** A backfill the task was in the middle of when it closed: begun again, with the same span. */
    private void resumeBackfill(MetricDef metric, MetricRows.Backfill start) {
        fills.start(metric, stream, start);
        store.commit(); // the clear is immediate: the row that says a backfill is under way must not be lost
    }

    /** Whether metric {@code name} is being filled from history. */
    public boolean backfilling(String name) {
        return fills.backfill(name) != null;
    }

    /** Whether a metric is being filled from history (a backfill; replays aside). */
    public boolean filling() {
        return fills.filling();
    }

    /** Whether a backfill or a replay has events to apply ({@link #backfillStep}). */
    public boolean hasBackfillWork() {
        return fills.hasWork();
    }

    /**
     * Starts a REPLAY of {@code metric} over this task's history: the events with {@code from <= t <= to} held now,
     * in the order the task accepted them ({@link MetricReplay}); it runs in {@link #backfillStep}.
     *
     * @param id a name for its scratch directory, unique among this task's replays
     */
    public MetricReplay replay(MetricDef metric, long from, long to, String id) {
        return fills.replay(metric, stream, from, to, id);
    }

    /** Progress of each backfill under way: the metric, events applied, events in all (an estimate). */
    public record BackfillProgress(String metric, long applied, long total) {
    }

    public List<BackfillProgress> backfillProgress() {
        return fills.progress();
    }

    /** The definitions of the metrics being filled (a plan reopened after a failure needs them). */
    public List<MetricDef> backfillingMetrics() {
        return fills.metrics();
    }

    /**
     * Lets the backfills apply history until {@code deadlineNanos} (System.nanoTime), between two live events. A
     * backfill that has applied everything writes the group states it held back, a checkpoint per step, then becomes
     * live here: its rows are checkpointed with the task, and the metric reports from the next event on. Returns the
     * metrics that became live (usually none).
     */
    public List<MetricDef> backfillStep(long deadlineNanos) {
        return fills.step(deadlineNanos, stream);
    }

    SharedOperators shared() {
        return shared;
    }

    /** A filled metric goes live: one of the task's operators from now on. */
    void addLive(WindowMetric metric) {
        operators.add(metric);
    }

    /** Drops the rows of metrics that are no longer defined: dropped while the task was down, or mid-drop at a crash. */
    private void dropLeftoverMetrics() {
        Set<String> live = new HashSet<>();
        for (MetricOperator op : operators) {
            live.add(op.def().name());
        }
        for (MetricDef m : fills.metrics()) {
            live.add(m.name());
        }
        for (String name : MetricRows.stored(store)) {
            if (!live.contains(name)) {
                MetricRows.clear(store, name);
            }
        }
    }

    /** Removes a metric between two events, and its state (or its backfill). */
    public void dropMetric(String name) {
        if (fills.drop(name)) {
            MetricRows.clear(store, name);
            return;
        }
        for (int i = 0; i < operators.size(); i++) {
            if (operators.get(i).def().name().equals(name)) {
                operators.remove(i).close();
                MetricRows.clear(store, name);
                return;
            }
        }
    }

    /**
     * The task's most recent events (SELECT over a stream): those of the last {@code span} of stream time, at most
     * the newest {@code limit}, oldest first, decoded (timestamps as micros).
     */
    public List<Object[]> recentEvents(long span, int limit) {
        long s = streamTime();
        if (s == NO_TIME) {
            return List.of();
        }
        ArrayDeque<Object[]> last = new ArrayDeque<>();
        reservoir.scan(s - span, s, (seq, time, schema, data, off, len) -> {
            Object[] event = new Object[codec.columnCount()];
            codec.decode(data, off, len, event);
            last.addLast(event);
            if (last.size() > limit) {
                last.removeFirst();
            }
        });
        return new ArrayList<>(last);
    }

    /**
     * The events this task accepted at offsets {@code from} to {@code until} (inclusive) that its reservoir still
     * holds (a decider's: its dedup horizon), in offset order: offset and payload as accepted (final time).
     */
    public List<Map.Entry<Long, byte[]>> acceptedBetween(long from, long until) {
        List<Map.Entry<Long, byte[]>> found = new ArrayList<>();
        AcceptedHistory.after(reservoir, from - 1, Long.MIN_VALUE).step(Long.MAX_VALUE, (seq, time, schema, payload) -> {
            if (seq <= until) {
                found.add(Map.entry(seq, payload));
            }
        });
        return found;
    }

    /**
     * A decider's decisions after {@code afterSeq} in the order decided, from its reservoir ({@link AcceptedHistory});
     * {@code fromTime} is the time of decision {@code afterSeq} minus the lateness ({@link Long#MIN_VALUE}: all).
     * Retention keeps what {@link #holdHistoryFrom} says is still to read.
     */
    public AcceptedHistory decisionsAfter(long afterSeq, long fromTime) {
        return AcceptedHistory.after(reservoir, afterSeq, fromTime);
    }

    /** A decider's reservoir keeps the events from {@code time} on ({@link Long#MAX_VALUE}: no fill reads it). */
    public void holdHistoryFrom(long time) {
        this.historyHeldFrom = time;
    }

    /** The operator of metric {@code name}, or null when this task does not run it. */
    public MetricOperator operator(String name) {
        for (MetricOperator op : operators) {
            if (op.def().name().equals(name)) {
                return op;
            }
        }
        return null;
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
        return reservoir.streamTime();
    }

    /**
     * Applies one event that arrived at Kafka {@code offset}.
     *
     * @param results receives the values of every metric, in {@link #metrics()} order (length {@link #resultWidth()})
     * @param decoded receives the event's column values
     * @return what happened to the event
     */
    public Outcome process(byte[] payload, long offset, Object[] decoded, Object[] results) {
        Outcome outcome = process(payload, offset, results);
        System.arraycopy(lastEvent(), 0, decoded, 0, decoded.length);
        return outcome;
    }

    /** {@link #process(byte[], long, Results)} with the results boxed into {@code results}. */
    public Outcome process(byte[] payload, long offset, Object[] results) {
        Results boxed = boxed(results.length);
        Outcome outcome = process(payload, offset, boxed);
        if (outcome == Outcome.APPLIED) {
            boxed.copyTo(0, results, 0);
        }
        return outcome;
    }

    /**
     * Applies one event that arrived at Kafka {@code offset}, read in place: nothing of it is boxed unless a filter
     * or an expression needs it, or {@link #lastEvent()} asks.
     *
     * @param results receives the values of every metric, in {@link #metrics()} order (width {@link #resultWidth()})
     * @return what happened to the event
     */
    public Outcome process(byte[] payload, long offset, Results results) {
        lastOffset = offset;
        EventView event = shared.arrived(payload);
        assignedId = event.assignedId();
        int timeColumn = stream.eventTimeIndex();
        if (event.isNull(timeColumn)) {
            return Outcome.NULL_TIME; // the front end refuses these; a raw producer may not
        }
        if (TestFaults.ENABLED) {
            TestFaults.beforeApply(event.values());
        }
        // Before lateness: a retry of an accepted event is a duplicate however late it comes (within the horizon).
        if (duplicates != null && duplicates.seen(event)) {
            return Outcome.DUPLICATE;
        }
        long eventTime = event.getLong(timeColumn);
        long streamTime = reservoir.streamTime();
        if (eventTime < streamTime - stream.latenessMicros()) {
            if (stream.latePolicy() == LatePolicy.CLAMP) {
                eventTime = streamTime - stream.latenessMicros();
                Object[] clamped = event.values().clone();
                clamped[timeColumn] = eventTime;
                payload = codec.encode(clamped, assignedId);
                event = shared.arrived(payload);
            } else {
                return stream.latePolicy() == LatePolicy.DROP ? Outcome.DROPPED : Outcome.LATE;
            }
        }
        accept(event, payload, offset, eventTime, results);
        return Outcome.APPLIED;
    }

    /**
     * Applies an event the stream's decider accepted ({@code decision}: its offset in the decision log), as decided:
     * neither its id nor its lateness is judged again, its time is final (clamped there if it was). The decider is one
     * task, so its decisions reach this task in order and every one has {@code t >= S - lateness} here too (this
     * task's stream time is never ahead of the decider's); one that is not is a broken invariant and is refused
     * before anything changes.
     *
     * @param decision above {@link #lastDecision()} (a decision applied already is skipped by the caller)
     * @param results receives the values of every metric, as {@link #process(byte[], long, Results)}
     */
    public void processDecided(byte[] payload, long offset, long decision, Results results) {
        if (decision <= lastDecision) {
            throw new IllegalArgumentException("decision " + decision + " was applied already (last " + lastDecision
                    + ")");
        }
        EventView event = shared.arrived(payload);
        int timeColumn = stream.eventTimeIndex();
        long eventTime = event.getLong(timeColumn);
        long streamTime = reservoir.streamTime();
        if (streamTime != NO_TIME && eventTime < streamTime - stream.latenessMicros()) {
            throw new IllegalStateException("decided event at " + eventTime + " (decision " + decision
                    + ") is behind this task's horizon " + (streamTime - stream.latenessMicros()));
        }
        lastOffset = offset;
        lastDecision = decision;
        assignedId = event.assignedId();
        if (TestFaults.ENABLED) {
            TestFaults.beforeApply(event.values());
        }
        accept(event, payload, offset, eventTime, results);
    }

    /** {@link #processDecided(byte[], long, long, Results)} with the results boxed into {@code results}. */
    public void processDecided(byte[] payload, long offset, long decision, Object[] results) {
        Results boxed = boxed(results.length);
        processDecided(payload, offset, decision, boxed);
        boxed.copyTo(0, results, 0);
    }

    /** The results before they are boxed, {@code width} wide (made once, again only when the width changes). */
    private Results boxed(int width) {
        if (boxed == null || boxed.width() != width) {
            boxed = new Results(width);
        }
        return boxed;
    }

    /**
     * The event the last {@link #process} accepted as it was accepted: its payload with its final time (clamped or
     * not), what a decider forwards.
     */
    public byte[] acceptedPayload() {
        return acceptedPayload;
    }

    /**
     * Makes this task its stream's decider (a stream partitioned by several fields): it runs no metric, so its
     * reservoir keeps what its dedup index reads back (the dedup horizon) and the stream's backfill horizon beyond
     * it, the history from which a partitioner added later is filled.
     */
    public void decider() {
        this.decider = true;
        if (duplicates == null && stream.eventIdIndex() >= 0) {
            openDuplicates();
        }
    }

    /**
     * Whether this is a task of a stream that gained a decider ({@code ALTER STREAM … ADD PARTITION BY} on a stream
     * partitioned by one field) that has not reached its cut yet: it still judges the events published before it.
     */
    private boolean judgesUntilCut() {
        return store.familyNames().contains(DuplicateIndex.FAMILY) && store.get(META_CUT) == null;
    }

    /**
     * The stream gained a decider and this task reached the cut in its partition: from here on it applies only what
     * the decider decided ({@link #processDecided}); its dedup index is no longer read or kept.
     */
    public void cut() {
        store.put(META_CUT, new byte[] {1});
        cut = true;
        if (duplicates != null) {
            duplicates.close();
            duplicates = null;
        }
    }

    /** Whether this task reached its cut ({@link #cut}). */
    public boolean isCut() {
        return cut;
    }

    /**
     * A decider taking the history of the tasks that judged the stream's events before it existed (a stream
     * partitioned by one field gaining a partitioner): the event at {@code offset} of the decision log was accepted
     * there at its time, and is taken as accepted, into the reservoir and the dedup index. Events come in time
     * order, so none is late here.
     */
    public void processSeeded(byte[] payload, long offset) {
        EventView event = shared.arrived(payload);
        long eventTime = event.getLong(stream.eventTimeIndex());
        long streamTime = reservoir.streamTime();
        if (streamTime != NO_TIME && eventTime < streamTime - stream.latenessMicros()) {
            throw new IllegalStateException("seeded event at " + eventTime + " (offset " + offset
                    + ") is behind the decider's horizon " + (streamTime - stream.latenessMicros()));
        }
        lastOffset = offset;
        assignedId = event.assignedId();
        accept(event, payload, offset, eventTime, boxed(resultWidth()));
    }

    /** Opens the dedup index; a task from before the index existed fills it once from its reservoir. */
    private void openDuplicates() {
        boolean indexed = store.familyNames().contains(DuplicateIndex.FAMILY);
        duplicates = new DuplicateIndex(store, reservoir, stream.dedupHorizonMicros(), stream.eventIdIndex(), shared);
        if (!indexed && reservoir.streamTime() != NO_TIME) {
            long now = reservoir.streamTime();
            Object[] scratch = new Object[codec.columnCount()];
            reservoir.scan(now - stream.dedupHorizonMicros(), now, (seq, time, schema, data, off, len) -> {
                codec.decode(data, off, len, scratch);
                duplicates.accepted(scratch[stream.eventIdIndex()], time);
            });
            store.commit();
        }
    }

    /** What its owner keeps in the task's store under {@code name} ({@link #meta(String, byte[])}), or null. */
    public byte[] meta(String name) {
        return store.get(("m\0" + name).getBytes(StandardCharsets.UTF_8));
    }

    /** Keeps {@code value} under {@code name}, written with the next checkpoint (atomically with the state). */
    public void meta(String name, byte[] value) {
        store.put(("m\0" + name).getBytes(StandardCharsets.UTF_8), value);
    }

    /** The decision log's offset of the last decided event this task applied ({@link #processDecided}), or -1. */
    public long lastDecision() {
        return lastDecision;
    }

    /** Appends an accepted event to the reservoir, the dedup index and every metric, and reports the results. */
    private void accept(EventView event, byte[] payload, long offset, long eventTime, Results results) {
        acceptedPayload = payload;
        reservoir.append(eventTime, offset, codec.schemaVersion(), payload);
        if (duplicates != null) {
            duplicates.accepted(event, eventTime);
        }
        for (int i = 0; i < operators.size(); i++) {
            operators.get(i).accept(eventTime, offset);
            if (TestFaults.ENABLED) {
                TestFaults.whileAggregating(event.values());
            }
        }
        reservoir.advance();
        fills.arrived(eventTime, offset, codec.schemaVersion(), payload);
        int at = 0;
        long now = reservoir.streamTime();
        for (int i = 0; i < operators.size(); i++) {
            MetricOperator op = operators.get(i);
            op.report(now, results, at);
            at += op.def().aggregations().size();
        }
    }

    /**
     * The column values of the event {@link #process} took last, boxed (decoded when first asked); the array is
     * reused for the next event.
     */
    public Object[] lastEvent() {
        return shared.arrivedEvent().values();
    }

    /**
     * Whether the event in {@code payload} is a duplicate: its id was accepted within the dedup horizon. Changes
     * nothing (a probe of the front end, for a row that looks late and may be a retry).
     */
    public boolean isDuplicate(byte[] payload) {
        if (duplicates == null) {
            return false;
        }
        Object[] event = new Object[codec.columnCount()];
        codec.decode(payload, event);
        return duplicates.seen(event[stream.eventIdIndex()]);
    }

    /** The id the front end assigned to the event {@link #process} took last (0 for a stream with event ids). */
    public long assignedId() {
        return assignedId;
    }

    /**
     * Whether the record at {@code offset} is one this task failed on: it is skipped ({@link #skip}), never applied.
     */
    public boolean isFailedEvent(long offset) {
        return failedEvents.contains(offset);
    }

    /**
     * Remembers, durably and at once, that the record at {@code offset} is to be skipped: call it on a plan just
     * reopened at its checkpoint, before the records after the checkpoint are applied again. Only the last
     * {@link #MAX_FAILED_EVENTS} are kept (older offsets are behind every checkpoint anyway).
     */
    public void recordFailedEvent(FailedEvent event) {
        failedEvents.record(event);
    }

    /** The events this task failed on and skips, oldest first. */
    public List<FailedEvent> failedEvents() {
        return failedEvents.all();
    }

    /**
     * The event id (as text) and event time of a record, for reporting a record that failed; nulls for what cannot be
     * decoded. Not for the hot path.
     */
    public FailedEvent describe(byte[] payload, long offset, String error, long atMillis) {
        String eventId = null;
        Long eventTime = null;
        try {
            Object[] event = new Object[codec.columnCount()];
            long assigned = codec.decode(payload, event);
            eventId = stream.eventIdIndex() < 0 ? Long.toString(assigned)
                    : String.valueOf(event[stream.eventIdIndex()]);
            eventTime = (Long) event[stream.eventTimeIndex()];
        } catch (RuntimeException e) {
            // an undecodable record: reported without id and time
        }
        return new FailedEvent(offset, eventId, eventTime, error, atMillis);
    }

    /** Records that {@code offset} was consumed without an event to apply (e.g. a skipped record). */
    public void skip(long offset) {
        lastOffset = offset;
    }

    /**
     * Starts flushing the state store in RocksDB's background threads: a {@link #snapshot} taken once
     * {@link #readyForSnapshot} holds keeps the task's thread for the links, not for writing the memtables.
     */
    public void prepareSnapshot() {
        store.flushInBackground();
    }

    /** Whether the flush {@link #prepareSnapshot} started is over. */
    public boolean readyForSnapshot() {
        return !store.flushing();
    }

    /**
     * A checkpoint, then a consistent copy of the task as of it in the new directory {@code into}: the state store's
     * checkpoint under {@code state/}, the reservoir's files under {@code reservoir/} (hard links where the files
     * are append-only). A task opened from a copy of those files goes on from {@link TaskSnapshot#nextOffset()}
     * exactly as this one does. On the task's thread; the files stay valid while this task runs.
     */
    public TaskSnapshot snapshot(Path into) {
        checkpoint();
        List<SnapshotFile> files = new ArrayList<>(
                store.checkpointTo(into.resolve("state"), "state/"));
        files.addAll(reservoir.snapshotTo(into.resolve("reservoir"), "reservoir/"));
        return new TaskSnapshot(nextOffset(), files);
    }

    /**
     * Makes everything applied so far durable, together with the offset of the last applied record, and lets
     * retention drop reservoir segments that no window reaches any more (beyond the stream's backfill horizon).
     * A task without metrics keeps everything.
     */
    public void checkpoint() {
        for (MetricOperator op : operators) {
            op.checkpoint();
        }
        store.put(META_RESERVOIR, reservoir.checkpoint());
        store.put(META_OFFSET, ByteBuffer.allocate(8).putLong(lastOffset).array());
        if (lastDecision >= 0) {
            store.put(META_DECISION, ByteBuffer.allocate(8).putLong(lastDecision).array());
        }
        store.commit();
        reservoir.committed();
        if (decider) {
            // its dedup index reads back the dedup horizon; a partitioner added later is filled from what it holds
            long keep = (duplicates == null ? 0 : stream.dedupHorizonMicros()) + stream.backfillHorizonMicros();
            reservoir.retainFrom(Math.min(reservoir.streamTime() - keep, historyHeldFrom));
        } else if (!operators.isEmpty()) {
            long reach = duplicates == null ? 0 : stream.dedupHorizonMicros(); // the dedup expiry reads back that far
            for (MetricOperator op : operators) {
                reach = Math.max(reach, op.reach());
            }
            long keepFrom = reservoir.streamTime() - reach - stream.backfillHorizonMicros();
            reservoir.retainFrom(fills.keepFrom(keepFrom)); // and what a backfill or replay has still to read
        }
    }

    /**
     * Releases the task without a checkpoint (its stream is being dropped): nothing more is written, and once this
     * returns the caller may delete the task's directory.
     */
    public void discard() {
        try {
            fills.close();
            for (MetricOperator op : operators) {
                op.close();
            }
            if (duplicates != null) {
                duplicates.close();
            }
            reservoir.discard();
        } finally {
            store.close();
        }
    }

    @Override
    public void close() {
        try {
            fills.close();
            for (MetricOperator op : operators) {
                op.close();
            }
            if (duplicates != null) {
                duplicates.close();
            }
            reservoir.close();
        } finally {
            store.close();
        }
    }

    /** What {@link #process} did with an event. */
    public enum Outcome {
        APPLIED, LATE, DROPPED, NULL_TIME,
        /** An event whose id was accepted within the dedup horizon ({@link DuplicateIndex}): not counted again. */
        DUPLICATE
    }
}
