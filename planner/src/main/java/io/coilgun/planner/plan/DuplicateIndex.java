package io.coilgun.planner.plan;

import io.coilgun.planner.event.GroupKeys;
import io.coilgun.planner.window.SharedOperators;
import io.coilgun.storage.reservoir.Reservoir;
import io.coilgun.storage.reservoir.Subscription;
import io.coilgun.storage.state.StateStore;
import java.nio.ByteBuffer;

/**
 * The ids of the events a task accepted within its stream's <em>dedup horizon</em> {@code H}: an event whose id is
 * here is a duplicate, whatever its event time and the stream's late-events policy (checked before lateness, so a
 * client retrying long after its first attempt is answered "duplicate", never "late", and never counted twice).
 *
 * <p>Kept in RocksDB, not in heap: column family {@value #FAMILY}, key the encoded id, value the event time; the
 * family is not cached in the store's heap cache, so heap does not grow with the number of ids (RocksDB's bloom
 * filters answer "never seen" for a new id without reading data blocks). Writes go into the task's checkpoint batch
 * with the Kafka offset, so after a crash the index is exactly that of the checkpoint and the records replayed after
 * it find their ids again: redelivery never double-counts.
 *
 * <p>Expiry without a heap structure: a reservoir iterator at lag {@code H} passes every accepted event once its time
 * is {@code <= S - H} and removes its id (if the id's stored time is that event's: an id accepted again later stays).
 * So an id is here while its newest accepted event has {@code t > S - H}; the reservoir keeps at least {@code H} of
 * events for it (retention, {@link TaskPlan#checkpoint}).
 */
final class DuplicateIndex implements AutoCloseable {
    static final String FAMILY = "dedup";

    private final StateStore.Family ids;
    private final int idColumn;
    private final SharedOperators decoder;
    private final Subscription expiry;

    /**
     * @param decoder decodes the events the expiry iterator passes (shared with the metrics' iterators)
     */
    DuplicateIndex(StateStore store, Reservoir reservoir, long horizon, int idColumn, SharedOperators decoder) {
        this.ids = store.family(FAMILY, false);
        this.idColumn = idColumn;
        this.decoder = decoder;
        this.expiry = reservoir.iterator(horizon).subscribe(0, this::expired);
    }

    /** Whether an event with this id was accepted within the horizon. */
    boolean seen(Object id) {
        return id != null && ids.get(GroupKeys.encodeOne(id)) != null;
    }

    /** Records an accepted event (its time as the reservoir holds it). */
    void accepted(Object id, long time) {
        if (id != null) {
            ids.put(GroupKeys.encodeOne(id), ByteBuffer.allocate(8).putLong(time).array());
        }
    }

    /** The iterator at lag H passed an accepted event: its id leaves the horizon, unless accepted again since. */
    private void expired(long seq, long time, int schema, byte[] data, int off, int len) {
        Object id = decoder.passed(seq, data, off, len)[idColumn];
        if (id == null) {
            return;
        }
        byte[] key = GroupKeys.encodeOne(id);
        byte[] stored = ids.get(key);
        if (stored != null && ByteBuffer.wrap(stored).getLong() == time) {
            ids.delete(key);
        }
    }

    @Override
    public void close() {
        expiry.cancel();
    }
}
