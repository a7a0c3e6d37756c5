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
 * positions only grow, so a link to a position that left is recognised as the chain's end. No allocation per entry
 * beyond the arguments the caller passes in; the ring doubles when full. Single-threaded, like the task plan.
 */
final class Zone {
    /** Receives the entries {@link #forEach} finds. */
    @FunctionalInterface
    interface Visitor {
        void accept(long time, long seq, byte[] arguments);
    }

    private long[] times;
    private long[] seqs;
    private long[] hashes;
    private byte[][] groups;
    private byte[][] arguments;
    /** Per entry, the position of the previous entry of its bucket (or -1). */
    private long[] previous;
    /** Per bucket, the position of its newest entry (or -1). */
    private long[] newest;
    private int mask;
    /** The position of the oldest entry held; positions before it have left. */
    private long first;
    /** The position the next entry takes. */
    private long end;

    Zone() {
        allocate(256);
    }

    int size() {
        return (int) (end - first);
    }

    /** Adds an event of {@code group} (its {@link KnownGroups#hash}); the zone keeps the references. */
    void add(long time, long seq, byte[] group, long hash, byte[] args) {
        if (end - first > mask) {
            resize(2 * (mask + 1));
        }
        link(end, time, seq, group, hash, args);
        end++;
    }

    /** Drops the oldest entries while their time is at or below {@code upTo} (an entry behind a newer one waits). */
    void expire(long upTo) {
        while (first < end) {
            int s = (int) first & mask;
            if (times[s] > upTo) {
                return;
            }
            groups[s] = null;
            arguments[s] = null;
            first++;
        }
    }

    /** Passes the entries of {@code group} with {@code after < t <= upTo} to {@code visitor}, newest first. */
    void forEach(byte[] group, long hash, long after, long upTo, Visitor visitor) {
        for (long p = newest[bucket(hash)]; p >= first; p = previous[(int) p & mask]) {
            int s = (int) p & mask;
            long t = times[s];
            if (hashes[s] == hash && t > after && t <= upTo && Arrays.equals(groups[s], group)) {
                visitor.accept(t, seqs[s], arguments[s]);
            }
        }
    }

    private void link(long position, long time, long seq, byte[] group, long hash, byte[] args) {
        int s = (int) position & mask;
        times[s] = time;
        seqs[s] = seq;
        hashes[s] = hash;
        groups[s] = group;
        arguments[s] = args;
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
        groups = new byte[capacity][];
        arguments = new byte[capacity][];
        previous = new long[capacity];
        newest = new long[capacity];
        Arrays.fill(newest, -1);
        mask = capacity - 1;
    }

    private void resize(int capacity) {
        long[] oldTimes = times;
        long[] oldSeqs = seqs;
        long[] oldHashes = hashes;
        byte[][] oldGroups = groups;
        byte[][] oldArguments = arguments;
        int oldMask = mask;
        allocate(capacity);
        for (long p = first; p < end; p++) {
            int s = (int) p & oldMask;
            link(p, oldTimes[s], oldSeqs[s], oldGroups[s], oldHashes[s], oldArguments[s]);
        }
    }
}
