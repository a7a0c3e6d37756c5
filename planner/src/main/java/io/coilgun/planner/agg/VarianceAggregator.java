package io.coilgun.planner.agg;

import io.coilgun.planner.model.AggregationDef;
import java.nio.ByteBuffer;

/**
 * STDDEV (sample) and STDDEV_POP over a window with removals.
 *
 * <p>State: the count n and the moments {@code S1 = sum(x)} and {@code S2 = sum(x^2)}, each kept as a compensated
 * pair (hi, lo): squares are exact ({@code fma}), additions and removals are Neumaier steps. The variance
 * {@code (S2 - S1^2 / n) / (n - 1)} is then evaluated in double-double arithmetic, so the cancellation between S2
 * and S1^2/n (large when the spread is small next to the mean) costs nothing visible. This is used instead of
 * Welford's update because Welford's removal step carries the rounding error of every departed value in its running
 * mean for as long as the window lives; here an emptied window is exactly zero again.
 */
final class VarianceAggregator extends Aggregator {
    private final boolean sample;

    VarianceAggregator(AggregationDef def, boolean sample) {
        super(def);
        this.sample = sample;
    }

    @Override
    public int stateBytes() {
        return 8 + 4 * 8;
    }

    @Override
    public void add(ByteBuffer state, int at, Object value) {
        if (value != null) {
            state.putLong(at, state.getLong(at) + 1);
            accumulate(state, at + 8, ((Number) value).doubleValue());
        }
    }

    @Override
    public void remove(ByteBuffer state, int at, Object value) {
        if (value != null) {
            long n = state.getLong(at) - 1;
            state.putLong(at, n);
            if (n == 0) {
                for (int i = 0; i < 4; i++) {
                    state.putDouble(at + 8 + 8 * i, 0.0);
                }
            } else {
                accumulate(state, at + 8, -((Number) value).doubleValue());
            }
        }
    }

    /** Adds {@code x} (or removes it, when negated) to S1 and {@code x^2} to S2 (with x's sign). */
    private static void accumulate(ByteBuffer state, int at, double x) {
        neumaier(state, at, x);
        double ax = Math.abs(x);
        double p = ax * ax;
        double e = Math.fma(ax, ax, -p);
        double sign = Math.signum(x);
        neumaier(state, at + 16, sign * p);
        state.putDouble(at + 24, state.getDouble(at + 24) + sign * e);
    }

    private static void neumaier(ByteBuffer state, int at, double x) {
        double sum = state.getDouble(at);
        double comp = state.getDouble(at + 8);
        double t = sum + x;
        if (Math.abs(sum) >= Math.abs(x)) {
            comp += (sum - t) + x;
        } else {
            comp += (x - t) + sum;
        }
        state.putDouble(at, t).putDouble(at + 8, comp);
    }

    @Override
    public Object result(ByteBuffer state, int at) {
        long n = state.getLong(at);
        if (n == 0 || (sample && n == 1)) {
            return null;
        }
        // S1 and S2 as normalized double-double numbers
        double[] s1 = twoSum(state.getDouble(at + 8), state.getDouble(at + 16));
        double[] s2 = twoSum(state.getDouble(at + 24), state.getDouble(at + 32));
        // S1^2 / n in double-double
        double p = s1[0] * s1[0];
        double e = Math.fma(s1[0], s1[0], -p) + 2 * s1[0] * s1[1];
        double q = p / n;
        double r = (Math.fma(-q, n, p) + e) / n;
        // S2 - S1^2 / n
        double[] d = twoSum(s2[0], -q);
        double num = d[0] + (d[1] + s2[1] - r);
        double variance = Math.max(0.0, num / (sample ? n - 1 : n));
        return Math.sqrt(variance);
    }

    private static double[] twoSum(double a, double b) {
        double s = a + b;
        double bb = s - a;
        double err = (a - (s - bb)) + (b - bb);
        return new double[] {s, err};
    }
}
