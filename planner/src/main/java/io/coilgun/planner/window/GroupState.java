package io.coilgun.planner.window;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;

/**
 * The layout of one group's state row of a {@link WindowMetric} in the <em>wide</em> form ({@link RowLayout}): its
 * clock and its aggregates in full, one per bucket (tumbling windows keep the few buckets a clock within the lateness
 * can reach; other windows the single bucket 0). A state that does not fit the compact slot of its
 * {@link MetricSlots} is held in such a row, updated in place by the aggregators; releases before group arenas
 * stored every state in this form.
 *
 * <pre>
 * long clock, int bucket count, then per bucket: long bucket, the aggregators' bytes
 * </pre>
 */
final class GroupState {
    static final int HEADER = 12;

    private GroupState() {
    }

    /** A row with no event yet: no clock, and bucket 0 empty when {@code withBucketZero}. */
    static ByteBuffer empty(int aggBytes, boolean withBucketZero) {
        ByteBuffer row = ByteBuffer.allocate(HEADER + (withBucketZero ? 8 + aggBytes : 0));
        row.putLong(0, Long.MIN_VALUE).putInt(8, withBucketZero ? 1 : 0);
        return row;
    }

    static long clock(ByteBuffer row) {
        return row.getLong(0);
    }

    static void clock(ByteBuffer row, long clock) {
        row.putLong(0, clock);
    }

    static int buckets(ByteBuffer row) {
        return row.getInt(8);
    }

    static long bucketId(ByteBuffer row, int i, int aggBytes) {
        return row.getLong(HEADER + i * (8 + aggBytes));
    }

    /** Where the aggregates of {@code bucket} start in the row, or -1 when it has none. */
    static int aggregatesOf(ByteBuffer row, long bucket, int aggBytes) {
        int n = row.getInt(8);
        for (int i = 0, at = HEADER; i < n; i++, at += 8 + aggBytes) {
            if (row.getLong(at) == bucket) {
                return at + 8;
            }
        }
        return -1;
    }

    /** The row with an empty {@code bucket} added at its end (a new array). */
    static ByteBuffer withBucket(ByteBuffer row, long bucket, int aggBytes) {
        int n = row.getInt(8);
        ByteBuffer bigger = ByteBuffer.allocate(row.capacity() + 8 + aggBytes);
        System.arraycopy(row.array(), 0, bigger.array(), 0, row.capacity());
        bigger.putInt(8, n + 1).putLong(row.capacity(), bucket);
        return bigger;
    }

    /** A copy of the aggregates of {@code bucket} (empty if absent), to apply corrections to, from offset 0. */
    static ByteBuffer copyOf(ByteBuffer row, long bucket, int aggBytes, ByteBuffer into) {
        int at = aggregatesOf(row, bucket, aggBytes);
        if (at < 0) {
            Arrays.fill(into.array(), 0, aggBytes, (byte) 0);
        } else {
            System.arraycopy(row.array(), at, into.array(), 0, aggBytes);
        }
        return into;
    }

    /**
     * The row without the buckets before {@code oldest}, which are added to {@code dropped}; the same row when there
     * are none.
     */
    static ByteBuffer dropBucketsBefore(ByteBuffer row, long oldest, int aggBytes, List<Long> dropped) {
        int n = row.getInt(8);
        int keep = 0;
        for (int i = 0; i < n; i++) {
            if (bucketId(row, i, aggBytes) >= oldest) {
                keep++;
            }
        }
        if (keep == n) {
            return row;
        }
        ByteBuffer smaller = ByteBuffer.allocate(HEADER + keep * (8 + aggBytes));
        smaller.putLong(0, row.getLong(0)).putInt(8, keep);
        int to = HEADER;
        for (int i = 0; i < n; i++) {
            long b = bucketId(row, i, aggBytes);
            if (b >= oldest) {
                System.arraycopy(row.array(), HEADER + i * (8 + aggBytes), smaller.array(), to, 8 + aggBytes);
                to += 8 + aggBytes;
            } else {
                dropped.add(b);
            }
        }
        return smaller;
    }
}
