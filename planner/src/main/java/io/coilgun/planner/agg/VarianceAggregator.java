package io.coilgun.planner.agg;

import io.coilgun.planner.model.AggregationDef;
import java.nio.ByteBuffer;

/**
 * STDDEV (sample) and STDDEV_POP over a window with removals.
 *
 * <p>State: the count n and the moments {@code S1 = sum(x)} and {@code S2 = sum(x^2)} as {@link ExactSum}s (each
 * square enters exactly, as the two halves of {@code fma}). The variance {@code (S2 - S1^2 / n) / (n - 1)} is
 * evaluated in double-double from the canonical forms of the exact moments, so the result depends only on the
 * window's values: the same in any order of arrivals and departures (replay, restart, any number of partitions),
 * and accurate even when the spread is tiny next to the mean. (Welford's update is not used: its removal step
 * carries the rounding of departed values in its running mean.)
 */
final class VarianceAggregator extends Aggregator {
    /** Below this fraction of S2 the difference S2 - S1^2/n is beyond double-double resolution: zero. */
    private static final double RESOLUTION = 1e-28;

    private final boolean sample;

    VarianceAggregator(AggregationDef def, boolean sample) {
        super(def);
        this.sample = sample;
    }

    @Override
    public int stateBytes() {
        return 8 + 2 * ExactSum.BYTES;
    }

    @Override
    public void add(ByteBuffer state, int at, Object value) {
        if (value != null) {
            state.putLong(at, state.getLong(at) + 1);
            double x = ((Number) value).doubleValue();
            ExactSum.add(state, at + 8, x);
            double p = x * x;
            ExactSum.add(state, at + 8 + ExactSum.BYTES, p);
            ExactSum.add(state, at + 8 + ExactSum.BYTES, Math.fma(x, x, -p));
        }
    }

    @Override
    public void remove(ByteBuffer state, int at, Object value) {
        if (value != null) {
            state.putLong(at, state.getLong(at) - 1);
            double x = ((Number) value).doubleValue();
            ExactSum.remove(state, at + 8, x);
            double p = x * x;
            ExactSum.remove(state, at + 8 + ExactSum.BYTES, p);
            ExactSum.remove(state, at + 8 + ExactSum.BYTES, Math.fma(x, x, -p));
        }
    }

    @Override
    public Object result(ByteBuffer state, int at) {
        long n = state.getLong(at);
        if (n == 0 || (sample && n == 1)) {
            return null;
        }
        double[] s1 = ExactSum.doubleDouble(state, at + 8);
        double[] s2 = ExactSum.doubleDouble(state, at + 8 + ExactSum.BYTES);
        if (!Double.isFinite(s1[0]) || !Double.isFinite(s2[0])) {
            return Double.NaN;
        }
        // S1^2 / n in double-double
        double p = s1[0] * s1[0];
        double e = Math.fma(s1[0], s1[0], -p) + 2 * s1[0] * s1[1];
        double q = p / n;
        double r = (Math.fma(-q, n, p) + e) / n;
        // S2 - S1^2 / n
        double hi = s2[0] - q;
        double bb = hi - s2[0];
        double lo = (s2[0] - (hi - bb)) + (-q - bb);
        double num = hi + (lo + s2[1] - r);
        if (num <= RESOLUTION * Math.abs(s2[0])) {
            return 0.0;
        }
        return Math.sqrt(num / (sample ? n - 1 : n));
    }
}
