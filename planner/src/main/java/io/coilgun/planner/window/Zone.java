package io.coilgun.planner.window;

import java.util.Arrays;

/**
 * One zone of a metric ({@link WindowMetric}'s head zone or tail zone) in memory: the events an iterator passed
 * within the last lateness, each with its group and its aggregations' arguments, in the order passed.
 *
 * <p>A zone is a function of the reservoir and the stream time (the events with {@code S - lag - L < t <= S - lag}
 * the metric counts), so it is never written to the state store: a task that opens rebuilds it by scanning that
 * span of its reservoir. It is read only for a group whose clock is behind the stream time.
 *
 * <p>A ring of entries with a hash index: each entry links to the previous entry of its bucket, so the entries of a
 * group are found by walking one short chain, newest first. Entries leave from the oldest end ({@link #expire});
 * positions only grow, so a link to a position that left is recognised as the chain's end. Each entry's group key
 * and encoded arguments are copied into a ring of bytes beside it: no allocation per entry. Both rings double when
 * full. Single-threaded, like the task plan.
 */
final class Zone {
    /** Receives the entries {@link #forEach} finds: the arguments are in {@code bytes} from {@code argumentsAt}. */
    @FunctionalInterface
    interface Visitor {
        void accept(long time, long seq, byte[] bytes, int argumentsAt);
    }

    private long[] times;
    private long[] seqs;
    private long[] hashes;
    /** Per entry, where its key and then its arguments start in {@link #bytes} (a position: see {@link #byteAt}). */
    private long[] starts;
    private int[] keyLengths;
    private int[] argLengths;
    /** Per entry, the position of the previous entry of its bucket (or -1). */
    private long[] previous;
    /** Per bucket, the position of its newest entry (or -1). */
    private long[] newest;
    private int mask;
    /** The position of the oldest entry held; positions before it have left. */
    private long first;
    /** The position the next entry takes. */
    private long end;
    /** The entries' bytes: an entry's key and arguments are contiguous, never split at the ring's end. */
    private byte[] bytes;
    /** The byte position the next entry's bytes take (positions only grow; {@code & (bytes.length - 1)} indexes). */
    private long byteEnd;

    Zone() {
        allocate(256);
        bytes = new byte[4096];
    }

    int size() {
        return (int) (end - first);
    }

    /**
     * Adds an event of the group with key {@code group[0 .. groupLength)} (its {@link KnownGroups#hash}) and the
     * encoded arguments {@code args[0 .. argsLength)}; both are copied.
     */
    void add(long time, long seq, byte[] group, int groupLength, long hash, byte[] args, int argsLength) {
        if (end - first > mask) {
            resize(2 * (mask + 1), bytes.length);
        }
        int need = groupLength + argsLength;
        long start = placeBytes(need);
        if (start < 0) {
            resize(mask + 1, Math.max(2 * bytes.length, Integer.highestOneBit(need) * 4));
            start = placeBytes(need);
        }
        int at = byteAt(start);
        System.arraycopy(group, 0, bytes, at, groupLength);
        System.arraycopy(args, 0, bytes, at + groupLength, argsLength);
        byteEnd = start + need;
        link(end, time, seq, hash, start, groupLength, argsLength);
        end++;
    }

    /** Where {@code need} bytes go after the newest entry's (skipping the ring's end), or -1 when they do not fit. */
    private long placeBytes(int need) {
        long start = byteEnd;
        int capacity = bytes.length;
        if (byteAt(start) + need > capacity) {
            start += capacity - byteAt(start); // the rest of the ring stays unused: an entry is never split
        }
        long oldest = first < end ? starts[(int) first & mask] : start;
        return start + need - oldest <= capacity ? start : -1;
    }

    private int byteAt(long position) {
        return (int) position & (bytes.length - 1);
    }

    /** Drops the oldest entries while their time is at or below {@code upTo} (an entry behind a newer one waits). */
    void expire(long upTo) {
        while (first < end) {
            int s = (int) first & mask;
            if (times[s] > upTo) {
                return;
            }
            first++;
        }
    }

    /**
     * Passes the entries of the group with key {@code group[0 .. groupLength)} with {@code after < t <= upTo} to
     * {@code visitor}, newest first.
     */
    void forEach(byte[] group, int groupLength, long hash, long after, long upTo, Visitor visitor) {
        for (long p = newest[bucket(hash)]; p >= first; p = previous[(int) p & mask]) {
            int s = (int) p & mask;
            long t = times[s];
            if (hashes[s] == hash && t > after && t <= upTo && keyLengths[s] == groupLength) {
                int at = byteAt(starts[s]);
                if (Arrays.equals(bytes, at, at + groupLength, group, 0, groupLength)) {
                    visitor.accept(t, seqs[s], bytes, at + groupLength);
                }
            }
        }
    }

    private void link(long position, long time, long seq, long hash, long start, int keyLength, int argLength) {
        int s = (int) position & mask;
        times[s] = time;
        seqs[s] = seq;
        hashes[s] = hash;
        starts[s] = start;
        keyLengths[s] = keyLength;
        argLengths[s] = argLength;
        int b = bucket(hash);
        previous[s] = newest[b];
        newest[b] = position;
    }

    private int bucket(long hash) {
        return (int) (hash ^ (hash >>> 32)) & mask;
    }

    private void allocate(int capacity) {
        times = new long[capacity];
        seqs = new long[capacity];
        hashes = new long[capacity];
        starts = new long[capacity];
        keyLengths = new int[capacity];
        argLengths = new int[capacity];
        previous = new long[capacity];
        newest = new long[capacity];
        Arrays.fill(newest, -1);
        mask = capacity - 1;
    }

    /** Moves the live entries into rings of {@code capacity} entries and {@code byteCapacity} bytes (powers of 2). */
    private void resize(int capacity, int byteCapacity) {
        long[] oldTimes = times;
        long[] oldSeqs = seqs;
        long[] oldHashes = hashes;
        long[] oldStarts = starts;
        int[] oldKeyLengths = keyLengths;
        int[] oldArgLengths = argLengths;
        byte[] oldBytes = bytes;
        int oldMask = mask;
        allocate(capacity);
        bytes = new byte[byteCapacity];
        long at = 0;
        for (long p = first; p < end; p++) {
            int s = (int) p & oldMask;
            int length = oldKeyLengths[s] + oldArgLengths[s];
            System.arraycopy(oldBytes, (int) oldStarts[s] & (oldBytes.length - 1), bytes, (int) at, length);
            link(p, oldTimes[s], oldSeqs[s], oldHashes[s], at, oldKeyLengths[s], oldArgLengths[s]);
            at += length;
        }
        byteEnd = at;
    }
}
