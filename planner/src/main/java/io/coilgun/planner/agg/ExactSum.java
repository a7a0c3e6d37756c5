package io.coilgun.planner.agg;

import java.nio.ByteBuffer;

/**
 * An exact running sum of doubles in a fixed slot of a state buffer: Shewchuk's non-overlapping expansion (the
 * algorithm of Python's {@code math.fsum}). Adding and removing (adding {@code -x}) lose nothing, and
 * {@link #value} is the correctly rounded sum, so the result is one number whatever the order in which values
 * came and went: the same on replay, after a restart and with any number of partitions.
 *
 * <pre>
 * int  partial count, int NaN count, int +Infinity count, int -Infinity count, MAX doubles (partials)
 * </pre>
 * Non-finite values are counted apart so that they can leave again. With more than {@link #MAX} partials (which
 * needs values spread over more than ~500 binary orders of magnitude) the two smallest are merged, rounding.
 */
final class ExactSum {
    static final int MAX = 10;
    static final int BYTES = 16 + 8 * MAX;

    private ExactSum() {
    }

    /**
     * The compact form kept in a group's slot in memory: a {@code long} whose top 8 bits are the partial count (0 to
     * 2) and whose low 56 bits are the owner's (an aggregator keeps its count of values there), then up to two
     * partials. Finite values only; a sum that needs more is kept in the full form above ({@link #widen}).
     */
    static final int COMPACT_BYTES = 24;
    /** The low 56 bits of a compact sum's first long: not the sum's. */
    static final long OWNERS_BITS = (1L << 56) - 1;

    /**
     * Adds {@code x} to a compact sum; false, leaving it unchanged, when the result does not fit (a third partial, or
     * a non-finite value).
     */
    static boolean addCompact(ByteBuffer s, int at, double x) {
        if (!Double.isFinite(x)) {
            return false;
        }
        int n = (int) (s.getLong(at) >>> 56);
        double o0 = 0;
        double o1 = 0;
        double o2 = 0;
        int i = 0;
        for (int j = 0; j < n; j++) {
            double y = s.getDouble(at + 8 + 8 * j);
            if (Math.abs(x) < Math.abs(y)) {
                double t = x;
                x = y;
                y = t;
            }
            double hi = x + y;
            double lo = y - (hi - x);
            if (lo != 0.0) {
                if (i == 0) {
                    o0 = lo;
                } else {
                    o1 = lo;
                }
                i++;
            }
            x = hi;
        }
        if (x != 0.0 || i == 0) {
            if (i == 0) {
                o0 = x;
            } else if (i == 1) {
                o1 = x;
            } else {
                o2 = x;
            }
            i++;
        }
        if (i == 3) {
            // the same exact sum in as few non-overlapping partials as it needs: two, unless the values span more
            // than ~106 bits
            i = compress(o0, o1, o2, s, at);
            return i > 0;
        }
        s.putLong(at, s.getLong(at) & OWNERS_BITS | (long) i << 56);
        s.putDouble(at + 8, o0);
        s.putDouble(at + 16, o1);
        return true;
    }

