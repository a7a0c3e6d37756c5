package io.coilgun.storage.reservoir;

/**
 * A sealed chunk, decoded: its events in key order {@code (time, seq)}, columns of primitives plus one byte array
 * holding every payload, so reading an event allocates nothing. Immutable once built.
 */
public final class Chunk {
    final long no;
    final long[] times;
    final long[] seqs;
    final int[] schemas;
    /** Payload i is {@code data[starts[i] .. starts[i + 1])}. */
    final int[] starts;
    final byte[] data;

    Chunk(long no, long[] times, long[] seqs, int[] schemas, int[] starts, byte[] data) {
        this.no = no;
        this.times = times;
        this.seqs = seqs;
        this.schemas = schemas;
        this.starts = starts;
        this.data = data;
    }

    public long no() {
        return no;
    }

    public int count() {
        return times.length;
    }

    public long firstTime() {
        return times[0];
    }

    public long lastTime() {
        return times[times.length - 1];
    }

    public long lastSeq() {
        return seqs[seqs.length - 1];
    }

    long minSeq() {
        long m = Long.MAX_VALUE;
        for (long s : seqs) {
            m = Math.min(m, s);
        }
        return m;
    }

    long maxSeq() {
        long m = Long.MIN_VALUE;
        for (long s : seqs) {
            m = Math.max(m, s);
        }
        return m;
    }

    int maxSchema() {
        int m = 0;
        for (int s : schemas) {
            m = Math.max(m, s);
        }
        return m;
    }

    /** Bytes this chunk holds on the heap (approximately): what the cache counts. */
    long heapBytes() {
        return 64L + times.length * (8L + 8 + 4 + 4) + data.length;
    }

    /** Raw (uncompressed) size of the events: what the chunk target size counts. */
    int rawBytes() {
        return data.length + times.length * Keys.EVENT_OVERHEAD;
    }

    /** Index of the first event whose key is greater than {@code (time, seq)}, or {@link #count()}. */
    int firstAfter(long time, long seq) {
        int lo = 0;
        int hi = times.length;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (Keys.compare(times[mid], seqs[mid], time, seq) <= 0) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }
}
