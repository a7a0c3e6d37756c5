package io.coilgun.planner.window;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The groups of one group-by of a task in memory, shared by every metric with those GROUP BY columns (the paper's
 * shared Group-by operator, as memory): one entry per group, its key bytes once, found by open addressing on a hash
 * of the key. Each metric keeps its own state of an entry in its {@link MetricSlots}, a primitive slab indexed by the
 * entry's id; so a group costs no object, and an event finds its group once for all the metrics that read it.
 *
 * <p>Layout: parallel primitive arrays under stable entry ids; keys are slices of one byte array (appended; the
 * space of removed keys is reclaimed by compacting it when half is garbage). Index cells hold the high 32 bits of
 * the key's hash and the entry id + 1 (0: empty), so a probe compares hashes without touching the entries; deletes
 * shift later cells back (no tombstones).
 *
 * <p>Memory: every arena of the process shares one {@link Budget} (by default a quarter of the heap). While it is
 * spent, an arena evicts entries no metric has changed since its last commit and that were not used since the clock
 * hand last passed them (CLOCK, a cheap LRU). A metric whose state of a group was evicted reads its row back from
 * RocksDB when the group comes back ({@link MetricSlots}); a group never stored costs no read ({@link KnownGroups},
 * one set per arena: a group any of its metrics stored). Single-threaded, like the task plan.
 */
final class GroupArena {
    /** Per entry, beyond its key bytes and its metrics' slots: index cell (half full), hash, key slice, flags. */
    static final int ENTRY_BYTES = 16 + 8 + 8 + 4 + 1 + 2 + 4;
    private static final byte LIVE = 1;
    private static final byte USED = 2;

    private final Budget budget;
    /** What the arena's metrics have stored (fingerprints of group keys); refilled from their rows at open. */
    final KnownGroups stored = new KnownGroups();
    private long storedBytes;
    private final List<MetricSlots> metrics = new ArrayList<>(1);

    private long[] index = new long[1 << 10];
    private long[] hashes = new long[1 << 9];
    /** Where each entry's key starts in {@link #keyBytes}, and its length. */
    private int[] keyAt = new int[1 << 9];
    private int[] keyLength = new int[1 << 9];
    private byte[] flags = new byte[1 << 9];
    /** How many of the arena's metrics hold a change of the entry not committed yet: it cannot be evicted. */
    private short[] pins = new short[1 << 9];
    /** Bumped each time an id is given to a new entry: a holder of an id can tell it was reused. */
    private int[] stamps = new int[1 << 9];
    private byte[] keyBytes = new byte[1 << 12];
    private int keyEnd;
    /** Key bytes of removed entries not reclaimed yet. */
    private int keyGarbage;
    private int[] free = new int[16];
    private int freeCount;
    private int nextId;
    private int size;
    private int hand;
    /** Bytes charged to the budget for the live entries (keys, entries, their metrics' slots). */
    private long charged;
    /** Of {@link #charged}: the metrics' wide rows, held outside their slabs ({@link #charge}). */
    private long wideBytes;
    /** The entry {@link #find} returned last (a hit for every metric reading the same event). */
    private int lastId = -1;
    private long lastHash;

    GroupArena(Budget budget) {
        this.budget = budget;
    }

    /** The id of {@code group}'s entry (its {@link KnownGroups#hash} is {@code h}), created when absent. */
    int find(byte[] group, long h) {
        int id = lastId;
        if (id < 0 || lastHash != h || !keyEquals(id, group)) {
            id = lookup(group, h);
            if (id < 0) {
                id = insert(group, h);
            }
            lastId = id;
            lastHash = h;
        }
        flags[id] |= USED;
        return id;
    }

    /** The id of {@code group}'s entry, or -1 when it has none in memory. */
    int lookup(byte[] group, long h) {
        int mask = index.length - 1;
        for (int cell = (int) h & mask; ; cell = (cell + 1) & mask) {
            long c = index[cell];
            if (c == 0) {
                return -1;
            }
            if ((c ^ h) >>> 32 == 0) {
                int id = (int) c - 1;
                if (keyEquals(id, group)) {
                    return id;
                }
            }
        }
    }

    private boolean keyEquals(int id, byte[] group) {
        int at = keyAt[id];
        return keyLength[id] == group.length && Arrays.equals(keyBytes, at, at + group.length, group, 0, group.length);
    }

    long hash(int id) {
        return hashes[id];
    }

    int stamp(int id) {
        return stamps[id];
    }

    boolean live(int id) {
        return id < nextId && (flags[id] & LIVE) != 0;
    }

    /** The bytes holding the keys: entry {@code id}'s key is at {@link #keyAt} for {@link #keyLength} bytes. */
    byte[] keyBytes() {
        return keyBytes;
    }

    int keyAt(int id) {
        return keyAt[id];
    }

    int keyLength(int id) {
        return keyLength[id];
    }

    /** A copy of the key of entry {@code id}. */
    byte[] key(int id) {
        return Arrays.copyOfRange(keyBytes, keyAt[id], keyAt[id] + keyLength[id]);
    }

    /** How many entries the ids run to (some may be free): what the metrics' slabs must hold. */
    int capacity() {
        return hashes.length;
    }

    int size() {
        return size;
    }

    /** A metric's slots join the arena: they are charged per entry, and told of evictions. */
    void join(MetricSlots m) {
        metrics.add(m);
        recharge();
    }

    /** A metric's slots leave (closed or dropped). */
    void leave(MetricSlots m) {
        metrics.remove(m);
        recharge();
        if (metrics.isEmpty()) {
            budget.used.addAndGet(-charged - storedBytes);
            charged = 0;
            wideBytes = 0;
            storedBytes = 0;
            clear();
        }
    }

