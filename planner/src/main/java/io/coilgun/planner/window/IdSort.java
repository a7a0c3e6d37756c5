package io.coilgun.planner.window;

/** Sorts a range of an {@code int[]} of ids by a comparison of their own, in place, without boxing them. */
public final class IdSort {
    /** Compares two ids. */
    @FunctionalInterface
    public interface IdOrder {
        int compare(int a, int b);
    }

    private static final int INSERTION = 16;

    private IdSort() {
    }

    /** Sorts {@code ids[from .. to)} by {@code order} (quicksort, median of three; not stable). */
    public static void sort(int[] ids, int from, int to, IdOrder order) {
        int sorted = from + 1;
        while (sorted < to && order.compare(ids[sorted - 1], ids[sorted]) <= 0) {
            sorted++;
        }
        if (sorted >= to) {
            return; // already in order (ids taken in ascending order, as event ids often are): one pass
        }
        quicksort(ids, from, to, order);
    }

    private static void quicksort(int[] ids, int from, int to, IdOrder order) {
        while (to - from > INSERTION) {
            int mid = (from + to) >>> 1;
            int a = ids[from];
            int b = ids[mid];
            int c = ids[to - 1];
            int pivot = order.compare(a, b) < 0 ? (order.compare(b, c) < 0 ? b : order.compare(a, c) < 0 ? c : a)
                    : (order.compare(a, c) < 0 ? a : order.compare(b, c) < 0 ? c : b);
            int i = from;
            int j = to - 1;
            while (i <= j) {
                while (order.compare(ids[i], pivot) < 0) {
                    i++;
                }
                while (order.compare(ids[j], pivot) > 0) {
                    j--;
                }
                if (i <= j) {
                    int t = ids[i];
                    ids[i++] = ids[j];
                    ids[j--] = t;
                }
            }
            // the smaller side by recursion, the larger by the loop: the stack stays logarithmic
            if (j + 1 - from < to - i) {
                quicksort(ids, from, j + 1, order);
                from = i;
            } else {
                quicksort(ids, i, to, order);
                to = j + 1;
            }
        }
        for (int i = from + 1; i < to; i++) {
            int id = ids[i];
            int j = i - 1;
            while (j >= from && order.compare(ids[j], id) > 0) {
                ids[j + 1] = ids[j];
                j--;
            }
            ids[j + 1] = id;
        }
    }
}
