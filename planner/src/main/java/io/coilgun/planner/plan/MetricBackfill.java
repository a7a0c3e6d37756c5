package io.coilgun.planner.plan;

import io.coilgun.planner.agg.Results;
import io.coilgun.planner.event.EventCodec;
import io.coilgun.planner.model.MetricDef;
import io.coilgun.planner.model.StreamDef;
import io.coilgun.planner.window.MetricRows;
import io.coilgun.planner.window.SharedOperators;
import io.coilgun.planner.window.WindowMetric;
import io.coilgun.storage.reservoir.ChunkCache;
import io.coilgun.storage.reservoir.Reservoir;
import io.coilgun.storage.reservoir.ReservoirConfig;
import io.coilgun.storage.reservoir.ReservoirIO;
import io.coilgun.storage.state.StateStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Comparator;

/**
 * Fills one metric of a task from the history in the task's reservoir ({@code CREATE METRIC … WITH (backfill = …)})
 * while the task goes on applying live events; the task makes it live once it has caught up
 * ({@link TaskPlan#backfillStep}).
 *
 * <p>The metric counts the events with {@code seq >= startSeq} (after its start marker, as any new metric) or
 * {@code t >= countedFrom} (the span of history). The fill applies exactly those, in the order the task accepted
 * them (their seq, the Kafka offset), to a {@link WindowMetric} of its own: the operator live processing runs, so
 * the state it leaves is the one the metric would have had, had it run over those events live (a group's results
 * depend only on the sequence of its own events). Its windows read a scratch reservoir of the events it applied, not
 * the task's (which also holds events the fill has not reached); its group states and candidates go to the task's
 * store under the metric's name, where the live metric finds them.
 *
 * <p>Order: the history (what the reservoir held when the fill began, {@code seq <= untilSeq}) is read in key order
 * {@code (t, seq)} and put back in seq order by an {@link AcceptedHistory}: an event leaves its heap once no unread
 * event has a lower seq. Out of order events are within one lateness of their place, so the heap holds about one
 * lateness of events. Live events that arrive meanwhile are queued and applied after the history.
 */
final class MetricBackfill implements AutoCloseable {
    /** How many events the fill applies between two retention passes over its scratch reservoir. */
    private static final int SCRATCH_RETAIN_EVERY = 8192;
    /**
     * The raw bytes of sealed chunks a fill's scratch reservoir keeps in memory (older ones are compressed and
     * written): windows that reach back less than that (INFINITE, short SLIDING ones) never write anything.
     */
    static final String SCRATCH_MEMORY_PROPERTY = "coilgun.backfillScratchBytes";
    /**
     * The group states a fill writes per step once it has caught up (default 2,048): it holds them back from the
     * task's checkpoints until then ({@link WindowMetric#holdRows}), and writes them in steps of this many before it
     * goes live.
     */
    static final String FLUSH_ROWS_PROPERTY = "coilgun.backfillFlushRows";

    /** What a {@link #step} left to do. */
    enum Step {
        /** Events to apply. */
        APPLYING,
        /** Every event is applied; group states are to be written: checkpoint the task, then step again. */
        WRITING,
        /** Caught up, with about one step's rows held ({@link #flushRows} and what live events changed meanwhile). */
        CAUGHT_UP
    }

    private final MetricDef def;
    private final MetricRows.Backfill start;
    private final long untilSeq;
    /** Events after this time are not counted (a REPLAY's upper bound; {@link Long#MAX_VALUE} for a backfill). */
    private final long untilTime;
    /** Where each applied event's row goes (REPLAY), or null. */
    private final RowSink sink;
    private final Object[] results;
    private final Results reported;
    private final AcceptedHistory history;
    private final Path scratchDir;
    private final Reservoir scratch;
    private final SharedOperators shared;
    private final WindowMetric metric;
    private final ArrayDeque<Pending> live = new ArrayDeque<>();
    private EventCodec codec;
    private Object[] values;
    private long applied;
    private long queued;
    private int sinceRetain;
    private final int flushRows = Integer.getInteger(FLUSH_ROWS_PROPERTY, 2048);
    /** The rows held at the last {@link Step#WRITING} step, and how many it let the checkpoint write (-1: none yet). */
    private int heldBefore;
    private int released = -1;

    /** Receives, for each event applied, its column values and the metric's values for it (arrays reused). */
    interface RowSink {
        void row(Object[] event, Object[] values);

        /** True while the sink takes no more rows: the fill pauses. */
        boolean full();
    }

    /** An event to apply: its key, schema and payload. */
    private record Pending(long seq, long time, int schema, byte[] payload) {
    }

    /**
     * @param history the task's reservoir, read from {@code start.scanFrom()} on, up to {@code untilSeq}
     * @param scratchDir an empty directory the fill may use; deleted when it closes
     */
    MetricBackfill(MetricDef def, StreamDef stream, MetricRows.Backfill start, StateStore store, Reservoir history,
            long untilSeq, Path scratchDir, ReservoirIO io) {
        this(def, stream, start, store, history, untilSeq, Long.MAX_VALUE, null, scratchDir, io);
    }

