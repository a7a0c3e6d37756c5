package io.coilgun.storage.reservoir;

import java.util.Arrays;

/**
 * The newest events of a reservoir, in memory and in key order: events arriving out of order (within the
 * lateness) are inserted where they belong. Its <em>final</em> prefix, the events with {@code t <= S - lateness},
 * can no longer be preceded by any new event, so sealed chunks are cut from it and never change.
 * Single-threaded (the task's processor thread).
 */
final class OpenChunk {
    private long[] times = new long[1024];
    private long[] seqs = new long[1024];
    private int[] schemas = new int[1024];
    private byte[][] payloads = new byte[1024][];
    private int size;
    private int finalCount;
    private long finalBytes;

    int size() {
        return size;
    }

    long time(int i) {
        return times[i];
    }

    long seq(int i) {
        return seqs[i];
    }

    int schema(int i) {
        return schemas[i];
    }

    byte[] payload(int i) {
        return payloads[i];
    }

    /** Inserts in key order and returns the index; the caller guarantees {@code time} is not below the final prefix. */
    int insert(long time, long seq, int schema, byte[] payload) {
        if (size == times.length) {
            int n = size * 2;
            times = Arrays.copyOf(times, n);
            seqs = Arrays.copyOf(seqs, n);
            schemas = Arrays.copyOf(schemas, n);
            payloads = Arrays.copyOf(payloads, n);
        }
        int at = size;
        while (at > finalCount && Keys.compare(times[at - 1], seqs[at - 1], time, seq) > 0) {
            at--;
        }
        if (at < size) {
            System.arraycopy(times, at, times, at + 1, size - at);
            System.arraycopy(seqs, at, seqs, at + 1, size - at);
            System.arraycopy(schemas, at, schemas, at + 1, size - at);
            System.arraycopy(payloads, at, payloads, at + 1, size - at);
        }
        times[at] = time;
        seqs[at] = seq;
        schemas[at] = schema;
        payloads[at] = payload;
        size++;
        return at;
    }

    /** Marks as final every event with {@code t <= finalTime}; returns the raw bytes of the final prefix. */
    long finalize(long finalTime) {
        while (finalCount < size && times[finalCount] <= finalTime) {
            finalBytes += payloads[finalCount].length + Keys.EVENT_OVERHEAD;
            finalCount++;
        }
        return finalBytes;
    }

    int finalCount() {
        return finalCount;
    }

    /** Removes the first {@code n} events (all final) and returns them as a chunk numbered {@code no}. */
    Chunk cut(int n, long no) {
        int bytes = 0;
        for (int i = 0; i < n; i++) {
            bytes += payloads[i].length;
        }
        byte[] data = new byte[bytes];
        int[] starts = new int[n + 1];
        int at = 0;
        for (int i = 0; i < n; i++) {
            starts[i] = at;
            System.arraycopy(payloads[i], 0, data, at, payloads[i].length);
            at += payloads[i].length;
            finalBytes -= payloads[i].length + Keys.EVENT_OVERHEAD;
        }
        starts[n] = at;
        Chunk chunk = new Chunk(no, Arrays.copyOf(times, n), Arrays.copyOf(seqs, n), Arrays.copyOf(schemas, n),
                starts, data);
        System.arraycopy(times, n, times, 0, size - n);
        System.arraycopy(seqs, n, seqs, 0, size - n);
        System.arraycopy(schemas, n, schemas, 0, size - n);
        System.arraycopy(payloads, n, payloads, 0, size - n);
        Arrays.fill(payloads, size - n, size, null);
        size -= n;
        finalCount -= n;
        return chunk;
    }

    /** The number of leading final events whose raw size reaches {@code targetBytes} (at least one). */
    int prefixOf(long targetBytes) {
        long bytes = 0;
        int n = 0;
        while (n < finalCount && bytes < targetBytes) {
            bytes += payloads[n].length + Keys.EVENT_OVERHEAD;
            n++;
        }
        return n;
    }

    /** Index of the first event whose key is greater than {@code (time, seq)}, or {@link #size()}. */
    int firstAfter(long time, long seq) {
        int lo = 0;
        int hi = size;
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

    /** Raw bytes held (payloads plus per-event overhead), for statistics. */
    long heapBytes() {
        long b = 0;
        for (int i = 0; i < size; i++) {
            b += payloads[i].length + Keys.EVENT_OVERHEAD + 16;
        }
        return b;
    }
}