    boolean empty() {
        return metrics.isEmpty();
    }

    boolean budgetSpent() {
        return budget.spent();
    }

    /** A metric holds a change of the entry not committed yet (until {@link #unpin}). */
    void pin(int id) {
        pins[id]++;
    }

    void unpin(int id) {
        pins[id]--;
    }

    /** Records that a metric stored the group of entry {@code id}. */
    void stored(int id) {
        stored.addHash(hashes[id]);
    }

    /** Counts the fingerprint set's growth in the budget (call after adding to it). */
    void countStored() {
        long now = stored.bytes();
        budget.used.addAndGet(now - storedBytes);
        storedBytes = now;
    }

    /** Forgets every entry (no metric reads the arena any more). */
    private void clear() {
        index = new long[1 << 10];
        Arrays.fill(flags, (byte) 0);
        keyEnd = 0;
        keyGarbage = 0;
        freeCount = 0;
        nextId = 0;
        size = 0;
        hand = 0;
        lastId = -1;
        stored.clear();
    }

    private long entryBytes() {
        long b = ENTRY_BYTES;
        for (MetricSlots m : metrics) {
            b += m.bytesPerEntry();
        }
        return b;
    }

    /** Charges the budget again for the live entries (the metrics joining changed what an entry costs). */
    private void recharge() {
        long now = size * entryBytes() + (keyEnd - keyGarbage) + wideBytes;
        budget.used.addAndGet(now - charged);
        charged = now;
    }

    private int insert(byte[] group, long h) {
        evictWhileOverBudget(64, 4);
        if (2 * (size + 1) > index.length) {
            growIndex();
        }
        int id = freeCount > 0 ? free[--freeCount] : nextId++;
        if (id == hashes.length) {
            int n = hashes.length * 2;
            hashes = Arrays.copyOf(hashes, n);
            keyAt = Arrays.copyOf(keyAt, n);
            keyLength = Arrays.copyOf(keyLength, n);
            flags = Arrays.copyOf(flags, n);
            pins = Arrays.copyOf(pins, n);
            stamps = Arrays.copyOf(stamps, n);
        }
        if (keyEnd + group.length > keyBytes.length) {
            makeRoomForKey(group.length);
        }
        System.arraycopy(group, 0, keyBytes, keyEnd, group.length);
        keyAt[id] = keyEnd;
        keyLength[id] = group.length;
        keyEnd += group.length;
        hashes[id] = h;
        flags[id] = LIVE | USED;
        pins[id] = 0;
        stamps[id]++;
        place(id);
        size++;
        for (MetricSlots m : metrics) {
            m.created(id);
        }
        long bytes = entryBytes() + group.length;
        charged += bytes;
        budget.used.addAndGet(bytes);
        return id;
    }

    /** Compacts the key bytes (dropping removed keys) or grows them, so that {@code more} bytes fit. */
    private void makeRoomForKey(int more) {
        int live = keyEnd - keyGarbage;
        byte[] into = keyGarbage > keyEnd / 2 && live + more <= keyBytes.length ? new byte[keyBytes.length]
                : new byte[Math.max(2 * keyBytes.length, live + more)];
        int at = 0;
        for (int id = 0; id < nextId; id++) {
            if ((flags[id] & LIVE) != 0) {
                System.arraycopy(keyBytes, keyAt[id], into, at, keyLength[id]);
                keyAt[id] = at;
                at += keyLength[id];
            }
        }
        keyBytes = into;
        keyEnd = at;
        keyGarbage = 0;
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
            if ((flags[id] & LIVE) != 0) {
                place(id);
            }
        }
    }

    /** Evicts what the budget needs after a commit (the rows just committed may go now). */
    void committed() {
        evictWhileOverBudget(2 * nextId, Integer.MAX_VALUE);
    }

    /**
     * While the budget is spent, evicts entries without uncommitted changes not used since the hand last passed,
     * moving the hand at most {@code maxSteps} entries and evicting at most {@code maxEvictions} (inserts evict a few
     * each, so the cost is spread over them).
     */
    private void evictWhileOverBudget(int maxSteps, int maxEvictions) {
        if (!budget.spent() || size == 0) {
            return;
        }
        int evicted = 0;
        for (int steps = 0; steps < maxSteps && evicted < maxEvictions && budget.spent(); steps++) {
            int id = hand;
            hand = hand + 1 >= nextId ? 0 : hand + 1;
            if ((flags[id] & LIVE) == 0 || pins[id] != 0) {
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

    /** Removes an entry (every metric's state of it is committed): its index cell is freed, later cells shift back. */
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
        for (MetricSlots m : metrics) {
            m.evicted(id);
        }
        long bytes = entryBytes() + keyLength[id];
        charged -= bytes;
        budget.used.addAndGet(-bytes);
        keyGarbage += keyLength[id];
        flags[id] = 0;
        if (lastId == id) {
            lastId = -1;
        }
        if (freeCount == free.length) {
            free = Arrays.copyOf(free, freeCount * 2);
        }
        free[freeCount++] = id;
        size--;
    }

    /** A slot of some metric grew or shrank outside the fixed slab (a wide row): charged as it goes. */
    void charge(long delta) {
        wideBytes += delta;
        charged += delta;
        budget.used.addAndGet(delta);
    }

    /**
     * The memory all group arenas of the process may hold: {@code -Dcoilgun.groupTableBytes}, by default a quarter
     * of the maximum heap. Arenas evict their committed entries while it is spent.
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
