package io.coilgun.storage.reservoir;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * An iterator over a reservoir at a fixed lag behind the stream time: after {@link Reservoir#advance()}, every
 * event with {@code t <= S - lag} has been passed to each subscriber exactly once (subscribers ignore events with
 * a seq below their own {@code minSeq}, so a window created on a live stream starts empty). Windows whose ends
 * are aligned (same lag) share one iterator: one read, many subscribers.
 *
 * <p>Events come in key order, except one inserted behind the iterator (possible only when the lag is below the
 * stream's lateness), which is passed at the next advance. The iterator holds the chunk it is in; entering a chunk
 * asks the reservoir to load the next one ahead. Its position is a function of {@code S}, so it needs no state of
 * its own in checkpoints.
 */
public final class WindowIterator {
    private final Reservoir reservoir;
    private final long lag;
    private final List<Subscription> subscribers = new ArrayList<>(2);
    private final ArrayDeque<Missed> missed = new ArrayDeque<>();
    private long horizon;
    /** The key of the last event passed by walking: every event up to it has been passed. */
    private long cursorTime;
    private long cursorSeq;
    private boolean located;
    private Chunk chunk;
    private int index;
    private boolean inOpen;
    private long seenEpoch;

    WindowIterator(Reservoir reservoir, long lag, long horizon) {
        this.reservoir = reservoir;
        this.lag = lag;
        this.horizon = horizon;
        this.cursorTime = horizon;
        this.cursorSeq = Long.MAX_VALUE;
    }

    public long lag() {
        return lag;
    }

    public long horizon() {
        return horizon;
    }

    /** Passes events with {@code seq >= minSeq} to {@code handler} from now on. */
    public Subscription subscribe(long minSeq, EventHandler handler) {
        return subscribe(minSeq, Long.MAX_VALUE, handler);
    }

    /**
     * Passes events with {@code seq >= minSeq} or {@code t >= countedFrom} to {@code handler} from now on (a metric
     * filled by a backfill from {@code countedFrom}, live from {@code minSeq}).
     */
    public Subscription subscribe(long minSeq, long countedFrom, EventHandler handler) {
        Subscription s = new Subscription(this, minSeq, countedFrom, handler);
        subscribers.add(s);
        return s;
    }

    void unsubscribe(Subscription s) {
        subscribers.remove(s);
    }

    boolean hasSubscribers() {
        return !subscribers.isEmpty();
    }

    /** Called by the reservoir for an event inserted with a key at or below this iterator's cursor. */
    void noteInserted(long time, long seq, int schema, byte[] payload) {
        if (Keys.compare(time, seq, cursorTime, cursorSeq) < 0) {
            missed.add(new Missed(time, seq, schema, payload));
        }
    }

    /** Moves the horizon to {@code newHorizon} (never back) and passes every event that became due. */
    void advanceTo(long newHorizon) {
        if (newHorizon > horizon) {
            horizon = newHorizon;
        }
        while (!missed.isEmpty()) {
            Missed m = missed.poll();
            deliver(m.seq, m.time, m.schema, m.payload, 0, m.payload.length);
        }
        OpenChunk open = reservoir.open();
        while (true) {
            if (!located || (inOpen && seenEpoch != reservoir.epoch())) {
                locate();
            }
            if (!inOpen) {
                if (index < chunk.count()) {
                    long t = chunk.times[index];
                    if (t > horizon) {
                        return;
                    }
                    long seq = chunk.seqs[index];
                    if (Keys.compare(t, seq, cursorTime, cursorSeq) <= 0) {
                        index++; // behind the cursor: passed already, as a missed event
                        continue;
                    }
                    int start = chunk.starts[index];
                    deliver(seq, t, chunk.schemas[index], chunk.data, start, chunk.starts[index + 1] - start);
                    cursorTime = t;
                    cursorSeq = seq;
                    index++;
                    continue;
                }
                long next = chunk.no + 1;
                if (next < reservoir.nextChunkNo()) {
                    enter(next);
                } else {
                    inOpen = true;
                    index = open.firstAfter(cursorTime, cursorSeq);
                    seenEpoch = reservoir.epoch();
                    chunk = null;
                }
                continue;
            }
            if (index >= open.size()) {
                return;
            }
            long t = open.time(index);
            if (t > horizon) {
                return;
            }
            long seq = open.seq(index);
            if (Keys.compare(t, seq, cursorTime, cursorSeq) <= 0) {
                index++; // behind the cursor: passed already, as a missed event
                continue;
            }
            byte[] p = open.payload(index);
            deliver(seq, t, open.schema(index), p, 0, p.length);
            cursorTime = t;
            cursorSeq = seq;
            index++;
        }
    }

    /** Finds the first event after the cursor: in a sealed chunk, or in the open chunk. */
    private void locate() {
        located = true;
        long no = reservoir.firstChunkAfter(cursorTime, cursorSeq);
        if (no >= 0) {
            enter(no);
            index = chunk.firstAfter(cursorTime, cursorSeq);
        } else {
            inOpen = true;
            chunk = null;
            index = reservoir.open().firstAfter(cursorTime, cursorSeq);
            seenEpoch = reservoir.epoch();
        }
    }

    private void enter(long no) {
        chunk = reservoir.chunk(no);
        index = 0;
        inOpen = false;
        reservoir.prefetch(no + 1);
    }

    private void deliver(long seq, long time, int schema, byte[] data, int off, int len) {
        for (int i = 0; i < subscribers.size(); i++) {
            Subscription s = subscribers.get(i);
            if (s.counts(time, seq)) {
                s.handler().passed(seq, time, schema, data, off, len);
            }
        }
    }

    /** Releases the chunk held (when the reservoir drops chunks, or the iterator ends). */
    void release() {
        if (!inOpen) {
            located = false;
            chunk = null;
        }
    }

    private record Missed(long time, long seq, int schema, byte[] payload) {
    }
}
