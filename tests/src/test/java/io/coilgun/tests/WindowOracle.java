package io.coilgun.tests;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * SPEC.md's window table by brute force, for the integration tests: per group, the accepted events; for an event,
 * T is its group's largest event time and the window is the interval of the metric's window kind.
 */
final class WindowOracle {
    enum Kind { SLIDING, TUMBLING, INFINITE }

    private final Kind kind;
    private final long size;
    private final long delay;
    private final java.util.function.DoublePredicate filter;
    private final java.util.function.DoubleUnaryOperator sumArgument;
    private final Map<String, List<double[]>> byGroup = new HashMap<>();

    WindowOracle(Kind kind, long size, long delay) {
        this(kind, size, delay, a -> true, a -> a);
    }

    /**
     * A metric with {@code WHERE filter(amount)} and {@code SUM(sumArgument(amount))}; the filter does not touch the
     * clock (SPEC.md), and COUNT and STDDEV stay over {@code amount}.
     */
    WindowOracle(Kind kind, long size, long delay, java.util.function.DoublePredicate filter,
            java.util.function.DoubleUnaryOperator sumArgument) {
        this.kind = kind;
        this.size = size;
        this.delay = delay;
        this.filter = filter;
        this.sumArgument = sumArgument;
    }

    /** Accepts the event and returns {count, sum, stddev (NaN when NULL)} of its group's window. */
    double[] accept(String group, long time, double amount) {
        List<double[]> events = byGroup.computeIfAbsent(group, g -> new ArrayList<>());
        events.add(new double[] {time, amount});
        long clock = Long.MIN_VALUE;
        for (double[] e : events) {
            clock = Math.max(clock, (long) e[0]);
        }
        long upper = clock - delay;
        List<Double> in = new ArrayList<>();
        for (double[] e : events) {
            long t = (long) e[0];
            boolean inside = switch (kind) {
                case SLIDING -> clock - delay - size < t && t <= upper;
                case TUMBLING -> Math.floorDiv(clock - delay, size) * size <= t && t <= upper;
                case INFINITE -> t <= upper;
            };
            if (inside && filter.test(e[1])) {
                in.add(e[1]);
            }
        }
        double sum = 0;
        double plain = 0;
        for (double v : in) {
            sum += sumArgument.applyAsDouble(v);
            plain += v;
        }
        double mean = in.isEmpty() ? 0 : plain / in.size();
        double m2 = 0;
        for (double v : in) {
            m2 += (v - mean) * (v - mean);
        }
        return new double[] {in.size(), sum, in.size() < 2 ? Double.NaN : Math.sqrt(m2 / (in.size() - 1))};
    }
}