    /**
     * Shewchuk's Compress of the expansion {@code e0 + e1 + e2} (non-overlapping, increasing magnitude): written to
     * the compact sum at {@code at} when it needs at most two partials; returns how many, or 0 (nothing written).
     */
    private static int compress(double e0, double e1, double e2, ByteBuffer s, int at) {
        // top down: g holds the components from index 'bottom' to 2
        double g0 = 0;
        double g1 = 0;
        double g2 = 0;
        int bottom = 2;
        double q = e2;
        for (int k = 1; k >= 0; k--) {
            double e = k == 1 ? e1 : e0;
            double sum = q + e;
            double err = e - (sum - q);
            if (err != 0) {
                if (bottom == 2) {
                    g2 = sum;
                } else {
                    g1 = sum;
                }
                bottom--;
                q = err;
            } else {
                q = sum;
            }
        }
        if (bottom == 2) {
            g2 = q;
        } else if (bottom == 1) {
            g1 = q;
        } else {
            g0 = q;
        }
        // bottom up
        double acc = bottom == 0 ? g0 : bottom == 1 ? g1 : g2;
        int count = 0;
        double h0 = 0;
        double h1 = 0;
        for (int k = bottom + 1; k <= 2; k++) {
            double g = k == 1 ? g1 : g2;
            double sum = g + acc;
            double err = acc - (sum - g);
            if (err != 0) {
                if (count == 2) {
                    return 0;
                }
                if (count == 0) {
                    h0 = err;
                } else {
                    h1 = err;
                }
                count++;
            }
            acc = sum;
        }
        if (count == 2) {
            return 0;
        }
        if (count == 0) {
            h0 = acc;
        } else {
            h1 = acc;
        }
        s.putLong(at, s.getLong(at) & OWNERS_BITS | (long) (count + 1) << 56);
        s.putDouble(at + 8, h0);
        s.putDouble(at + 16, h1);
        return count + 1;
    }

    /** The full form of a compact sum at {@code from}, written at {@code to} of {@code wide}. */
    static void widen(ByteBuffer compact, int from, ByteBuffer wide, int to) {
        int n = (int) (compact.getLong(from) >>> 56);
        wide.putInt(to, n).putInt(to + 4, 0).putInt(to + 8, 0).putInt(to + 12, 0);
        for (int j = 0; j < n; j++) {
            wide.putDouble(to + 16 + 8 * j, compact.getDouble(from + 8 + 8 * j));
        }
    }

    /**
     * The compact form of a full sum, when it has one: finite, and at most two partials once compressed (a sum the
     * full form built may have more partials than it needs).
     */
    static boolean narrow(ByteBuffer wide, int from, ByteBuffer compact, int to) {
        int n = wide.getInt(from);
        if (wide.getInt(from + 4) != 0 || wide.getInt(from + 8) != 0 || wide.getInt(from + 12) != 0) {
            return false;
        }
        if (n > 2) {
            double[] p = new double[n];
            for (int j = 0; j < n; j++) {
                p[j] = wide.getDouble(from + 16 + 8 * j);
            }
            n = compress(p, n);
            if (n > 2) {
                return false;
            }
            compact.putLong(to, compact.getLong(to) & OWNERS_BITS | (long) n << 56);
            compact.putDouble(to + 8, p[0]);
            compact.putDouble(to + 16, n > 1 ? p[1] : 0.0);
            return true;
        }
        compact.putLong(to, compact.getLong(to) & OWNERS_BITS | (long) n << 56);
        compact.putDouble(to + 8, n > 0 ? wide.getDouble(from + 16) : 0.0);
        compact.putDouble(to + 16, n > 1 ? wide.getDouble(from + 24) : 0.0);
        return true;
    }

    /**
     * Shewchuk's Compress, in place: the expansion {@code e[0 .. m)} (non-zero, non-overlapping, increasing magnitude)
     * as few such partials as it needs; returns how many.
     */
    static int compress(double[] e, int m) {
        double[] g = new double[m];
        int bottom = m - 1;
        double q = e[m - 1];
        for (int i = m - 2; i >= 0; i--) {
            double sum = q + e[i];
            double err = e[i] - (sum - q);
            if (err != 0) {
                g[bottom--] = sum;
                q = err;
            } else {
                q = sum;
            }
        }
        g[bottom] = q;
        int top = 0;
        q = g[bottom];
        for (int i = bottom + 1; i < m; i++) {
            double sum = g[i] + q;
            double err = q - (sum - g[i]);
            if (err != 0) {
                e[top++] = err;
            }
            q = sum;
        }
        e[top++] = q;
        return top;
    }

    static void add(ByteBuffer s, int at, double x) {
        if (!Double.isFinite(x)) {
            int slot = Double.isNaN(x) ? 4 : x > 0 ? 8 : 12;
            s.putInt(at + slot, s.getInt(at + slot) + 1);
            return;
        }
        grow(s, at, x);
    }