    /**
     * A replay: the events with {@code t <= untilTime} of the counted ones, each applied event's row to {@code sink}.
     */
    MetricBackfill(MetricDef def, StreamDef stream, MetricRows.Backfill start, StateStore store, Reservoir history,
            long untilSeq, long untilTime, RowSink sink, Path scratchDir, ReservoirIO io) {
        this.def = def;
        this.start = start;
        this.untilSeq = untilSeq;
        this.untilTime = untilTime;
        this.sink = sink;
        this.results = new Object[def.aggregations().size()];
        this.reported = new Results(results.length);
        this.scratchDir = scratchDir;
        this.codec = new EventCodec(stream);
        this.values = new Object[codec.columnCount()];
        this.shared = new SharedOperators(stream);
        this.scratch = Reservoir.openScratch(scratchDir, ReservoirConfig.of(stream.latenessMicros()), io,
                new ChunkCache(64, 16L << 20), Long.getLong(SCRATCH_MEMORY_PROPERTY, 16L << 20));
        try {
            this.metric = new WindowMetric(def, stream, store, scratch, Long.MIN_VALUE, shared);
            metric.holdRows(sink == null); // a replay's go to its own scratch store, as they come
        } catch (RuntimeException e) {
            scratch.discard();
            throw e;
        }
        this.history = new AcceptedHistory(history, start.scanFrom(), untilSeq, (seq, time) -> time <= untilTime
                && (seq >= start.startSeq() || time >= start.countedFrom()));
    }

    MetricDef def() {
        return def;
    }

    MetricRows.Backfill start() {
        return start;
    }

    /** The stream time of the events applied so far: the task's own once the backfill has caught up. */
    long streamTime() {
        return scratch.streamTime();
    }

    /** Events applied so far. */
    long applied() {
        return applied;
    }

    /** About how many events the fill applies in all, as far as it knows now (history and live so far). */
    long total() {
        return Math.max(applied, history.estimatedEvents() + queued);
    }

    /** The oldest event time the fill still has to read from the task's reservoir (retention keeps it). */
    long keepFrom() {
        return history.keepFrom(); // it starts at start.scanFrom()
    }

    /** A live event the task just accepted (in seq order): applied after the history. */
    void arrived(long time, long seq, int schema, byte[] payload) {
        live.add(new Pending(seq, time, schema, payload));
        queued++;
    }

    /** The stream's next schema version: events are decoded with it from now on. */
    void streamChanged(StreamDef altered) {
        codec = new EventCodec(altered);
        values = new Object[codec.columnCount()];
        shared.streamChanged(altered);
        metric.streamChanged(altered);
    }

    /**
     * Applies events until {@code deadlineNanos} (System.nanoTime) or until it has caught up with the task (every
     * counted event the task accepted is applied, and none is waiting); then lets the next checkpoint write some of
     * its group states ({@link Step#WRITING}), and says {@link Step#CAUGHT_UP} once few are left.
     */
    Step step(long deadlineNanos) {
        if (!apply(deadlineNanos)) {
            return Step.APPLYING;
        }
        // Live events change held rows again while they are written: each step writes what they changed since the
        // one before on top of flushRows, so the rows held shrink by about flushRows a step however busy the task is
        int held = metric.heldRows();
        int churn = released < 0 ? 0 : Math.max(0, held - Math.max(0, heldBefore - released));
        int rows = flushRows + churn;
        if (sink == null && held > rows) {
            heldBefore = held;
            released = rows;
            metric.releaseRows(rows);
            return Step.WRITING;
        }
        return Step.CAUGHT_UP;
    }

    /** Makes the metric's group states go with every checkpoint: the fill goes live. */
    void releaseAllRows() {
        metric.holdRows(false);
    }

    /**
     * The live metric that goes on from this fill on the task's reservoir, with its group states as the fill left them
     * (committed: call after {@link #releaseAllRows} and a checkpoint). Then {@link #close} the fill.
     */
    WindowMetric goLive(StreamDef stream, StateStore store, Reservoir reservoir, SharedOperators taskShared) {
        return new WindowMetric(metric, stream, store, reservoir, start.startSeq(), start.countedFrom(), taskShared);
    }

    /** Applies events until the deadline (false) or until none is left (true). */
    private boolean apply(long deadlineNanos) {
        // one event at a time, so that a slice ends close to its deadline: the history, then the live ones
        if (!history.step(deadlineNanos, this::paused, this::apply)) {
            return false;
        }
        while (!live.isEmpty()) {
            Pending e = live.poll();
            apply(e.seq(), e.time(), e.schema(), e.payload());
            if (System.nanoTime() - deadlineNanos >= 0 || paused()) {
                return false;
            }
        }
        return true;
    }

    /** Whether the fill waits for its sink (a REPLAY's reader) to take rows. */
    private boolean paused() {
        return sink != null && sink.full();
    }

    /** Applies one counted event as {@link TaskPlan#process} would have, to this fill's metric only. */
    private void apply(long seq, long time, int schema, byte[] payload) {
        scratch.append(time, seq, schema, payload);
        codec.decode(payload, values);
        if (TestFaults.ENABLED) {
            TestFaults.whileBackfilling(values);
        }
        shared.arrived(payload, values);
        metric.accept(time, seq);
        scratch.advance();
        applied++;
        if (sink != null) {
            metric.report(scratch.streamTime(), reported, 0);
            reported.copyTo(0, results, 0);
            sink.row(values, results);
        }
        if (++sinceRetain == SCRATCH_RETAIN_EVERY) {
            sinceRetain = 0;
            scratch.retainFrom(scratch.streamTime() - metric.reach());
        }
    }

    /**
     * Releases the fill: its metric stops writing (what the task's store did not commit yet of its rows is dropped)
     * and its scratch reservoir is deleted.
     */
    @Override
    public void close() {
        try {
            metric.close();
        } finally {
            scratch.discard();
            ScratchDeleter.deleteLater(scratchDir);
        }
    }

    static void deleteTree(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (var walk = Files.walk(dir)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete " + dir, e);
        }
    }
}
