package io.coilgun.planner.window;

import io.coilgun.storage.reservoir.EventReservoir;
import io.coilgun.storage.reservoir.ReservoirReader;
import java.nio.ByteBuffer;
import java.util.Comparator;
import java.util.PriorityQueue;

/**
 * A window tail: it passes every event of the reservoir exactly once, when the event's time falls at or
 * below the tail's horizon ({@code t <= horizon}), which only grows.
 *
 * <p>The reservoir is in arrival order, and events may arrive out of order within the stream's lateness.
 * Every record carries the stream time {@code S} at its arrival, and no event is accepted older than
 * {@code S - lateness}, so once a record's {@code S - lateness} is above the horizon, neither it nor any later
 * record can be due. The tail reads up to there and holds the read-but-not-yet-due events in a small queue
 * ordered by time: its size is bounded by the events of one lateness span, never by the window length.
 *
 * <p>State saved in checkpoints: horizon, position of the oldest held record (where a restore re-reads from)
 * and read position; a restore re-reads that span and holds again the records above the horizon.
 */
public final class ReservoirTail {
    private static final Comparator<Held> ORDER =
            Comparator.comparingLong(Held::eventTime).thenComparingLong(Held::seq);

    private final ReservoirReader reader;
    private final long lateness;
    private final PriorityQueue<Held> held = new PriorityQueue<>(ORDER);
    private long horizon;

    private ReservoirTail(ReservoirReader reader, long lateness, long horizon) {
        this.reader = reader;
        this.lateness = lateness;
        this.horizon = horizon;
    }

    /** A tail that starts at the reservoir's end: events already there are never passed. */
    public static ReservoirTail atEnd(EventReservoir reservoir, long lateness, long horizon) {
        return new ReservoirTail(reservoir.reader(reservoir.size()), lateness, horizon);
    }

    public static ReservoirTail restore(EventReservoir reservoir, long lateness, byte[] saved) {
        ByteBuffer b = ByteBuffer.wrap(saved);
        long horizon = b.getLong();
        long low = b.getLong();
        long read = b.getLong();
        ReservoirTail tail = new ReservoirTail(reservoir.reader(low), lateness, horizon);
        while (tail.reader.position() < read && tail.reader.next()) {
            if (tail.reader.eventTime() > horizon) {
                tail.hold();
            }
        }
        return tail;
    }

    public byte[] save() {
        long low = reader.position();
        for (Held h : held) {
            low = Math.min(low, h.position());
        }
        return ByteBuffer.allocate(24).putLong(horizon).putLong(low).putLong(reader.position()).array();
    }

    public long horizon() {
        return horizon;
    }

    /** Moves the horizon up to {@code newHorizon} and passes every event that became due. */
    public void advance(long newHorizon, PassedEventHandler handler) {
        if (newHorizon > horizon) {
            horizon = newHorizon;
        }
        while (!held.isEmpty() && held.peek().eventTime() <= horizon) {
            Held h = held.poll();
            handler.passed(h.seq(), h.eventTime(), h.payload());
        }
        while (reader.hasNext() && reader.peekStreamTime() - lateness <= horizon) {
            reader.next();
            if (reader.eventTime() <= horizon) {
                handler.passed(reader.seq(), reader.eventTime(), reader.payload());
            } else {
                hold();
            }
        }
    }

    private void hold() {
        held.add(new Held(reader.recordPosition(), reader.seq(), reader.eventTime(), reader.payload()));
    }

    /** Number of events read but not yet due (bounded by one lateness span of events). */
    public int heldCount() {
        return held.size();
    }

    private record Held(long position, long seq, long eventTime, byte[] payload) {
    }

    /** Receives each event as the tail passes it. */
    @FunctionalInterface
    public interface PassedEventHandler {
        void passed(long seq, long eventTime, byte[] payload);
    }
}
