package io.coilgun.planner.window;

import io.coilgun.planner.event.GroupKeys;

/**
 * Fingerprints (32 bits of the 64-bit hash) of the group keys a metric has stored, in an open-addressing set of
 * primitives: a key whose fingerprint is absent certainly has no row, so its first event costs no state-store read
 * (with a million cards, most misses of the state cache are cards seen for the first time). A collision only costs a
 * needless read. Group rows live as long as the metric, so the set grows with the number of groups (8 bytes each at
 * most, counted in the group tables' budget); it is refilled from the rows at open.
 */
final class KnownGroups {
    /** 32-bit fingerprints (the hash's high half; 0 marks an empty slot): 8 bytes per group at most half full. */
    private int[] table = new int[1 << 8];
    private int size;

    static long hash(byte[] key) {
        return GroupKeys.hash(key, 0, key.length);
    }

    /** Whether the key whose {@link #hash} is {@code h} may have been stored (false: certainly not). */
    boolean mayContainHash(long h) {
        int f = fingerprint(h);
        int mask = table.length - 1;
        for (int i = f & mask; ; i = (i + 1) & mask) {
            int v = table[i];
            if (v == 0) {
                return false;
            }
            if (v == f) {
                return true;
            }
        }
    }

    void add(byte[] key) {
        addHash(hash(key));
    }

    /** {@link #add} of the key whose {@link #hash} is {@code h}. */
    void addHash(long h) {
        if (2 * (size + 1) > table.length) {
            grow();
        }
        if (insert(table, fingerprint(h))) {
            size++;
        }
    }

    /** The hash's high half, never 0 (the empty slot); its low bits are its home slot. */
    private static int fingerprint(long h) {
        int f = (int) (h >>> 32);
        return f == 0 ? 1 : f;
    }

    /** Inserts fingerprint {@code f}; false when it is there already. */
    private static boolean insert(int[] t, int f) {
        int mask = t.length - 1;
        for (int i = f & mask; ; i = (i + 1) & mask) {
            if (t[i] == 0) {
                t[i] = f;
                return true;
            }
            if (t[i] == f) {
                return false;
            }
        }
    }

    private void grow() {
        int[] bigger = new int[table.length * 2];
        for (int f : table) {
            if (f != 0) {
                insert(bigger, f);
            }
        }
        table = bigger;
    }

    void clear() {
        table = new int[1 << 8];
        size = 0;
    }

    /** The bytes the set holds (for the group tables' memory budget). */
    long bytes() {
        return 16L + 4L * table.length;
    }
}
