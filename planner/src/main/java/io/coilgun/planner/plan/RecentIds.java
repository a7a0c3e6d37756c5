package io.coilgun.planner.plan;

/**
 * The ids a task accepted within its dedup horizon, as a multiset of primitives in front of the RocksDB index
 * ({@link DuplicateIndex}): one {@code long} per accepted event, the high 40 bits of its id's hash and its event time
 * in seconds (low 24 bits). An id whose hash has no entry was certainly never accepted within the horizon, so the
 * usual event (a new id) costs no RocksDB read; a hash that is present (a retry, or one collision in 2^40) is
 * confirmed by the index itself.
 *
 * <p>Exact as a multiset: every accepted event adds its entry and its expiry removes one equal entry, so the entries
 * of a hash are never fewer than the accepted events of ids with that hash still in the horizon (no false "never
 * seen"). Open addressing, linear probing, deletes shift later entries back. Bounded: past {@code maxEntries} the
 * set gives up ({@link #saturated}) and every lookup goes to the index, as before it existed. Single-threaded.
 */
final class RecentIds {
    private final int maxEntries;
    private long[] table = new long[1 << 10];
    private int size;
    private boolean saturated;

    RecentIds(int maxEntries) {
        this.maxEntries = maxEntries;
    }

    /** Whether the set stopped tracking ids (it outgrew its bound): every id may then have been seen. */
    boolean saturated() {
        return saturated;
    }

    int size() {
        return size;
    }

    /** The bytes the set holds. */
    long bytes() {
        return 8L * table.length;
    }

    private static long entry(long hash, long timeMicros) {
        long e = (hash & 0xFFFFFFFFFF000000L) | (Math.floorDiv(timeMicros, 1_000_000L) & 0xFFFFFFL);
        return e == 0 ? 1 : e;
    }

    private static int home(long entry, int mask) {
        long h = entry >>> 24;
        return (int) (h ^ (h >>> 20)) & mask;
    }

    /** False when no id with this hash was accepted within the horizon (certainly); true when one may have been. */
    boolean mayContain(long hash) {
        if (saturated) {
            return true;
        }
        long prefix = hash & 0xFFFFFFFFFF000000L;
        int mask = table.length - 1;
        for (int i = home(entry(hash, 0), mask); ; i = (i + 1) & mask) {
            long e = table[i];
            if (e == 0) {
                return false;
            }
            if ((e & 0xFFFFFFFFFF000000L) == prefix || (prefix == 0 && e == 1)) {
                return true;
            }
        }
    }

    /** An event with an id of this hash was accepted at {@code timeMicros}. */
    void add(long hash, long timeMicros) {
        if (saturated) {
            return;
        }
        if (size + 1 > maxEntries) {
            saturated = true;
            table = new long[1];
            size = 0;
            return;
        }
        if (2 * (size + 1) > table.length) {
            grow();
        }
        insert(table, entry(hash, timeMicros));
        size++;
    }

    /** The accepted event with an id of this hash at {@code timeMicros} left the horizon; false if it had no entry. */
    boolean remove(long hash, long timeMicros) {
        if (saturated) {
            return false;
        }
        long e = entry(hash, timeMicros);
        int mask = table.length - 1;
        int cell = home(e, mask);
        while (table[cell] != e) {
            if (table[cell] == 0) {
                return false;
            }
            cell = (cell + 1) & mask;
        }
        int gap = cell;
        for (int next = (gap + 1) & mask; table[next] != 0; next = (next + 1) & mask) {
            int h = home(table[next], mask);
            if (((next - h) & mask) >= ((next - gap) & mask)) {
                table[gap] = table[next];
                gap = next;
            }
        }
        table[gap] = 0;
        size--;
        return true;
    }

    private static void insert(long[] t, long e) {
        int mask = t.length - 1;
        int i = home(e, mask);
        while (t[i] != 0) {
            i = (i + 1) & mask;
        }
        t[i] = e;
    }

    private void grow() {
        long[] bigger = new long[table.length * 2];
        for (long e : table) {
            if (e != 0) {
                insert(bigger, e);
            }
        }
        table = bigger;
    }
}
