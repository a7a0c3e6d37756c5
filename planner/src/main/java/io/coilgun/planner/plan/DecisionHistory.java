package io.coilgun.planner.plan;

import io.coilgun.storage.reservoir.HistoryCursor;
import io.coilgun.storage.reservoir.Reservoir;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Comparator;
import java.util.PriorityQueue;

/**
 * One pass over a decider's reservoir in the order it decided (seq, the decision's offset): the events it accepted
 * after decision {@code afterSeq}, up to the newest it held when the pass began, each with its final time. What fills
 * a partitioner added to the stream ({@code ALTER STREAM … ADD PARTITION BY}), in slices on the decider's thread.
 *
 * <p>The reservoir is in key order {@code (t, seq)}; an accepted event lies at most one lateness from its place in
 * seq order, so events read ahead of their turn wait in a heap until no unread one has a lower seq (as
 * {@link MetricBackfill} does).
 */
public final class DecisionHistory {
    /** Takes the decided events in seq order; {@code payload} is the event as accepted. */
    @FunctionalInterface
    public interface Sink {
        void decided(long seq, long time, byte[] payload);
    }

    private record Read(long seq, long time, byte[] payload) {
    }

    private final HistoryCursor cursor;
    private final long afterSeq;
    private final long untilSeq;
    private final ArrayDeque<Read> inOrder = new ArrayDeque<>();
    private final PriorityQueue<Read> reorder = new PriorityQueue<>(Comparator.comparingLong(Read::seq));

    /**
     * @param fromTime no event decided after {@code afterSeq} is older than this (the time of decision {@code
     *     afterSeq} minus the lateness; {@link Long#MIN_VALUE} from the beginning)
     */
    DecisionHistory(Reservoir reservoir, long afterSeq, long fromTime) {
        this.afterSeq = afterSeq;
        this.untilSeq = reservoir.lastSeq();
        this.cursor = reservoir.history(fromTime);
    }

    /** The newest decision this pass reads up to (the reservoir's newest when it began). */
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
     * Passes events to {@code sink} in seq order until {@code deadlineNanos} (System.nanoTime) or the end of the pass;
     * true at the end. Ends early, false, rather than read a chunk from disk on the caller's thread.
     */
    public boolean step(long deadlineNanos, Sink sink) {
        do {
            long unread = cursor.done() ? Long.MAX_VALUE : cursor.minUnreadSeq();
            Read next = nextRead();
            if (next != null && next.seq() < unread) {
                Read r = next == inOrder.peekFirst() ? inOrder.pollFirst() : reorder.poll();
                sink.decided(r.seq(), r.time(), r.payload());
            } else if (!cursor.done()) {
                if (!cursor.ready()) {
                    return false;
                }
                cursor.step(this::read);
            } else {
                return true;
            }
        } while (System.nanoTime() - deadlineNanos < 0);
        return false;
    }

    private void read(long seq, long time, int schema, byte[] data, int off, int len) {
        if (seq > afterSeq && seq <= untilSeq) {
            Read r = new Read(seq, time, Arrays.copyOfRange(data, off, off + len));
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
