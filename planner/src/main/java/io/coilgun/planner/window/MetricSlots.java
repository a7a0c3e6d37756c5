package io.coilgun.planner.window;

import io.coilgun.storage.state.HeldRecords;
import io.coilgun.storage.state.StateStore;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One metric's group states in its {@link GroupArena}: a slab of fixed-size compact slots indexed by the arena's
 * entry ids ({@link RowLayout}), and the few wide rows beside it. The aggregators update a slot in place, so an
 * event costs no encoding, copying or store access.
 *
 * <p>RocksDB (the metric's rows {@code <name>\0g<group>} of the group-state family, which this object
 * {@linkplain StateStore.Family#addOwner owns}) stays the durable copy: each commit of the task's store writes the
 * slots changed since the previous one into its changelog record, in the same batch as the task's offset; another
 * thread later writes them as rows. Until then an entry stays pinned in the arena (its row in the store is not its
 * state yet). A slot is <em>loaded</em> from its row the first time the metric touches its entry (an entry other
 * metrics made, or one evicted since).
 *
 * <pre>
 * stored row: byte 'c', the compact slot | byte 'w', the wide row (GroupState) | a wide row with no tag (the rows of
 *             releases before this one: a clock's first byte is never 'c' or 'w')
 * </pre>
 */
final class MetricSlots implements StateStore.Owner {
    private static final byte COMPACT = 'c';
    private static final byte WIDE = 'w';
    private static final byte LOADED = 1;
    private static final byte DIRTY = 2;
    /** The group has a row in the store (or in the commit under way). */
    private static final byte STORED = 4;
    /** The state is the wide row in {@link #wide}, not the slab's slot. */
    private static final byte IS_WIDE = 8;

    private final StateStore.Family family;
    private final byte[] keyPrefix;
    private final RowLayout layout;
    private final GroupArena arena;
    private final int stride;
    /** A slot's bytes in the slab: its flags byte, then the compact state (one cache line to touch, not two). */
    private final int slotBytes;
    /**
     * The slab, in pages of {@code 1 << pageShift} slots (at most {@link #PAGE_BYTES}): it grows by pages, never
     * copied, and no page is big enough for the collector to treat it as a humongous object.
     */
    private ByteBuffer[] pages = new ByteBuffer[16];
    private final int pageShift;
    private final int pageMask;
    private static final int PAGE_BYTES = 64 << 10;
    private final Map<Integer, ByteBuffer> wide = new HashMap<>();
    private int[] dirty = new int[1 << 9];
    private int dirtyCount;
    /**
     * The entries whose rows are in changelog records not materialized yet, oldest first, and where each record's
     * entries end: they stay pinned in the arena (a read of the store would not see their rows) until it is.
     */
    private int[] held = new int[1 << 9];
    private int heldCount;
    private final HeldRecords heldRecords = new HeldRecords();
    /** A backfill's slots: commits write their changes only while the budget is spent, or as {@link #release}d. */
    private boolean holdWrites;
    private int allowance;
    /** How many of the {@link #dirty} entries the commit under way writes (the first ones). */
    private int writing;
    private byte[] encoded = new byte[64];
    private byte[] keyScratch = new byte[64];
    private boolean closed;

    /**
     * @param keyPrefix what precedes the group key in the family's keys
     */
    MetricSlots(StateStore.Family family, byte[] keyPrefix, RowLayout layout, GroupArena arena) {
        this.family = family;
        this.keyPrefix = keyPrefix;
        this.layout = layout;
        this.arena = arena;
        this.stride = layout.stride();
        this.slotBytes = stride + 1;
        this.pageShift = Math.max(0, 31 - Integer.numberOfLeadingZeros(PAGE_BYTES / slotBytes));
        this.pageMask = (1 << pageShift) - 1;
        family.addOwner(this); // first: every committed row of the family is in it from here on
        byte[] upTo = MetricRows.after(keyPrefix);
        boolean[] found = new boolean[1];
        family.scan(keyPrefix, upTo, (key, value) -> {
            arena.stored.addHash(KnownGroups.hash(Arrays.copyOfRange(key, keyPrefix.length, key.length)));
            found[0] = true;
            return true;
        });
        arena.countStored();
        arena.join(this, found[0]);
    }

    GroupArena arena() {
        return arena;
    }

    /** What an entry of the arena costs this metric: its slot and its flags. */
    long bytesPerEntry() {
        return slotBytes;
    }

    /** The page of the slab that holds entry {@code id}'s slot, at the offset {@link #load} says. */
    ByteBuffer slab(int id) {
        return pages[id >>> pageShift];
    }

    /** Where entry {@code id}'s slot (its flags byte) starts in its page. */
    private int at(int id) {
        return (id & pageMask) * slotBytes;
    }

    /** Whether the page of entry {@code id} is allocated. */
    private boolean allocated(int id) {
        int p = id >>> pageShift;
        return p < pages.length && pages[p] != null;
    }

    /** Allocates the page of entry {@code id} (and the page table) if it is not yet. */
    private void allocate(int id) {
        int p = id >>> pageShift;
        if (p >= pages.length) {
            pages = Arrays.copyOf(pages, Math.max(2 * pages.length, p + 1));
        }
        if (pages[p] == null) {
            pages[p] = ByteBuffer.allocate(slotBytes << pageShift);
        }
    }

    /**
     * Loads the state of entry {@code id} if the metric has not yet (from its row in the store, or empty), and says
     * where it is: its slot's offset in {@link #slab}, or -1 when it is wide ({@link #wideRow}).
     */
    int load(int id) {
        allocate(id);
        int at = at(id);
        byte f = pages[id >>> pageShift].get(at);
        if ((f & LOADED) == 0) {
            f = read(id);
        }
        return (f & IS_WIDE) != 0 ? -1 : at + 1;
    }

    private byte flags(int id) {
        return pages[id >>> pageShift].get(at(id));
    }

    private void flags(int id, byte f) {
        pages[id >>> pageShift].put(at(id), f);
    }

    /** Whether the metric has a state of the group of entry {@code id} (in memory or stored). */
    boolean has(int id) {
        if (allocated(id) && (flags(id) & LOADED) != 0) {
            return true;
        }
        return arena.mayBeStored(id) && family.get(storeKey(id)) != null;
    }

    ByteBuffer wideRow(int id) {
        return wide.get(id);
    }

    /** The state of entry {@code id} becomes the wide row {@code row} (or a new one of it), marked changed. */
    void setWide(int id, ByteBuffer row) {
        ByteBuffer before = wide.put(id, row);
        arena.charge(row.capacity() - (before == null ? 0 : before.capacity()));
        flags(id, (byte) (flags(id) | IS_WIDE));
        changed(id);
    }

    /** Widens the compact state of entry {@code id} (it no longer fits) and returns its wide row. */
    ByteBuffer widen(int id) {
        ByteBuffer row = layout.widen(slab(id), at(id) + 1);
        setWide(id, row);
        return row;
    }

    /** Marks the state of entry {@code id} changed: written at the next commit, not evicted before it. */
    void changed(int id) {
        byte f = flags(id);
        if ((f & DIRTY) == 0) {
            flags(id, (byte) (f | DIRTY));
            arena.pin(id);
            if (dirtyCount == dirty.length) {
                dirty = Arrays.copyOf(dirty, dirtyCount * 2);
            }
            dirty[dirtyCount++] = id;
        }
    }

    private byte read(int id) {
        int off = at(id) + 1;
        ByteBuffer slab = slab(id);
        byte[] value = arena.mayBeStored(id) ? family.get(storeKey(id)) : null;
        byte f = LOADED;
        if (value == null) {
            layout.clear(slab, off);
        } else {
            f |= STORED;
            if (value[0] == COMPACT) {
                if (value.length != 1 + stride) {
                    throw new IllegalStateException("a group state of " + value.length + " bytes where the metric's "
                            + "layout has " + (1 + stride) + ": " + new String(keyPrefix, 0, keyPrefix.length - 2,
                                    StandardCharsets.UTF_8));
                }
                System.arraycopy(value, 1, slab.array(), off, stride);
            } else {
                ByteBuffer row = value[0] == WIDE ? ByteBuffer.wrap(Arrays.copyOfRange(value, 1, value.length))
                        : ByteBuffer.wrap(value); // a row of an earlier release: the wide form
                if (!layout.narrow(row, slab, off)) {
                    f |= IS_WIDE;
                    wide.put(id, row);
                    arena.charge(row.capacity());
                }
                if (value[0] != WIDE) {
                    flags(id, f);
                    changed(id); // a row of an earlier release: rewritten in this release's form at the next commit
                    return flags(id);
                }
            }
        }
        flags(id, f);
        return f;
    }

    /** The entry's key in the store: the prefix, then the group key (a new array). */
    private byte[] storeKey(int id) {
        byte[] key = Arrays.copyOf(keyPrefix, keyPrefix.length + arena.keyLength(id));
        arena.copyKey(id, key, keyPrefix.length);
        return key;
    }

    /** The arena made entry {@code id} (a new group): this metric has not loaded it. */
    void created(int id) {
        if (allocated(id)) {
            flags(id, (byte) 0);
        }
    }

    /** The arena evicts entry {@code id}: its state here is committed. */
    void evicted(int id) {
        if (!allocated(id)) {
            return;
        }
        if ((flags(id) & IS_WIDE) != 0) {
            arena.charge(-wide.remove(id).capacity());
        }
        flags(id, (byte) 0);
    }

    /**
     * The keys of the groups changed since the last commit or in a changelog record not materialized yet, unsorted,
     * some perhaps twice: rows a scan of the store does not see yet.
     */
    List<byte[]> changedKeys() {
        List<byte[]> out = new ArrayList<>(dirtyCount + heldCount);
        for (int i = 0; i < dirtyCount; i++) {
            out.add(arena.key(dirty[i]));
        }
        for (int i = 0; i < heldCount; i++) {
            out.add(arena.key(held[i]));
        }
        return out;
    }

    /** See {@link WindowMetric#holdRows}. */
    void holdWrites(boolean hold) {
        holdWrites = hold;
    }

    /** Lets the next commit write up to {@code rows} of the held rows, oldest changes first. */
    void release(int rows) {
        allowance = rows;
    }

    /** The states changed and not written yet. */
    int changedRows() {
        return dirtyCount;
    }

    private int rowsToWrite() {
        return !holdWrites || arena.budgetSpent() ? dirtyCount : Math.min(allowance, dirtyCount);
    }

    @Override
    public boolean hasChanges() {
        return rowsToWrite() > 0;
    }

    @Override
    public void writeChanges(StateStore.RowWriter out) {
        writing = rowsToWrite();
        // in key order: RocksDB inserts each row into its memtable's skip list, and a row next to the one before
        // finds its place through nodes still in cache, where rows in random order miss at nearly every level
        IdSort.sort(dirty, 0, writing, arena::compareKeys);
        for (int i = 0; i < writing; i++) {
            int id = dirty[i];
            int off = at(id) + 1;
            int length;
            if ((flags(id) & IS_WIDE) != 0) {
                ByteBuffer row = wide.get(id);
                if (layout.narrow(row, slab(id), off)) {
                    arena.charge(-wide.remove(id).capacity());
                    flags(id, (byte) (flags(id) & ~IS_WIDE));
                    length = encodeCompact(id, off);
                } else {
                    length = 1 + row.capacity();
                    ensureEncoded(length);
                    encoded[0] = WIDE;
                    System.arraycopy(row.array(), 0, encoded, 1, row.capacity());
                }
            } else {
                length = encodeCompact(id, off);
            }
            int keyLength = arena.keyLength(id);
            if (keyLength > keyScratch.length) {
                keyScratch = new byte[2 * keyLength];
            }
            arena.copyKey(id, keyScratch, 0);
            out.put(keyPrefix, keyScratch, 0, keyLength, encoded, 0, length);
        }
    }

    private int encodeCompact(int id, int off) {
        ensureEncoded(1 + stride);
        encoded[0] = COMPACT;
        System.arraycopy(slab(id).array(), off, encoded, 1, stride);
        return 1 + stride;
    }

    private void ensureEncoded(int length) {
        if (encoded.length < length) {
            encoded = new byte[Math.max(length, 2 * encoded.length)];
        }
    }

    @Override
    public void committed(long record) {
        boolean stored = false;
        for (int i = 0; i < writing; i++) {
            int id = dirty[i];
            byte f = flags(id);
            if ((f & STORED) == 0) {
                arena.stored(id);
                stored = true;
            }
            flags(id, (byte) (f & ~DIRTY | STORED));
        }
        hold(record); // each keeps its pin until the record is materialized
        System.arraycopy(dirty, writing, dirty, 0, dirtyCount - writing);
        dirtyCount -= writing;
        writing = 0;
        allowance = 0;
        if (stored) {
            arena.countStored();
        }
    }

    /** The entries just written (the first {@link #writing} of {@link #dirty}) are in changelog record {@code record}. */
    private void hold(long record) {
        if (writing == 0) {
            return;
        }
        if (heldCount + writing > held.length) {
            held = Arrays.copyOf(held, Math.max(2 * held.length, heldCount + writing));
        }
        System.arraycopy(dirty, 0, held, heldCount, writing);
        heldCount += writing;
        heldRecords.add(record, heldCount);
    }

    @Override
    public void materialized(long record) {
        int released = heldRecords.released(record);
        for (int i = 0; i < released; i++) {
            arena.unpin(held[i]);
        }
        System.arraycopy(held, released, held, 0, heldCount - released);
        heldCount -= released;
    }

    /**
     * Releases the slots from the arena and stops writing their changes (the metric is closed or dropped): what was
     * not committed is dropped.
     */
    void close() {
        if (closed) {
            return;
        }
        closed = true;
        family.removeOwner(this);
        for (int i = 0; i < dirtyCount; i++) {
            arena.unpin(dirty[i]);
        }
        dirtyCount = 0;
        for (int i = 0; i < heldCount; i++) {
            arena.unpin(held[i]);
        }
        heldCount = 0;
        heldRecords.clear();
        long wideBytes = 0;
        for (ByteBuffer row : wide.values()) {
            wideBytes += row.capacity();
        }
        arena.charge(-wideBytes);
        wide.clear();
        arena.leave(this);
    }
}
