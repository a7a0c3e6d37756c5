package io.coilgun.planner.window;

import io.coilgun.storage.state.StateStore;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * One group's state of a {@link WindowMetric}: its clock and its aggregates, one per bucket (tumbling windows keep
 * the few buckets a clock within the lateness can reach; other windows have the single bucket 0).
 *
 * <pre>
 * long clock, int bucket count, then per bucket: long bucket, the aggregators' bytes
 * </pre>
 */
final class GroupState {
    final byte[] key;
    final int aggBytes;
    long clock = Long.MIN_VALUE;
    private final List<Long> buckets = new ArrayList<>(2);
    private final List<ByteBuffer> aggregates = new ArrayList<>(2);

    private GroupState(byte[] key, int aggBytes) {
        this.key = key;
        this.aggBytes = aggBytes;
    }

    /** The state of a group with no row yet. */
    static GroupState empty(byte[] key, int aggBytes) {
        return new GroupState(key, aggBytes);
    }

    static GroupState load(StateStore.Family store, byte[] key, int aggBytes) {
        GroupState s = new GroupState(key, aggBytes);
        byte[] bytes = store.get(key);
        if (bytes != null) {
            ByteBuffer b = ByteBuffer.wrap(bytes);
            s.clock = b.getLong();
            int n = b.getInt();
            for (int i = 0; i < n; i++) {
                s.buckets.add(b.getLong());
                byte[] agg = new byte[aggBytes];
                b.get(agg);
                s.aggregates.add(ByteBuffer.wrap(agg));
            }
        }
        return s;
    }

    /** The aggregates of {@code bucket}, created empty if absent. */
    ByteBuffer bucket(long bucket) {
        int i = buckets.indexOf(bucket);
        if (i >= 0) {
            return aggregates.get(i);
        }
        ByteBuffer fresh = ByteBuffer.allocate(aggBytes);
        buckets.add(bucket);
        aggregates.add(fresh);
        return fresh;
    }

    /** A copy of the aggregates of {@code bucket} (empty if absent), to apply corrections to. */
    ByteBuffer copyOf(long bucket) {
        int i = buckets.indexOf(bucket);
        return i < 0 ? ByteBuffer.allocate(aggBytes) : ByteBuffer.wrap(aggregates.get(i).array().clone());
    }

    /** Drops the buckets before {@code oldest}; returns them. */
    List<Long> dropBucketsBefore(long oldest) {
        List<Long> dropped = new ArrayList<>(0);
        for (int i = buckets.size() - 1; i >= 0; i--) {
            if (buckets.get(i) < oldest) {
                dropped.add(buckets.remove(i));
                aggregates.remove(i);
            }
        }
        return dropped;
    }

    byte[] encode() {
        ByteBuffer b = ByteBuffer.allocate(12 + buckets.size() * (8 + aggBytes));
        b.putLong(clock).putInt(buckets.size());
        for (int i = 0; i < buckets.size(); i++) {
            b.putLong(buckets.get(i)).put(aggregates.get(i).array());
        }
        return b.array();
    }
}
