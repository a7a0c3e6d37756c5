package io.coilgun.planner.plan;

import io.coilgun.storage.reservoir.HistoryCursor;
import io.coilgun.storage.reservoir.Reservoir;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Comparator;
import java.util.PriorityQueue;

/**
 * One pass over a task's reservoir in the order the task accepted its events (seq, the Kafka offset; a decider's
 * order of decisions), up to the newest it held when the pass began: what a metric backfill applies and what fills a
 * partitioner added to a stream ({@code ALTER STREAM … ADD PARTITION BY}), in slices on the task's thread.
 *
 * <p>The reservoir is in key order {@code (t, seq)}; an accepted event lies at most one lateness from its place in
 * seq order, so events read ahead of their turn wait in a heap until no unread one has a lower seq. Almost all come in
 * increasing seq (a chunk holds them in the order accepted, but for late ones), so those skip the heap (a heap
 * operation per event was a tenth of a replay's unit time).
 */
public final class AcceptedHistory {
    /** Takes the events in seq order; {@code payload} is the event as accepted (its final time). */
    @FunctionalInterface
    public interface Sink {
        void accepted(long seq, long time, int schema, byte[] payload);
    }

    /** Which events of the reservoir the pass reads. */
    @FunctionalInterface
    interface Filter {
        boolean reads(long seq, long time);
    }

    private record Read(long seq, long time, int schema, byte[] payload) {
    }

    private final HistoryCursor cursor;
    private final long untilSeq;
    private final Filter filter;
    private final ArrayDeque<Read> inOrder = new ArrayDeque<>();
    private final PriorityQueue<Read> reorder = new PriorityQueue<>(Comparator.comparingLong(Read::seq));

    /** The events with {@code t >= fromTime} that {@code filter} reads, up to seq {@code untilSeq}. */
    AcceptedHistory(Reservoir reservoir, long fromTime, long untilSeq, Filter filter) {
        this.untilSeq = untilSeq;
        this.filter = filter;
        this.cursor = reservoir.history(fromTime);
    }

    /**
     * The decisions after {@code afterSeq} up to the newest the reservoir holds now.
     *
     * @param fromTime no event decided after {@code afterSeq} is older than this (the time of decision {@code
     *     afterSeq} minus the lateness; {@link Long#MIN_VALUE} from the beginning)
     */
    static AcceptedHistory after(Reservoir reservoir, long afterSeq, long fromTime) {
        return new AcceptedHistory(reservoir, fromTime, reservoir.lastSeq(), (seq, time) -> seq > afterSeq);
    }

    /** The newest event this pass reads up to (the reservoir's newest when it began). */
    public long untilSeq() {
        return untilSeq;
    }

    /** About how many events the reservoir held from the pass's start time on. */
    public long estimatedEvents() {
        return cursor.estimatedEvents();
    }

    /** The oldest event time the pass has still to read (retention keeps it). */
    public long keepFrom() {
        return cursor.done() ? Long.MAX_VALUE : cursor.position();
    }

    /**
     * Passes events to {@code sink} in seq order, one at a time, until {@code deadlineNanos} (System.nanoTime) or the
     * end of the pass; true at the end. Ends early, false, rather than read a chunk from disk on the caller's thread.
     */
    public boolean step(long deadlineNanos, Sink sink) {
        return step(deadlineNanos, () -> false, sink);
    }

    /** As {@link #step(long, Sink)}; also ends, false, once {@code pause} says so after an event. */
    boolean step(long deadlineNanos, java.util.function.BooleanSupplier pause, Sink sink) {
        do {
            long unread = cursor.done() ? Long.MAX_VALUE : cursor.minUnreadSeq();
            Read next = nextRead();
            if (next != null && next.seq() < unread) {
                Read r = next == inOrder.peekFirst() ? inOrder.pollFirst() : reorder.poll();
                sink.accepted(r.seq(), r.time(), r.schema(), r.payload());
            } else if (!cursor.done()) {
                if (!cursor.ready()) {
                    return false;
                }
                cursor.step(this::read);
            } else {
                return true;
            }
        } while (System.nanoTime() - deadlineNanos < 0 && !pause.getAsBoolean());
        return false;
    }

    private void read(long seq, long time, int schema, byte[] data, int off, int len) {
        if (seq <= untilSeq && filter.reads(seq, time)) {
            Read r = new Read(seq, time, schema, Arrays.copyOfRange(data, off, off + len));
            if (inOrder.isEmpty() || seq > inOrder.peekLast().seq()) {
                inOrder.addLast(r);
            } else {
                reorder.add(r);
            }
        }
    }

    private Read nextRead() {
        Read a = inOrder.peekFirst();
        Read b = reorder.peek();
        return a == null ? b : b == null || a.seq() < b.seq() ? a : b;
    }
}
