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
 * <p>Layout: one record of four longs per entry, under a stable id, in one array (an entry is half a cache line:
 * finding a group touches its index cell, its record and its metrics' slots, nothing else):
 * <pre>
 *   long hash | long key bytes 0-7 or where a longer key starts | long flags (8 bits), pins (16), inline key
 *   length (8: 0-16, or 255 for a longer key), stamp (32) | long key bytes 8-15 or a longer key's length
 * </pre>
 * Keys of up to 16 bytes (a card number, a BIGINT) live in the record; longer ones are slices of one byte array
 * (appended; the space of removed keys is reclaimed by compacting it when half is garbage). Index cells hold the
 * high 32 bits of the key's hash and the entry id + 1 (0: empty), so a probe compares hashes without touching the
 * records; deletes shift later cells back (no tombstones).
 *
 * <p>Memory: every arena of the process shares one {@link Budget} (by default a quarter of the heap), charged for
 * what the arena has room for (its records and its metrics' slabs are allocated for that many entries), so the
 * budget bounds the heap they take. A full arena grows by half while the budget allows; else it evicts entries no
 * metric has changed since its last commit and that were not used since the clock hand last passed them (CLOCK, a
 * cheap LRU), and reuses their ids. A metric whose state of a group was evicted reads it back from RocksDB when the
 * group comes back ({@link MetricSlots}); a group never stored costs no read ({@link KnownGroups}, one set per arena:
 * a group any of its metrics stored). Single-threaded, like the task plan.
 */
final class GroupArena {
    /** Per entry, beyond a long key's bytes and its metrics' slots: its index cell (half full) and its record. */
    static final int ENTRY_BYTES = 16 + 32;
    private static final int INLINE = 16;
    private static final int EXTERNAL = 255;
    private static final long LIVE = 1;
    private static final long USED = 2;
    private static final long PIN = 1 << 8;
    private static final long PINS = 0xFFFFL << 8;
    private static final long STAMP = 1L << 32;

    private final Budget budget;
    /** What the arena's metrics have stored (fingerprints of group keys); refilled from their rows at open. */
    final KnownGroups stored = new KnownGroups();
    private long storedBytes;
    /**
     * Whether every group any metric has stored has an entry here (no metric found rows at open, nothing evicted):
     * then a group without an entry was never stored, and {@link #stored} is not needed (nor kept up to date).
     */
    private boolean complete = true;
    private final List<MetricSlots> metrics = new ArrayList<>(1);

    private long[] index = new long[1 << 10];
    /** The entries' records, four longs each (see the class comment). */
    private long[] entries = new long[4 * 16];
    private byte[] keyBytes = new byte[1 << 10];
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
    /** The key being looked up, packed as a record holds an inline key. */
    private long packed0;
    private long packed1;

    GroupArena(Budget budget) {
        this.budget = budget;
    }

    /** The id of {@code group}'s entry (its {@link KnownGroups#hash} is {@code h}), created when absent. */
    int find(byte[] group, long h) {
        return find(group, group.length, h);
    }

    /** {@link #find(byte[], long)} of the key in {@code group[0 .. length)}. */
    int find(byte[] group, int length, long h) {
        int id = lastId;
        if (id < 0 || lastHash != h || !keyEquals(id, group, length)) {
            id = lookup(group, length, h);
            if (id < 0) {
                id = insert(group, length, h);
            }
            lastId = id;
            lastHash = h;
        }
        entries[4 * id + 2] |= USED;
        return id;
    }

    /** The id of {@code group}'s entry, or -1 when it has none in memory. */
    int lookup(byte[] group, long h) {
        return lookup(group, group.length, h);
    }

    private int lookup(byte[] group, int length, long h) {
        pack(group, length);
        int mask = index.length - 1;
        for (int cell = (int) h & mask; ; cell = (cell + 1) & mask) {
            long c = index[cell];
            if (c == 0) {
                return -1;
            }
            if ((c ^ h) >>> 32 == 0) {
                int id = (int) c - 1;
                if (entries[4 * id] == h && packedEquals(id, group, length)) {
                    return id;
                }
            }
        }
    }

    /** Packs a key of up to 16 bytes into {@link #packed0} and {@link #packed1}, as a record holds it. */
    private void pack(byte[] group, int length) {
        long a = 0;
        long b = 0;
        if (length <= INLINE) {
            for (int i = Math.min(length, 8) - 1; i >= 0; i--) {
                a = a << 8 | (group[i] & 0xFF);
            }
            for (int i = length - 1; i >= 8; i--) {
                b = b << 8 | (group[i] & 0xFF);
            }
        }
        packed0 = a;
        packed1 = b;
    }

    private boolean packedEquals(int id, byte[] group, int groupLength) {
        int r = 4 * id;
        int length = (int) (entries[r + 2] >>> 24) & 0xFF;
        if (length != EXTERNAL) {
            return length == groupLength && entries[r + 1] == packed0 && entries[r + 3] == packed1;
        }
        int at = (int) entries[r + 1];
        return entries[r + 3] == groupLength && Arrays.equals(keyBytes, at, at + groupLength, group, 0, groupLength);
    }

    private boolean keyEquals(int id, byte[] group, int length) {
        pack(group, length);
        return packedEquals(id, group, length);
    }

    long hash(int id) {
        return entries[4 * id];
    }

    int stamp(int id) {
        return (int) (entries[4 * id + 2] >>> 32);
    }

    boolean live(int id) {
        return id < nextId && (entries[4 * id + 2] & LIVE) != 0;
    }

    int keyLength(int id) {
        int length = (int) (entries[4 * id + 2] >>> 24) & 0xFF;
        return length != EXTERNAL ? length : (int) entries[4 * id + 3];
    }

    /** Writes the key of entry {@code id} into {@code into} from {@code at}; returns its length. */
    int copyKey(int id, byte[] into, int at) {
        int r = 4 * id;
        int length = (int) (entries[r + 2] >>> 24) & 0xFF;
        if (length == EXTERNAL) {
            length = (int) entries[r + 3];
            System.arraycopy(keyBytes, (int) entries[r + 1], into, at, length);
            return length;
        }
        long a = entries[r + 1];
        long b = entries[r + 3];
        for (int i = 0; i < length; i++) {
            into[at + i] = (byte) (i < 8 ? a >>> (8 * i) : b >>> (8 * (i - 8)));
        }
        return length;
    }

    /**
     * Compares the keys of entries {@code a} and {@code b} as unsigned byte strings (the order of their rows in the
     * store).
     */
    int compareKeys(int a, int b) {
        int ra = 4 * a;
        int rb = 4 * b;
        int la = (int) (entries[ra + 2] >>> 24) & 0xFF;
        int lb = (int) (entries[rb + 2] >>> 24) & 0xFF;
        if (la != EXTERNAL && lb != EXTERNAL) {
            // a record holds bytes 0-7 and 8-15 little-endian, zero-padded: reversed, they compare as the bytes do
            int c = Long.compareUnsigned(Long.reverseBytes(entries[ra + 1]), Long.reverseBytes(entries[rb + 1]));
            if (c == 0) {
                c = Long.compareUnsigned(Long.reverseBytes(entries[ra + 3]), Long.reverseBytes(entries[rb + 3]));
            }
            return c != 0 ? c : Integer.compare(la, lb);
        }
        return Arrays.compareUnsigned(key(a), key(b)); // a key longer than 16 bytes: rare, allocating is fine
    }

    /** A copy of the key of entry {@code id}. */
    byte[] key(int id) {
        byte[] key = new byte[keyLength(id)];
        copyKey(id, key, 0);
        return key;
    }

    /** How many entries the ids run to (some may be free): what the metrics' slabs must hold. */
    int capacity() {
        return entries.length / 4;
    }

    int size() {
        return size;
    }

    /** A metric's slots join the arena: they are charged per entry, and told of evictions. */
    void join(MetricSlots m, boolean foundRows) {
        metrics.add(m);
        if (foundRows && complete) {
            incomplete();
        }
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
        entries[4 * id + 2] += PIN;
    }

    void unpin(int id) {
        entries[4 * id + 2] -= PIN;
    }

    /** Whether a metric may have stored the group of entry {@code id} without holding it in memory. */
    boolean mayBeStored(int id) {
        return !complete && stored.mayContainHash(entries[4 * id]);
    }

    /** Whether a metric may have stored a group with this hash (it may have no entry). */
    boolean mayBeStored(long h) {
        return !complete && stored.mayContainHash(h);
    }

    /** Records that a metric stored the group of entry {@code id}. */
    void stored(int id) {
        if (!complete) {
            stored.addHash(entries[4 * id]);
        }
    }

    /** Counts the fingerprint set's growth in the budget (call after adding to it). */
    void countStored() {
        long now = stored.bytes();
        budget.used.addAndGet(now - storedBytes);
        storedBytes = now;
    }

    /**
     * From now on a group without an entry may have been stored: the fingerprints of what the metrics stored are
     * taken from the entries (every stored group has one until now) and kept from here on.
     */
    private void incomplete() {
        complete = false;
        for (int id = 0; id < nextId; id++) {
            if ((entries[4 * id + 2] & LIVE) != 0) {
                stored.addHash(entries[4 * id]); // a superset: entries not stored yet only cost a needless read
            }
        }
        countStored();
    }

    /** Forgets every entry (no metric reads the arena any more). */
    private void clear() {
        index = new long[1 << 10];
        entries = new long[4 * 16];
        keyEnd = 0;
        keyGarbage = 0;
        freeCount = 0;
        nextId = 0;
        size = 0;
        hand = 0;
        lastId = -1;
        stored.clear();
        complete = true;
    }

    private long entryBytes() {
        long b = ENTRY_BYTES;
        for (MetricSlots m : metrics) {
            b += m.bytesPerEntry();
        }
        return b;
    }

    /**
     * Charges the budget again for the entries the arena has room for (its records and its metrics' slabs are
     * allocated for that many), the long keys and the wide rows: the metrics joining changed what an entry costs.
     */
    private void recharge() {
        long now = capacity() * entryBytes() + (keyEnd - keyGarbage) + wideBytes;
        budget.used.addAndGet(now - charged);
        charged = now;
    }

    private int insert(byte[] group, int length, long h) {
        if (freeCount == 0 && nextId == capacity()) {
            int capacity = capacity();
            int more = capacity / 2;
            if (budget.wouldExceed(more * entryBytes())) {
                evict(Math.max(4, capacity / 16)); // make room rather than grow: the metrics' slabs grow with it
            }
            if (freeCount == 0) { // room for more, or nothing to evict (changes not committed yet cannot go)
                entries = Arrays.copyOf(entries, 4 * (capacity + more));
                recharge();
            }
        }
        if (2 * (size + 1) > index.length) {
            growIndex();
        }
        int id = freeCount > 0 ? free[--freeCount] : nextId++;
        int r = 4 * id;
        long stamp = (entries[r + 2] & ~(STAMP - 1)) + STAMP;
        entries[r] = h;
        if (length <= INLINE) {
            pack(group, length);
            entries[r + 1] = packed0;
            entries[r + 3] = packed1;
            entries[r + 2] = stamp | (long) length << 24 | LIVE | USED;
        } else {
            if (keyEnd + length > keyBytes.length) {
                makeRoomForKey(length);
            }
            System.arraycopy(group, 0, keyBytes, keyEnd, length);
            entries[r + 1] = keyEnd;
            entries[r + 3] = length;
            entries[r + 2] = stamp | (long) EXTERNAL << 24 | LIVE | USED;
            keyEnd += length;
        }
        place(id);
        size++;
        for (MetricSlots m : metrics) {
            m.created(id);
        }
        long bytes = externalBytes(length);
        charged += bytes;
        budget.used.addAndGet(bytes);
        return id;
    }

    private static int externalBytes(int keyLength) {
        return keyLength <= INLINE ? 0 : keyLength;
    }

    /** Compacts the long keys' bytes (dropping removed keys) or grows them, so that {@code more} bytes fit. */
    private void makeRoomForKey(int more) {
        int live = keyEnd - keyGarbage;
        byte[] into = keyGarbage > keyEnd / 2 && live + more <= keyBytes.length ? new byte[keyBytes.length]
                : new byte[Math.max(2 * keyBytes.length, live + more)];
        int at = 0;
        for (int id = 0; id < nextId; id++) {
            int r = 4 * id;
            if ((entries[r + 2] & LIVE) != 0 && ((entries[r + 2] >>> 24) & 0xFF) == EXTERNAL) {
                int length = (int) entries[r + 3];
                System.arraycopy(keyBytes, (int) entries[r + 1], into, at, length);
                entries[r + 1] = at;
                at += length;
            }
        }
        keyBytes = into;
        keyEnd = at;
        keyGarbage = 0;
    }

    private void place(int id) {
        int mask = index.length - 1;
        long h = entries[4 * id];
        int cell = (int) h & mask;
        while (index[cell] != 0) {
            cell = (cell + 1) & mask;
        }
        index[cell] = (h & 0xFFFFFFFF00000000L) | (id + 1);
    }

    private void growIndex() {
        index = new long[index.length * 2];
        for (int id = 0; id < nextId; id++) {
            if ((entries[4 * id + 2] & LIVE) != 0) {
                place(id);
            }
        }
    }

    /**
     * Evicts up to {@code wanted} entries without uncommitted changes and not used since the clock hand last passed
     * them (CLOCK), moving the hand at most twice round.
     */
    private void evict(int wanted) {
        if (size == 0) {
            return;
        }
        int evicted = 0;
        for (int steps = 0; steps < 2 * nextId && evicted < wanted; steps++) {
            int id = hand;
            hand = hand + 1 >= nextId ? 0 : hand + 1;
            long f = entries[4 * id + 2];
            if ((f & LIVE) == 0 || (f & PINS) != 0) {
                continue;
            }
            if ((f & USED) != 0) {
                entries[4 * id + 2] = f & ~USED;
                continue;
            }
            if (complete) {
                incomplete();
            }
            remove(id);
            evicted++;
        }
    }

    /** Removes an entry (every metric's state of it is committed): its index cell is freed, later cells shift back. */
    private void remove(int id) {
        int mask = index.length - 1;
        int cell = (int) entries[4 * id] & mask;
        while ((int) index[cell] != id + 1) {
            cell = (cell + 1) & mask;
        }
        int gap = cell;
        for (int next = (gap + 1) & mask; index[next] != 0; next = (next + 1) & mask) {
            int home = (int) entries[4 * ((int) index[next] - 1)] & mask;
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
        int keyLength = keyLength(id);
        long bytes = externalBytes(keyLength);
        charged -= bytes;
        budget.used.addAndGet(-bytes);
        keyGarbage += externalBytes(keyLength);
        entries[4 * id + 2] &= ~(STAMP - 1); // keeps the stamp only
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
     * of the maximum heap. A full arena evicts its committed entries rather than grow past it.
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

        /** Whether {@code more} bytes would take the memory held past the limit. */
        boolean wouldExceed(long more) {
            return used.get() + more > limit;
        }
    }
}
