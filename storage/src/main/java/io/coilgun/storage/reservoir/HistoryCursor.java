package io.coilgun.storage.reservoir;

/**
 * Reads a reservoir's events with {@code t >= fromTime}, in key order {@code (t, seq)}, one sealed chunk per
 * {@link #step}, then the open chunk as it is at the last step: what a backfill or a replay reads, in slices, on the
 * owner's thread while the owner keeps appending. Events appended after the cursor passed their place are not read
 * (the reader gets those as they arrive).
 *
 * <p>A reader that wants the events in arrival (seq) order asks {@link #minUnreadSeq()}: no event held when the cursor
 * was made and not read yet has a lower seq. The owner must not let retention drop chunks from under the cursor.
 */
public final class HistoryCursor {
    private final Reservoir reservoir;
    private final long fromTime;
    /** The chunks sealed when the cursor was made: {@code [firstNo, endNo)}, and their suffix minimum of seqs. */
    private final long firstNo;
    private final long endNo;
    private final long[] suffixMinSeq;
    /** The lowest seq in the open chunk when the cursor was made (those events are sealed later, or still open). */
    private final long openMinSeq;
    private final long estimatedEvents;
    private long nextNo;
    private boolean done;
    private long position;

    HistoryCursor(Reservoir reservoir, long fromTime) {
        this.reservoir = reservoir;
        this.fromTime = fromTime;
        long start = reservoir.firstChunkAfter(keyBeforeTime(), keyBeforeSeq());
        this.endNo = reservoir.nextChunkNo();
        this.firstNo = start < 0 ? endNo : start;
        this.nextNo = firstNo;
        int n = (int) (endNo - firstNo);
        this.suffixMinSeq = new long[n + 1];
        suffixMinSeq[n] = Long.MAX_VALUE;
        long events = 0;
        for (int i = n - 1; i >= 0; i--) {
            suffixMinSeq[i] = Math.min(suffixMinSeq[i + 1], reservoir.minSeqOf(firstNo + i));
            events += reservoir.countOf(firstNo + i);
        }
        OpenChunk open = reservoir.open();
        long openMin = Long.MAX_VALUE;
        for (int i = 0; i < open.size(); i++) {
            openMin = Math.min(openMin, open.seq(i));
        }
        this.openMinSeq = openMin;
        this.estimatedEvents = events + open.size();
        this.position = fromTime;
    }

    /** The key just before the first event at {@code fromTime}: events after it are read. */
    private long keyBeforeTime() {
        return fromTime == Long.MIN_VALUE ? Long.MIN_VALUE : fromTime - 1;
    }

    private long keyBeforeSeq() {
        return fromTime == Long.MIN_VALUE ? Long.MIN_VALUE : Long.MAX_VALUE;
    }

    /**
     * Passes the events of the next chunk to {@code handler}; false once every event was read (the open chunk
     * last). The payload array is only valid during the call.
     */
    public boolean step(EventHandler handler) {
        if (done) {
            return false;
        }
        reservoir.collect();
        if (nextNo < reservoir.firstChunkNo()) {
            throw new IllegalStateException("the reservoir dropped chunk " + nextNo + " while it was being read");
        }
        if (nextNo < reservoir.nextChunkNo()) {
            Chunk chunk = reservoir.chunk(nextNo, false);
            reservoir.prefetch(nextNo + 1);
            reservoir.prefetch(nextNo + 2); // two ahead: a background reader that finds its next chunk not loaded yields
            int from = nextNo == firstNo ? chunk.firstAfter(keyBeforeTime(), keyBeforeSeq()) : 0;
            for (int i = from; i < chunk.count(); i++) {
                int start = chunk.starts[i];
                handler.passed(chunk.seqs[i], chunk.times[i], chunk.schemas[i], chunk.data, start,
                        chunk.starts[i + 1] - start);
            }
            position = chunk.lastTime();
            nextNo++;
            return true;
        }
        OpenChunk open = reservoir.open();
        for (int i = 0; i < open.size(); i++) {
            long t = open.time(i);
            if (t >= fromTime) {
                byte[] p = open.payload(i);
                handler.passed(open.seq(i), t, open.schema(i), p, 0, p.length);
                position = t;
            }
        }
        done = true;
        return false;
    }

    /**
     * Whether the next {@link #step} reads no chunk from the disk on the caller's thread and waits for no loader. When
     * it would, a loader is asked for the chunk and this says false: a background reader on a processor unit ends its
     * slice instead of keeping live events waiting behind a disk read (a later slice finds the chunk in memory).
     */
    public boolean ready() {
        if (done) {
            return true;
        }
        reservoir.collect();
        return nextNo >= reservoir.nextChunkNo() || nextNo < reservoir.firstChunkNo() || reservoir.chunkAtHand(nextNo);
    }

    /**
     * A lower bound of the seqs of the events that were held when the cursor was made and are not read yet
     * ({@link Long#MAX_VALUE} once all are read): they are in the sealed chunks not read yet, or were in the open
     * chunk then.
     */
    public long minUnreadSeq() {
        if (done) {
            return Long.MAX_VALUE;
        }
        return Math.min(nextNo < endNo ? suffixMinSeq[(int) (nextNo - firstNo)] : Long.MAX_VALUE, openMinSeq);
    }

    /** The time of the last event read: the reservoir must keep what is after it. */
    public long position() {
        return position;
    }

    /** About how many events the reservoir held from {@code fromTime} on when the cursor was made. */
    public long estimatedEvents() {
        return estimatedEvents;
    }

    public boolean done() {
        return done;
    }
}
