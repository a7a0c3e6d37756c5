package io.coilgun.storage.state;

import java.util.Arrays;

/**
 * What an {@link StateStore.Owner} wrote into changelog records not materialized yet, as positions in a list of its
 * own: for each record, oldest first, where its entries end in that list. {@link #released} says how many of the
 * list's first entries the records materialized so far hold, and forgets those records: the owner then drops (or
 * unpins) them and shifts the rest down by that much. Single-threaded, on the owner's thread.
 */
public final class HeldRecords {
    private long[] records = new long[16];
    private int[] ends = new int[16];
    private int count;

    /** Record {@code record} holds the owner's entries up to {@code end} (exclusive) of its list. */
    public void add(long record, int end) {
        if (count == records.length) {
            records = Arrays.copyOf(records, 2 * count);
            ends = Arrays.copyOf(ends, 2 * count);
        }
        records[count] = record;
        ends[count++] = end;
    }

    /**
     * Every record up to {@code record} is materialized: returns how many of the list's first entries they held (0
     * when none of them was held), and shifts the ends of the others down by that much.
     */
    public int released(long record) {
        int done = 0;
        while (done < count && records[done] <= record) {
            done++;
        }
        if (done == 0) {
            return 0;
        }
        int released = ends[done - 1];
        for (int r = done; r < count; r++) {
            records[r - done] = records[r];
            ends[r - done] = ends[r] - released;
        }
        count -= done;
        return released;
    }

    public void clear() {
        count = 0;
    }
}