    static void remove(ByteBuffer s, int at, double x) {
        if (!Double.isFinite(x)) {
            int slot = Double.isNaN(x) ? 4 : x > 0 ? 8 : 12;
            s.putInt(at + slot, s.getInt(at + slot) - 1);
            return;
        }
        grow(s, at, -x);
    }

    /** Adds {@code x} to the expansion, keeping its partials non-overlapping and in increasing magnitude. */
    private static void grow(ByteBuffer s, int at, double x) {
        int n = s.getInt(at);
        int base = at + 16;
        int i = 0;
        for (int j = 0; j < n; j++) {
            double y = s.getDouble(base + 8 * j);
            if (Math.abs(x) < Math.abs(y)) {
                double t = x;
                x = y;
                y = t;
            }
            double hi = x + y;
            double lo = y - (hi - x);
            if (lo != 0.0) {
                s.putDouble(base + 8 * i, lo);
                i++;
            }
            x = hi;
        }
        if (x != 0.0 || i == 0) {
            if (i == MAX) {
                // merge the two smallest partials (rounding): only for values spread beyond any realistic range
                double merged = s.getDouble(base) + s.getDouble(base + 8);
                for (int k = 1; k < i - 1; k++) {
                    s.putDouble(base + 8 * k, s.getDouble(base + 8 * (k + 1)));
                }
                s.putDouble(base, merged);
                i--;
            }
            s.putDouble(base + 8 * i, x);
            i++;
        }
        s.putInt(at, i);
    }

    /** The correctly rounded sum. */
    static double value(ByteBuffer s, int at) {
        int nan = s.getInt(at + 4);
        int pos = s.getInt(at + 8);
        int neg = s.getInt(at + 12);
        if (nan > 0 || (pos > 0 && neg > 0)) {
            return Double.NaN;
        }
        if (pos > 0) {
            return Double.POSITIVE_INFINITY;
        }
        if (neg > 0) {
            return Double.NEGATIVE_INFINITY;
        }
        int n = s.getInt(at);
        int base = at + 16;
        if (n == 0) {
            return 0.0;
        }
        // fsum's final step: sum from the largest partial down, rounding half-way cases correctly
        double hi = s.getDouble(base + 8 * (n - 1));
        double lo = 0.0;
        int k = n - 1;
        while (k > 0) {
            double x = hi;
            double y = s.getDouble(base + 8 * (--k));
            hi = x + y;
            double yr = hi - x;
            lo = y - yr;
            if (lo != 0.0) {
                break;
            }
        }
        if (k > 0) {
            double next = s.getDouble(base + 8 * (k - 1));
            if ((lo < 0 && next < 0) || (lo > 0 && next > 0)) {
                double y = lo * 2;
                double x = hi + y;
                double yr = x - hi;
                if (y == yr) {
                    hi = x;
                }
            }
        }
        return hi;
    }

    /**
     * The sum as a canonical double-double {@code (hi, lo)}: hi the correctly rounded sum, lo the correctly rounded
     * rest. A function of the exact sum only.
     */
    static double[] doubleDouble(ByteBuffer s, int at) {
        double[] out = new double[2];
        doubleDouble(s, at, ByteBuffer.allocate(BYTES), out);
        return out;
    }

    /** {@link #doubleDouble(ByteBuffer, int)} into {@code out}, using {@code scratch} ({@link #BYTES}): no allocation. */
    static void doubleDouble(ByteBuffer s, int at, ByteBuffer scratch, double[] out) {
        double hi = value(s, at);
        out[0] = hi;
        if (!Double.isFinite(hi)) {
            out[1] = 0.0;
            return;
        }
        System.arraycopy(s.array(), s.arrayOffset() + at, scratch.array(), scratch.arrayOffset(), BYTES);
        grow(scratch, 0, -hi);
        out[1] = value(scratch, 0);
    }

    /** Sets the slot to an empty sum. */
    static void clear(ByteBuffer s, int at) {
        for (int i = 0; i < BYTES; i += 4) {
            s.putInt(at + i, 0);
        }
    }
}
