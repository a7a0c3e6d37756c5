package io.coilgun.tests;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * docs/sql.md's sliding-window semantics by brute force, written without the engine: for an event of group g,
 * T is the largest event time of g's accepted events, and the window holds g's accepted events with
 * {@code T - w < t <= T}.
 */
final class SlidingWindowOracle {
    private final long windowMicros;
    private final Map<String, List<long[]>> timesByGroup = new HashMap<>();
    private final Map<String, List<Double>> valuesByGroup = new HashMap<>();

    SlidingWindowOracle(long windowMicros) {
        this.windowMicros = windowMicros;
    }

    /** Accepts an event and returns {sum, count} of its group's window, as of this event. */
    double[] accept(String group, long time, double value) {
        timesByGroup.computeIfAbsent(group, g -> new ArrayList<>()).add(new long[] {time});
        valuesByGroup.computeIfAbsent(group, g -> new ArrayList<>()).add(value);
        List<long[]> times = timesByGroup.get(group);
        List<Double> values = valuesByGroup.get(group);
        long clock = Long.MIN_VALUE;
        for (long[] t : times) {
            clock = Math.max(clock, t[0]);
        }
        double sum = 0;
        long count = 0;
        for (int i = 0; i < times.size(); i++) {
            long t = times.get(i)[0];
            if (t > clock - windowMicros && t <= clock) {
                sum += values.get(i);
                count++;
            }
        }
        return new double[] {sum, count};
    }
}
