package io.coilgun.tests;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * docs/sql.md's window table by brute force, for the integration tests: per group, the accepted events; for an event,
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
     * clock (docs/sql.md), and COUNT and STDDEV stay over {@code amount}.
     */
    WindowOracle(Kind kind, long size, long delay, java.util.function.DoublePredicate filter,
            java.util.function.DoubleUnaryOperator sumArgument) {
        this.kind = kind;
        this.size = size;
        this.delay = delay;
        this.filter = filter;
        this.sumArgument = sumArgument;
    }

    /**
     * Accepts the event and returns {count, sum, stddev, min, max, last, prev, distinct hundreds} of its group's
     * window (NaN for NULL);
     * LAST and PREV order by event time, then arrival.
     */
    double[] accept(String group, long time, double amount) {
        List<double[]> events = byGroup.computeIfAbsent(group, g -> new ArrayList<>());
        events.add(new double[] {time, amount});
        long clock = Long.MIN_VALUE;
        for (double[] e : events) {
            clock = Math.max(clock, (long) e[0]);
        }
        long upper = clock - delay;
        List<Double> in = new ArrayList<>();
        List<double[]> ordered = new ArrayList<>();
        for (int idx = 0; idx < events.size(); idx++) {
            double[] e = events.get(idx);
            long t = (long) e[0];
            boolean inside = switch (kind) {
                case SLIDING -> clock - delay - size < t && t <= upper;
                case TUMBLING -> Math.floorDiv(clock - delay, size) * size <= t && t <= upper;
                case INFINITE -> t <= upper;
            };
            if (inside && filter.test(e[1])) {
                in.add(e[1]);
                ordered.add(new double[] {e[0], idx, e[1]});
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
        ordered.sort((a, b) -> a[0] != b[0] ? Double.compare(a[0], b[0]) : Double.compare(a[1], b[1]));
        double min = in.stream().mapToDouble(Double::doubleValue).min().orElse(Double.NaN);
        double max = in.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN);
        double last = ordered.isEmpty() ? Double.NaN : ordered.get(ordered.size() - 1)[2];
        double prev = ordered.size() < 2 ? Double.NaN : ordered.get(ordered.size() - 2)[2];
        // COUNT(DISTINCT CAST(amount AS INTEGER) / 100): CAST rounds half away from zero, / is integer division
        double hundreds = in.stream().mapToLong(a -> Math.round(a) / 100).distinct().count();
        return new double[] {in.size(), sum, in.size() < 2 ? Double.NaN : Math.sqrt(m2 / (in.size() - 1)), min, max,
            last, prev, hundreds};
    }
}
