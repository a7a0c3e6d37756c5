package io.coilgun.planner.plan;

import io.coilgun.planner.event.EventView;
import io.coilgun.planner.event.GroupKeys;
import io.coilgun.planner.window.IdSort;
import io.coilgun.planner.window.SharedOperators;
import io.coilgun.storage.reservoir.Reservoir;
import io.coilgun.storage.reservoir.Subscription;
import io.coilgun.storage.state.HeldRecords;
import io.coilgun.storage.state.StateStore;
import java.nio.ByteBuffer;
import java.util.Arrays;

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
 * <p>In front of it, {@link RecentIds}: a primitive multiset of the ids' hashes in the horizon, so a new id (the usual
 * event) costs no RocksDB read; and the writes since the last commit are kept here ({@link StateStore.Owner}) in a
 * byte arena with a hash index, written into the commit's batch, instead of a sorted map of the store's.
 *
 * <p>Expiry without a heap structure: a reservoir iterator at lag {@code H} passes every accepted event once its time
 * is {@code <= S - H} and removes its id (if the id's stored time is that event's: an id accepted again later stays).
 * So an id is here while its newest accepted event has {@code t > S - H}; the reservoir keeps at least {@code H} of
 * events for it (retention, {@link TaskPlan#checkpoint}).
 */
final class DuplicateIndex implements StateStore.Owner, AutoCloseable {
    static final String FAMILY = "dedup";
    /** How many ids {@link RecentIds} tracks before it gives up: {@code -Dcoilgun.dedupRecentIds}, 8 bytes each. */
    static final int MAX_RECENT = Integer.getInteger("coilgun.dedupRecentIds", 16_000_000);
    /**
     * How many rows a task that opens reads into {@link RecentIds} at most ({@code -Dcoilgun.dedupScanAtOpen}): a
     * bigger index is not read (opening a task stays fast); the ids it holds are then looked up in RocksDB until
     * they have all left the horizon.
     */
    static final int MAX_SCAN_AT_OPEN = Integer.getInteger("coilgun.dedupScanAtOpen", 500_000);
    private static final long DELETE = Long.MIN_VALUE;
    private static final long NONE = Long.MIN_VALUE;

    private final StateStore.Family ids;
    private final int idColumn;
    private final SharedOperators decoder;
    /** The id column, as {@link GroupKeys#encode(EventView, int[], byte[])} takes it. */
    private final int[] idColumns;
    private final Subscription expiry;
    private final Reservoir reservoir;
    private final long horizon;
    private final RecentIds recent = new RecentIds(MAX_RECENT);
    /**
     * The stream time when the task opened, if {@link RecentIds} does not hold every id of the index then (it was too
     * big to read at open); {@link #NONE} once those ids have all left the horizon, or when it held them all.
     */
    private long untrackedUpTo = NONE;
    /**
     * The writes not materialized yet, in order: key bytes, hash, the time written or {@link #DELETE}. Those before
     * {@link #committedEnd} are in changelog records (not yet rows a read of the store sees, so kept here until they
     * are, see {@link #materialized}); the others are the writes since the last commit.
     */
    private byte[] keys = new byte[1 << 12];
    private int keysEnd;
    private int[] keyAt = new int[256];
    private long[] hashes = new long[256];
    private long[] times = new long[256];
    private int pending;
    /** Where the writes of the commit under way start. */
    private int committedEnd;
    /** The changelog records holding the committed writes, oldest first, and where each one's writes end. */
    private final HeldRecords records = new HeldRecords();
    /** The pending writes in the order a commit writes them (reused). */
    private int[] order = new int[256];
    /**
     * Open addressing from hash to the pending write of the key + 1 (0: empty), for the writes before
     * {@link #indexed}: made only when a lookup needs it (a new id, the usual event, needs none).
     */
    private int[] pendingIndex = new int[512];
    private int indexed;
    private final byte[] value = new byte[8];
    /** The encoded id of the event at hand ({@link #encode}), its hash, and the id object it was encoded from. */
    private byte[] key = new byte[16];
    private int keyLength;
    private long keyHash;
    private Object encodedId;
    /** How many of the pending writes are deletes (none: a key {@link RecentIds} never saw has no pending write). */
    private int pendingDeletes;

    /**
     * @param decoder decodes the events the expiry iterator passes (shared with the metrics' iterators)
     */
    DuplicateIndex(StateStore store, Reservoir reservoir, long horizon, int idColumn, SharedOperators decoder) {
        this.ids = store.family(FAMILY, false);
        this.idColumn = idColumn;
        this.idColumns = new int[] {idColumn};
        this.decoder = decoder;
        this.reservoir = reservoir;
        this.horizon = horizon;
        ids.addOwner(this); // first: every committed row of the family is in it from here on
        int[] read = new int[1];
        ids.scanAll((k, v) -> {
            if (read[0]++ == MAX_SCAN_AT_OPEN) {
                untrackedUpTo = reservoir.streamTime();
                return false;
            }
            recent.add(GroupKeys.hash(k, 0, k.length), ByteBuffer.wrap(v).getLong());
            return !recent.saturated();
        });
        this.expiry = reservoir.iterator(horizon).subscribe(0, this::expired);
    }

    /** Whether an event with this id was accepted within the horizon. */
    boolean seen(Object id) {
        return id != null && seenEncoded(encode(id));
    }

    /** {@link #seen(Object)} of the id of an event read in place. */
    boolean seen(EventView event) {
        return !event.isNull(idColumn) && seenEncoded(encode(event));
    }

    /** {@link #seen(Object)} of the id just encoded into {@link #key} (hash {@code h}). */
    private boolean seenEncoded(long h) {
        if (!recent.mayContain(h) && !untrackedMayBeInHorizon()) {
            return false;
        }
        int p = pendingWrite(h);
        if (p >= 0) {
            return times[p] != DELETE;
        }
        return ids.get(Arrays.copyOf(key, keyLength)) != null;
    }

    /** Whether ids the task accepted before it opened, not in {@link RecentIds}, may still be in the horizon. */
    private boolean untrackedMayBeInHorizon() {
        if (untrackedUpTo != NONE && untrackedUpTo <= reservoir.streamTime() - horizon) {
            untrackedUpTo = NONE;
        }
        return untrackedUpTo != NONE;
    }

    /** Records an accepted event (its time as the reservoir holds it). */
    void accepted(Object id, long time) {
        if (id != null) {
            acceptedEncoded(encode(id), time);
        }
    }

    /** {@link #accepted(Object, long)} of the id of an event read in place. */
    void accepted(EventView event, long time) {
        if (!event.isNull(idColumn)) {
            acceptedEncoded(encode(event), time);
        }
    }

    /** {@link #accepted(Object, long)} of the id just encoded into {@link #key} (hash {@code h}). */
    private void acceptedEncoded(long h, long time) {
        boolean mayBePending = pendingDeletes > 0 || recent.mayContain(h) || untrackedUpTo != NONE;
        recent.add(h, time);
        write(h, time, mayBePending);
    }

    /**
     * The iterator at lag H passed an accepted event: its id leaves the horizon. An id cannot have been accepted
     * again while this event was in the horizon (it was a duplicate until now), so its row is this event's: deleted.
     * Only when {@link RecentIds} gave up is the row read to check it.
     */
    private void expired(long seq, long time, int schema, byte[] data, int off, int len) {
        EventView event = decoder.passed(seq, data, off, len);
        if (event.isNull(idColumn)) {
            return;
        }
        long h = encode(event);
        if (!recent.remove(h, time)) {
            int p = pendingWrite(h);
            long stored;
            if (p >= 0) {
                stored = times[p];
            } else {
                byte[] v = ids.get(Arrays.copyOf(key, keyLength));
                stored = v == null ? DELETE : ByteBuffer.wrap(v).getLong();
            }
            if (stored != time) {
                return;
            }
        }
        write(h, DELETE, true);
    }

    /**
     * The id's key ({@link GroupKeys#encodeOne}) into {@link #key}, BIGINT and INTEGER ids without an allocation; returns
     * its hash. The same id object as last time (the check of an event, then its acceptance) is not encoded again.
     */
    private long encode(Object id) {
        if (id == encodedId) {
            return keyHash;
        }
        if (id instanceof Long || id instanceof Integer) {
            long l = ((Number) id).longValue() ^ Long.MIN_VALUE;
            key[0] = 1;
            for (int i = 8; i >= 1; i--) {
                key[i] = (byte) l;
                l >>>= 8;
            }
            keyLength = 9;
        } else {
            byte[] k = GroupKeys.encodeOne(id);
            if (k.length > key.length) {
                key = new byte[2 * k.length];
            }
            System.arraycopy(k, 0, key, 0, k.length);
            keyLength = k.length;
        }
        encodedId = id;
        keyHash = GroupKeys.hash(key, 0, keyLength);
        return keyHash;
    }

    /** {@link #encode(Object)} of the id of an event read in place. */
    private long encode(EventView event) {
        int n = GroupKeys.encode(event, idColumns, key);
        if (n > key.length) {
            key = new byte[2 * n];
            n = GroupKeys.encode(event, idColumns, key);
        }
        keyLength = n;
        encodedId = null;
        keyHash = GroupKeys.hash(key, 0, keyLength);
        return keyHash;
    }

    /** The newest pending write (committed or not) of the key in {@link #key} (hash {@code h}), or -1. */
    private int pendingWrite(long h) {
        if (pending == 0) {
            return -1;
        }
        if (indexed < pending) {
            if (2 * pending > pendingIndex.length) {
                pendingIndex = new int[Integer.highestOneBit(2 * pending) * 2];
                indexed = 0;
            }
            for (; indexed < pending; indexed++) {
                index(indexed);
            }
        }
        int mask = pendingIndex.length - 1;
        int newest = -1;
        for (int i = (int) (h ^ (h >>> 32)) & mask; ; i = (i + 1) & mask) {
            int p = pendingIndex[i] - 1;
            if (p < 0) {
                return newest;
            }
            if (p > newest && hashes[p] == h
                    && Arrays.equals(keys, keyAt[p], keyAt[p] + keyLength(p), key, 0, keyLength)) {
                newest = p;
            }
        }
    }

    private int keyLength(int p) {
        return (p + 1 < pending ? keyAt[p + 1] : keysEnd) - keyAt[p];
    }

    /** A write of the key in {@link #key}; {@code mayBePending}: whether the key may have a pending write already. */
    private void write(long h, long time, boolean mayBePending) {
        int existing = mayBePending ? pendingWrite(h) : -1;
        if (existing >= committedEnd) { // a committed write stays as it is: its record holds it
            pendingDeletes += (time == DELETE ? 1 : 0) - (times[existing] == DELETE ? 1 : 0);
            times[existing] = time; // the newest write of a key is the one the commit keeps
            return;
        }
        if (time == DELETE) {
            pendingDeletes++;
        }
        if (pending == hashes.length) {
            keyAt = Arrays.copyOf(keyAt, 2 * pending);
            hashes = Arrays.copyOf(hashes, 2 * pending);
            times = Arrays.copyOf(times, 2 * pending);
        }
        if (keysEnd + keyLength > keys.length) {
            keys = Arrays.copyOf(keys, Math.max(2 * keys.length, keysEnd + keyLength));
        }
        System.arraycopy(key, 0, keys, keysEnd, keyLength);
        keyAt[pending] = keysEnd;
        keysEnd += keyLength;
        hashes[pending] = h;
        times[pending] = time;
        pending++;
    }

    private void index(int p) {
        int mask = pendingIndex.length - 1;
        long h = hashes[p];
        int i = (int) (h ^ (h >>> 32)) & mask;
        while (pendingIndex[i] != 0) {
            i = (i + 1) & mask;
        }
        pendingIndex[i] = p + 1;
    }

    @Override
    public boolean hasChanges() {
        return pending > committedEnd;
    }

    @Override
    public void writeChanges(StateStore.RowWriter out) {
        // in key order (a key's writes in the order made): RocksDB finds each row's place in its memtable through
        // the nodes the row before it went through, still in cache, where ids in random order miss at every level
        int writes = pending - committedEnd;
        if (order.length < writes) {
            order = new int[keyAt.length];
        }
        for (int p = committedEnd; p < pending; p++) {
            order[p - committedEnd] = p;
        }
        IdSort.sort(order, 0, writes, this::compareWrites);
        for (int k = 0; k < writes; k++) {
            int p = order[k];
            int at = keyAt[p];
            int length = keyLength(p);
            if (times[p] == DELETE) {
                out.delete(Arrays.copyOfRange(keys, at, at + length));
            } else {
                long t = times[p];
                for (int i = 7; i >= 0; i--) {
                    value[i] = (byte) t;
                    t >>>= 8;
                }
                out.put(EMPTY, keys, at, length, value, 0, 8);
            }
        }
    }

    private static final byte[] EMPTY = new byte[0];

    /** Orders pending writes {@code a} and {@code b} by key, then as they were made. */
    private int compareWrites(int a, int b) {
        int c = Arrays.compareUnsigned(keys, keyAt[a], keyAt[a] + keyLength(a), keys, keyAt[b],
                keyAt[b] + keyLength(b));
        return c != 0 ? c : Integer.compare(a, b);
    }

    @Override
    public void committed(long record) {
        if (pending == committedEnd) {
            return;
        }
        records.add(record, pending);
        committedEnd = pending;
    }

    /** The writes of the records up to {@code record} are rows of the store now: forgotten here. */
    @Override
    public void materialized(long record) {
        int drop = records.released(record);
        if (drop == 0) {
            return;
        }
        int keyBytes = drop < pending ? keyAt[drop] : keysEnd;
        int left = pending - drop;
        System.arraycopy(keys, keyBytes, keys, 0, keysEnd - keyBytes);
        keysEnd -= keyBytes;
        for (int p = 0; p < left; p++) {
            keyAt[p] = keyAt[drop + p] - keyBytes;
        }
        System.arraycopy(hashes, drop, hashes, 0, left);
        System.arraycopy(times, drop, times, 0, left);
        pending = left;
        committedEnd -= drop;
        pendingDeletes = 0;
        for (int p = 0; p < pending; p++) {
            pendingDeletes += times[p] == DELETE ? 1 : 0;
        }
        if (indexed > 0) {
            Arrays.fill(pendingIndex, 0);
            indexed = 0; // built again at the next lookup
        }
    }

    @Override
    public void close() {
        expiry.cancel();
        ids.removeOwner(this);
    }
}
