package io.coilgun.planner.plan;

import io.coilgun.planner.model.MetricDef;
import io.coilgun.planner.model.StreamDef;
import io.coilgun.planner.window.MetricRows;
import io.coilgun.storage.reservoir.Reservoir;
import io.coilgun.storage.reservoir.ReservoirIO;
import io.coilgun.storage.state.StateStore;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One task's part of a {@code REPLAY}: a metric definition computed over the task's stored history without deploying
 * it. The events with {@code from <= t <= to} that the task held when the replay began are applied, in the order the
 * task accepted them, to a metric of the replay's own (scratch reservoir and state store, deleted at the end), and
 * each gives a row: the event's columns, then the metric's values for it, exactly what a metric counting those
 * events would have reported live.
 *
 * <p>Two threads: the task's unit runs {@link #step} between live events (at a lower priority, as backfills), a reader
 * takes the rows with {@link #poll}. At most {@link #CAPACITY} rows wait; the replay pauses while the reader is behind.
 * Rows cross between the two threads in batches of up to {@link #BATCH} (a queue operation per row, its node and its
 * counter moving between cores, was a tenth of the reader's time); a step hands over what it made before it returns.
 * One reader at a time: a reader that moves between threads must order its calls (a lock, as RemoteReplays does).
 */
public final class MetricReplay {
    /** Rows that may wait for the reader before the replay pauses. */
    public static final int CAPACITY = 4096;
    static final int BATCH = 256;

    private final ConcurrentLinkedQueue<Object[][]> batches = new ConcurrentLinkedQueue<>();
    /** Rows handed over and not yet taken by the reader (a batch counts as taken once the reader holds it). */
    private final AtomicInteger waiting = new AtomicInteger();
    private final int eventColumns;
    private volatile boolean finished;
    private volatile boolean canceled;
    private volatile Throwable failure;
    private volatile Runnable onAvailable = () -> { };
    // the unit's thread only:
    private MetricBackfill core;
    private StateStore store;
    private final Path dir;
    private Object[][] making = new Object[BATCH][];
    private int made;
    // the reader's:
    private Object[][] taking;
    private int taken;
    private int takingSize;

    MetricReplay(MetricDef def, StreamDef stream, Reservoir history, long from, long to, Path dir, ReservoirIO io) {
        this.dir = dir;
        this.eventColumns = stream.columns().size();
        MetricBackfill.deleteTree(dir);
        this.store = StateStore.open(dir.resolve("state"));
        try {
            MetricRows.Backfill range = new MetricRows.Backfill(Long.MAX_VALUE, from, from);
            this.core = new MetricBackfill(def, stream, range, store, history, history.lastSeq(), to, new Sink(),
                    dir.resolve("reservoir"), io);
        } catch (RuntimeException e) {
            store.close();
            MetricBackfill.deleteTree(dir);
            throw e;
        }
    }

    private final class Sink implements MetricBackfill.RowSink {
        @Override
        public void row(Object[] event, Object[] values) {
            Object[] row = new Object[eventColumns + values.length];
            System.arraycopy(event, 0, row, 0, eventColumns);
            System.arraycopy(values, 0, row, eventColumns, values.length);
            making[made++] = row;
            if (made == BATCH) {
                handOver();
            }
        }

        @Override
        public boolean full() {
            return waiting.get() + made >= CAPACITY;
        }
    }

    /** On the unit's thread: the rows made so far go to the reader. */
    private void handOver() {
        if (made == 0) {
            return;
        }
        Object[][] batch = made == BATCH ? making : Arrays.copyOf(making, made);
        if (made == BATCH) {
            making = new Object[BATCH][];
        } else {
            Arrays.fill(making, 0, made, null);
        }
        int n = made;
        made = 0;
        batches.add(batch);
        if (waiting.getAndAdd(n) == 0) {
            onAvailable.run();
        }
    }

    /** On the unit's thread: whether {@link #step} has something to do now (not over, reader not behind). */
    public boolean wantsWork() {
        return core != null && (canceled || waiting.get() < CAPACITY);
    }

    /**
     * On the unit's thread: replays until {@code deadlineNanos}; when it has read everything, or was canceled, it
     * releases its scratch data and the reader sees the end.
     */
    public void step(long deadlineNanos) {
        if (core == null) {
            return;
        }
        try {
            if (canceled || core.step(deadlineNanos) == MetricBackfill.Step.CAUGHT_UP) {
                release();
            } else {
                handOver();
            }
        } catch (RuntimeException e) {
            failure = e;
            release();
        }
    }

    /** On the unit's thread: the task closed under the replay (it moved, or failed); the reader gets an error. */
    public void abandon(String why) {
        if (core != null) {
            failure = new IllegalStateException(why);
            release();
        }
    }

    private void release() {
        try {
            if (!canceled) {
                handOver(); // the rows before the end, or before a failure
            }
            core.close();
            store.close();
        } finally {
            core = null;
            store = null;
            ScratchDeleter.deleteLater(dir);
            finished = true;
            onAvailable.run();
        }
    }

    /** The reader's callback for "a row (or the end) is there"; it may run on any thread. */
    public void onAvailable(Runnable callback) {
        this.onAvailable = callback;
    }

    /**
     * The next row (the event's columns, then the metric's values), or null when none is waiting now.
     *
     * @throws IllegalStateException when the replay failed
     */
    public Object[] poll() {
        if (taken == takingSize) {
            Object[][] next = batches.poll();
            if (next != null) {
                waiting.addAndGet(-next.length);
                taking = next;
                takingSize = next.length;
                taken = 0;
            }
        }
        if (taken < takingSize) {
            Object[] row = taking[taken];
            taking[taken++] = null;
            return row;
        }
        Throwable f = failure;
        if (f != null && finished) {
            throw new IllegalStateException("the replay failed: " + f.getMessage(), f);
        }
        return null;
    }

    /** True once every row was produced and taken. */
    public boolean ended() {
        return finished && failure == null && batches.isEmpty() && taken == takingSize;
    }

    /** From any thread: stop early (the unit releases the replay at its next step). */
    public void cancel() {
        canceled = true;
    }

    /** Whether the reader is behind (the replay waits for it). */
    public boolean paused() {
        return waiting.get() >= CAPACITY;
    }

    /** On the unit's thread: the oldest event time it still has to read from the task (retention keeps it). */
    long keepFrom() {
        return core == null ? Long.MAX_VALUE : core.keepFrom();
    }

    /** On the unit's thread: whether it is over (released). */
    boolean over() {
        return core == null;
    }

    /** Events replayed so far (approximate while it runs). */
    public long applied() {
        MetricBackfill c = core;
        return c == null ? 0 : c.applied();
    }
}
