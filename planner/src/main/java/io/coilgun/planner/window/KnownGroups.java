package io.coilgun.planner.window;

/**
 * The 64-bit hashes of the group keys a metric has stored, in an open-addressing set of primitives: a key whose hash
 * is absent certainly has no row, so its first event costs no state-store read (with a million cards, most misses of
 * the state cache are cards seen for the first time). A hash collision only costs a needless read. Group rows live as
 * long as the metric, so the set is bounded by the number of groups; it is refilled from the rows at open.
 */
final class KnownGroups {
    private long[] table = new long[1 << 12];
    private int size;

    static long hash(byte[] key) {
        long h = 0xcbf29ce484222325L;
        for (byte b : key) {
            h = (h ^ (b & 0xff)) * 0x100000001b3L;
        }
        h ^= h >>> 33;
        h *= 0xff51afd7ed558ccdL;
        h ^= h >>> 33;
        h *= 0xc4ceb9fe1a85ec53L;
        h ^= h >>> 33;
        return h == 0 ? 1 : h;
    }

    boolean mayContain(byte[] key) {
        return mayContainHash(hash(key));
    }

    /** {@link #mayContain} of the key whose {@link #hash} is {@code h}. */
    boolean mayContainHash(long h) {
        int mask = table.length - 1;
        for (int i = (int) h & mask; ; i = (i + 1) & mask) {
            long v = table[i];
            if (v == 0) {
                return false;
            }
            if (v == h) {
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
        insert(table, h);
    }

    private boolean insert(long[] t, long h) {
        int mask = t.length - 1;
        for (int i = (int) h & mask; ; i = (i + 1) & mask) {
            if (t[i] == 0) {
                t[i] = h;
                if (t == table) {
                    size++;
                }
                return true;
            }
            if (t[i] == h) {
                return false;
            }
        }
    }

    private void grow() {
        long[] old = table;
        long[] bigger = new long[old.length * 2];
        for (long h : old) {
            if (h != 0) {
                int mask = bigger.length - 1;
                int i = (int) h & mask;
                while (bigger[i] != 0) {
                    i = (i + 1) & mask;
                }
                bigger[i] = h;
            }
        }
        table = bigger;
    }

    int size() {
        return size;
    }
}
