package io.coilgun.planner.window;

import io.coilgun.planner.model.AggregationKind;
import java.nio.ByteBuffer;
import java.util.Iterator;
import java.util.Map;
import java.util.TreeMap;

/**
 * One group's {@link Candidates} for the MIN, MAX, LAST and PREV aggregations of a {@link WindowMetric}: per
 * bucket (tumbling windows; one bucket otherwise) and per aggregation, the <em>settled</em> candidates (events at or
 * below {@code S - d - L}, or every arrival when there is no delay) and the <em>head</em> candidates (events the head
 * passed that have not settled yet).
 *
 * <pre>
 * int bucket count, then per bucket: long bucket, per aggregation: settled, head (see Candidates#write)
 * </pre>
 */
final class CandidateState {
    private final AggregationKind[] kinds;
    private final TreeMap<Long, Candidates[][]> buckets = new TreeMap<>();

    private CandidateState(AggregationKind[] kinds) {
        this.kinds = kinds;
    }

    static CandidateState read(AggregationKind[] kinds, byte[] bytes) {
        CandidateState s = new CandidateState(kinds);
        if (bytes == null) {
            return s;
        }
        ByteBuffer b = ByteBuffer.wrap(bytes);
        int n = b.getInt();
        for (int k = 0; k < n; k++) {
            long bucket = b.getLong();
            Candidates[][] c = new Candidates[kinds.length][];
            for (int i = 0; i < kinds.length; i++) {
                if (uses(kinds[i])) {
                    c[i] = new Candidates[] {Candidates.read(kinds[i], b), Candidates.read(kinds[i], b)};
                }
            }
            s.buckets.put(bucket, c);
        }
        return s;
    }

    private static boolean uses(AggregationKind k) {
        return k == AggregationKind.MIN || k == AggregationKind.MAX || k == AggregationKind.LAST
                || k == AggregationKind.PREV;
    }

    private Candidates[][] bucket(long bucket) {
        return buckets.computeIfAbsent(bucket, b -> {
            Candidates[][] c = new Candidates[kinds.length][];
            for (int i = 0; i < kinds.length; i++) {
                if (uses(kinds[i])) {
                    c[i] = new Candidates[] {new Candidates(kinds[i]), new Candidates(kinds[i])};
                }
            }
            return c;
        });
    }

    Candidates settled(int i, long bucket) {
        return bucket(bucket)[i][0];
    }

    Candidates head(int i, long bucket) {
        return bucket(bucket)[i][1];
    }

    /** Adds an event (its aggregation arguments {@code args}) to the head's or the settled candidates. */
    void insert(long bucket, boolean head, long time, long seq, Object[] args) {
        Candidates[][] c = bucket(bucket);
        for (int i = 0; i < kinds.length; i++) {
            if (c[i] != null) {
                c[i][head ? 1 : 0].insert(time, seq, args[i]);
            }
        }
    }

    void removeHead(long bucket, long time, long seq) {
        Candidates[][] c = bucket(bucket);
        for (Candidates[] pair : c) {
            if (pair != null) {
                pair[1].remove(time, seq);
            }
        }
    }

    void removeBoth(long bucket, long time, long seq) {
        Candidates[][] c = bucket(bucket);
        for (Candidates[] pair : c) {
            if (pair != null) {
                pair[0].remove(time, seq);
                pair[1].remove(time, seq);
            }
        }
    }

    void dropBucketsBefore(long oldest) {
        for (Iterator<Map.Entry<Long, Candidates[][]>> it = buckets.entrySet().iterator(); it.hasNext(); ) {
            if (it.next().getKey() < oldest) {
                it.remove();
            }
        }
    }

    byte[] encode() {
        int size = 4;
        for (Candidates[][] c : buckets.values()) {
            size += 8;
            for (Candidates[] pair : c) {
                if (pair != null) {
                    size += pair[0].size() + pair[1].size();
                }
            }
        }
        ByteBuffer b = ByteBuffer.allocate(size);
        b.putInt(buckets.size());
        for (Map.Entry<Long, Candidates[][]> e : buckets.entrySet()) {
            b.putLong(e.getKey());
            for (Candidates[] pair : e.getValue()) {
                if (pair != null) {
                    pair[0].write(b);
                    pair[1].write(b);
                }
            }
        }
        return b.array();
    }
}
