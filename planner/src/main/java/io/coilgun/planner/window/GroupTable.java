package io.coilgun.planner.window;

import io.coilgun.storage.state.StateStore;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * A metric's group states in memory: an open-addressing hash table from group key to the group's state row
 * ({@link GroupState}), updated in place by the aggregators, so an event costs no encoding, decoding, copying or
 * store access. RocksDB (the metric's rows of the group-state column family, which this table
 * {@linkplain StateStore.Family#addOwner owns}) stays the durable copy: each commit of the task's store writes the
 * rows changed since the previous one, in the same batch as the task's offset.
 *
 * <p>Memory: every table of the process shares one {@link Budget}, which also counts the fingerprints of the groups
 * each has stored ({@link KnownGroups}: a few bytes per group, in memory or not). A table that finds the budget spent
 * evicts its own rows that are committed and were not used since the clock hand last passed them (CLOCK, a cheap
 * LRU); a changed row stays until its commit. A group evicted costs one RocksDB read when it comes back; a group never
 * stored costs none.
 *
 * <p>Entries live in parallel arrays under stable ids (what {@link #find} returns); the hash index maps keys to ids,
 * and deletes shift later index cells back (no tombstones). Single-threaded, like the task plan.
 */
final class GroupTable implements StateStore.Owner, AutoCloseable {
    private static final byte DIRTY = 1;
    private static final byte USED = 2;
    /** The group has a row in the store (or in the commit under way): {@link #stored} knows it. */
    private static final byte STORED = 4;
    /** Per entry: object headers, the index cell and the parallel arrays' slots, beyond the key and row bytes. */
    private static final int ENTRY_OVERHEAD = 112;

    private final StateStore.Family family;
    private final byte[] keyPrefix;
    private final Supplier<ByteBuffer> emptyRow;
    private final Budget budget;
    private final KnownGroups stored = new KnownGroups();
    /** The bytes of {@link #stored} counted in the budget (it grows with the groups, whether in memory or not). */
    private long storedBytes;

    /**
     * Index cells: the high 32 bits of the key's hash and the entry id + 1 in the low ones, 0 for an empty cell (a
     * probe compares hashes without touching the entries: one cache miss fewer per event).
     */
    private long[] index = new long[1 << 10];
    private long[] hashes = new long[1 << 9];
    /** The entries' keys in the store: the prefix, then the group key. */
    private byte[][] keys = new byte[1 << 9][];
    private ByteBuffer[] rows = new ByteBuffer[1 << 9];
    private byte[] flags = new byte[1 << 9];
    /** Ids of the entries not in use, and the next never-used id. */
    private int[] free = new int[16];
    private int freeCount;
    private int nextId;
    private int size;
    private long bytes;
    /** The entries changed since the last commit. */
    private int[] dirty = new int[1 << 9];
    private int dirtyCount;
    private int hand;
    /** A backfill's table: commits write its changed rows only while the budget is spent, or as {@link #release}d. */
    private boolean holdWrites;
    /** How many held rows the next commit may write. */
    private int allowance;
    /** How many of the {@link #dirty} entries the commit under way writes (the first ones). */
    private int writing;

    /**
     * @param keyPrefix what precedes the group key in the family's keys
     * @param emptyRow the row of a group with no state yet
     */
    GroupTable(StateStore.Family family, byte[] keyPrefix, Supplier<ByteBuffer> emptyRow, Budget budget) {
        this.family = family;
        this.keyPrefix = keyPrefix;
        this.emptyRow = emptyRow;
        this.budget = budget;
        byte[] upTo = keyPrefix.clone();
        upTo[upTo.length - 1]++;
        family.scan(keyPrefix, upTo, (key, value) -> {
            stored.add(Arrays.copyOfRange(key, keyPrefix.length, key.length));
            return true;
        });
        countStored();
        family.addOwner(this);
    }

    /** The entry of {@code group}: loaded from the store or created empty when not in memory. */
    int find(byte[] group) {
        return find(group, KnownGroups.hash(group));
    }

    /** {@link #find(byte[])} of a group whose {@link KnownGroups#hash} is {@code h}. */
    int find(byte[] group, long h) {
        int id = lookup(group, h);
        if (id >= 0) {
            flags[id] |= USED;
            return id;
        }
        byte[] key = MetricRows.concat(keyPrefix, group);
        byte[] value = stored.mayContainHash(h) ? family.get(key) : null;
        return insert(key, h, value == null ? emptyRow.get() : ByteBuffer.wrap(value), value != null);
    }

    /** Whether the group has a state, in memory or stored. */
    boolean contains(byte[] group) {
        long h = KnownGroups.hash(group);
        return lookup(group, h) >= 0
                || (stored.mayContainHash(h) && family.get(MetricRows.concat(keyPrefix, group)) != null);
    }

    ByteBuffer row(int id) {
        return rows[id];
    }

    /**
     * The entry's key in the store ({@code keyPrefix}, then the group key), or null when the id is free: the same
     * array as long as the entry lives.
     */
    byte[] storeKey(int id) {
        return keys[id];
    }

    /** The group key of a live entry (a copy). */
    byte[] group(int id) {
        return Arrays.copyOfRange(keys[id], keyPrefix.length, keys[id].length);
    }

    /** Marks the entry's row changed (to be written at the next commit): call it before the next {@link #find}. */
    void changed(int id) {
        if ((flags[id] & DIRTY) == 0) {
            flags[id] |= DIRTY;
            if (dirtyCount == dirty.length) {
                dirty = Arrays.copyOf(dirty, dirtyCount * 2);
            }
            dirty[dirtyCount++] = id;
        }
    }

    /** Replaces the entry's row by a resized one (a tumbling bucket added or dropped), marking it changed. */
    void replace(int id, ByteBuffer row) {
        long delta = row.capacity() - rows[id].capacity();
        rows[id] = row;
        bytes += delta;
        budget.used.addAndGet(delta);
        changed(id);
    }

    /** The keys of the groups changed since the last commit, unsorted: rows a scan of the store does not see yet. */
    List<byte[]> changedKeys() {
        List<byte[]> out = new ArrayList<>(dirtyCount);
        for (int i = 0; i < dirtyCount; i++) {
            out.add(group(dirty[i]));
        }
        return out;
    }

    int size() {
        return size;
    }

    /**
     * Holds the changed rows back from commits (a backfill's table: nothing reads them before it goes live, and a
     * restart begins it again), so that a group changed by many events of the history is written once, not at every
     * checkpoint of the task. They are written while the memory budget is spent (only committed rows can be
     * evicted), and as {@link #release} allows.
     */
    void holdWrites(boolean hold) {
        holdWrites = hold;
    }

    /** Lets the next commit write up to {@code rows} of the held rows, oldest changes first. */
    void release(int rows) {
        allowance = rows;
    }

    /** The rows changed and not written yet. */
    int changedRows() {
        return dirtyCount;
    }

    private int rowsToWrite() {
        return !holdWrites || budget.spent() ? dirtyCount : Math.min(allowance, dirtyCount);
    }

    @Override
    public boolean hasChanges() {
        return rowsToWrite() > 0;
    }

    @Override
    public void writeChanges(StateStore.RowWriter out) {
        writing = rowsToWrite();
        for (int i = 0; i < writing; i++) {
            int id = dirty[i];
            out.put(keys[id], rows[id].array());
        }
    }

    @Override
    public void committed() {
        for (int i = 0; i < writing; i++) {
            int id = dirty[i];
            if ((flags[id] & STORED) == 0) {
                stored.addHash(hashes[id]);
            }
            flags[id] = (byte) (flags[id] & ~DIRTY | STORED);
        }
        System.arraycopy(dirty, writing, dirty, 0, dirtyCount - writing);
        dirtyCount -= writing;
        writing = 0;
        allowance = 0;
        countStored();
        evictWhileOverBudget(2 * nextId, Integer.MAX_VALUE); // rows just committed may go now
    }

    private void countStored() {
        long now = stored.bytes();
        budget.used.addAndGet(now - storedBytes);
        storedBytes = now;
    }

    private int lookup(byte[] group, long h) {
        int mask = index.length - 1;
        for (int cell = (int) h & mask; ; cell = (cell + 1) & mask) {
            long c = index[cell];
            if (c == 0) {
                return -1;
            }
            if ((c ^ h) >>> 32 == 0) {
                int id = (int) c - 1;
                byte[] k = keys[id];
                if (k.length == keyPrefix.length + group.length
                        && Arrays.equals(k, keyPrefix.length, k.length, group, 0, group.length)) {
                    return id;
                }
            }
        }
    }

    private int insert(byte[] key, long h, ByteBuffer row, boolean isStored) {
        evictWhileOverBudget(64, 4);
        if (2 * (size + 1) > index.length) {
            growIndex();
        }
        int id = freeCount > 0 ? free[--freeCount] : nextId++;
        if (id == hashes.length) {
            int n = hashes.length * 2;
            hashes = Arrays.copyOf(hashes, n);
            keys = Arrays.copyOf(keys, n);
            rows = Arrays.copyOf(rows, n);
            flags = Arrays.copyOf(flags, n);
        }
        hashes[id] = h;
        keys[id] = key;
        rows[id] = row;
        flags[id] = isStored ? USED | STORED : USED;
        place(id);
        size++;
        long entryBytes = entryBytes(id);
        bytes += entryBytes;
        budget.used.addAndGet(entryBytes);
        return id;
    }

    private long entryBytes(int id) {
        return ENTRY_OVERHEAD + keys[id].length + rows[id].capacity();
    }

    private void place(int id) {
        int mask = index.length - 1;
        int cell = (int) hashes[id] & mask;
        while (index[cell] != 0) {
            cell = (cell + 1) & mask;
        }
        index[cell] = (hashes[id] & 0xFFFFFFFF00000000L) | (id + 1);
    }

    private void growIndex() {
        index = new long[index.length * 2];
        for (int id = 0; id < nextId; id++) {
            if (keys[id] != null) {
                place(id);
            }
        }
    }

    /**
     * While the budget is spent, evicts committed entries not used since the hand last passed, moving the hand at
     * most {@code maxSteps} entries and evicting at most {@code maxEvictions} (inserts evict a few each, so the cost
     * is spread over them).
     */
    private void evictWhileOverBudget(int maxSteps, int maxEvictions) {
        if (!budget.spent() || size == 0) {
            return;
        }
        int evicted = 0;
        for (int steps = 0; steps < maxSteps && evicted < maxEvictions && budget.spent(); steps++) {
            int id = hand;
            hand = hand + 1 >= nextId ? 0 : hand + 1;
            if (keys[id] == null || (flags[id] & DIRTY) != 0) {
                continue;
            }
            if ((flags[id] & USED) != 0) {
                flags[id] &= ~USED;
                continue;
            }
            remove(id);
            evicted++;
        }
    }

    /** Removes an entry: its index cell is freed and later cells of its probe run shift back. */
    private void remove(int id) {
        int mask = index.length - 1;
        int cell = (int) hashes[id] & mask;
        while ((int) index[cell] != id + 1) {
            cell = (cell + 1) & mask;
        }
        int gap = cell;
        for (int next = (gap + 1) & mask; index[next] != 0; next = (next + 1) & mask) {
            int home = (int) hashes[(int) index[next] - 1] & mask;
            // the entry at next may move into the gap if its home is not cyclically in (gap, next]
            if (((next - home) & mask) >= ((next - gap) & mask)) {
                index[gap] = index[next];
                gap = next;
            }
        }
        index[gap] = 0;
        long entryBytes = entryBytes(id);
        bytes -= entryBytes;
        budget.used.addAndGet(-entryBytes);
        keys[id] = null;
        rows[id] = null;
        flags[id] = 0;
        if (freeCount == free.length) {
            free = Arrays.copyOf(free, freeCount * 2);
        }
        free[freeCount++] = id;
        size--;
    }

    /**
     * Releases the table's memory from the budget and stops writing its changes (the metric is closed or dropped):
     * what was not committed is dropped.
     */
    @Override
    public void close() {
        family.removeOwner(this);
        budget.used.addAndGet(-bytes - storedBytes);
        bytes = 0;
        storedBytes = 0;
    }

    /**
     * The memory all group tables of the process may hold: {@code -Dcoilgun.groupTableBytes}, by default a quarter
     * of the maximum heap. Tables evict their committed rows while it is spent.
     */
    static final class Budget {
        static final Budget PROCESS = new Budget(Long.getLong("coilgun.groupTableBytes",
                Runtime.getRuntime().maxMemory() / 4));

        private final long limit;
        final AtomicLong used = new AtomicLong();

        Budget(long limit) {
            this.limit = limit;
        }

        boolean spent() {
            return used.get() > limit;
        }
    }
}
