package io.coilgun.planner.plan;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * docs/sql.md's window semantics by brute force, written from the spec alone (no engine code): events are kept in
 * lists per group, and each result is computed from scratch over the events the spec's interval selects.
 */
final class SpecOracle {
    enum Kind { SLIDING, TUMBLING, INFINITE }

    record Event(long id, long time, String group, Double amount, long qty) {
    }

    private final Kind kind;
    private final long size;
    private final long delay;
    private final long lateness;
    private final Map<String, List<Event>> byGroup = new HashMap<>();
    private long streamTime = Long.MIN_VALUE;

    SpecOracle(Kind kind, long size, long delay, long lateness) {
        this.kind = kind;
        this.size = size;
        this.delay = delay;
        this.lateness = lateness;
    }

    /** Whether the event is late: older than the task's stream time minus the lateness. */
    boolean late(long time) {
        return streamTime != Long.MIN_VALUE && time < streamTime - lateness;
    }

    /**
     * Accepts the event and returns, for its group's window: COUNT(*), COUNT(amount), SUM(amount), AVG(amount),
     * STDDEV(amount), STDDEV_POP(amount), SUM(qty), MIN(amount), MAX(amount), LAST(amount), PREV(amount) (NULLs
     * ignored; LAST and PREV order by event time, then arrival), COUNT(DISTINCT qty), then for the filtered metric ({@code WHERE amount > 500}):
     * COUNT(*) and SUM(qty * 2) (NULL where SQL says so). Filters do not matter for the clock.
     */
    Object[] accept(Event e) {
        streamTime = Math.max(streamTime, e.time());
        List<Event> events = byGroup.computeIfAbsent(e.group(), g -> new ArrayList<>());
        events.add(e);
        long clock = Long.MIN_VALUE;
        for (Event x : events) {
            clock = Math.max(clock, x.time());
        }
        return valuesAt(events, clock);
    }

    /** The groups with events. */
    java.util.Set<String> groups() {
        return byGroup.keySet();
    }

    /** What {@link #accept} reports for {@code group} were its clock {@code clock} (SELECT: the stream time). */
    Object[] valuesAt(String group, long clock) {
        return valuesAt(byGroup.get(group), clock);
    }

    private Object[] valuesAt(List<Event> events, long clock) {
        long upper = clock - delay;
        List<Event> window = new ArrayList<>();
        for (Event x : events) {
            long t = x.time();
            boolean in = switch (kind) {
                case SLIDING -> clock - delay - size < t && t <= upper;
                case TUMBLING -> Math.floorDiv(clock - delay, size) * size <= t && t <= upper;
                case INFINITE -> t <= upper;
            };
            if (in) {
                window.add(x);
            }
        }
        long count = window.size();
        long n = 0;
        double sum = 0;
        long qty = 0;
        for (Event x : window) {
            qty += x.qty();
            if (x.amount() != null) {
                n++;
                sum += x.amount();
            }
        }
        Double avg = n == 0 ? null : sum / n;
        double m2 = 0;
        for (Event x : window) {
            if (x.amount() != null) {
                m2 += (x.amount() - avg) * (x.amount() - avg);
            }
        }
        Double stddev = n < 2 ? null : Math.sqrt(m2 / (n - 1));
        Double stddevPop = n == 0 ? null : Math.sqrt(m2 / n);
        long filtered = 0;
        long doubledQty = 0;
        for (Event x : window) {
            if (x.amount() != null && x.amount() > 500) {
                filtered++;
                doubledQty += x.qty() * 2;
            }
        }
        List<Event> valued = new ArrayList<>();
        for (Event x : window) {
            if (x.amount() != null) {
                valued.add(x);
            }
        }
        valued.sort((a, b) -> a.time() != b.time() ? Long.compare(a.time(), b.time()) : Long.compare(a.id(), b.id()));
        Double min = valued.stream().map(Event::amount).min(Double::compare).orElse(null);
        Double max = valued.stream().map(Event::amount).max(Double::compare).orElse(null);
        Double last = valued.isEmpty() ? null : valued.get(valued.size() - 1).amount();
        Double prev = valued.size() < 2 ? null : valued.get(valued.size() - 2).amount();
        long distinctQty = window.stream().map(Event::qty).distinct().count();
        return new Object[] {count, n, n == 0 ? null : sum, avg, stddev, stddevPop, count == 0 ? null : qty,
            min, max, last, prev, distinctQty, filtered, filtered == 0 ? null : doubledQty};
    }
}
