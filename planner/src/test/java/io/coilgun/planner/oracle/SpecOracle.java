package io.coilgun.planner.oracle;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.function.ToLongFunction;

/**
 * docs/sql.md's window semantics by brute force, written from the spec alone (no engine code), the one oracle every
 * module's tests check the engine against (the tests module reads it from the planner's test-jar). It keeps, per
 * group, the accepted events in arrival order, and reads a window from scratch over them: at the group's clock (the
 * largest event time among its accepted events) for the value reported with an event, at any clock for SELECT (the
 * task's stream time). Which events are accepted is the caller's to decide: {@link #late} judges lateness against the
 * stream time of the events accepted so far; a duplicate is simply not accepted.
 *
 * @param <E> the caller's event type, whose event time and group key the oracle reads through the functions given
 */
public final class SpecOracle<E> {
    private final Window window;
    private final ToLongFunction<? super E> time;
    private final Function<? super E, String> group;
    private final Map<String, List<E>> byGroup = new HashMap<>();
    /** Per group, the largest event time among its accepted events: {@link #clock} without reading them all again. */
    private final Map<String, Long> clocks = new HashMap<>();
    private long streamTime = Long.MIN_VALUE;

    public SpecOracle(Window window, ToLongFunction<? super E> time, Function<? super E, String> group) {
        this.window = window;
        this.time = time;
        this.group = group;
    }

    /** Whether an event at {@code t} is late: older than the stream time (of all groups) minus the lateness. */
    public boolean late(long t, long lateness) {
        return streamTime != Long.MIN_VALUE && t < streamTime - lateness;
    }

    /** Accepts the event; returns its group's window at the group's clock, as reported with the event. */
    public WindowEvents<E> accept(E event) {
        String key = group.apply(event);
        byGroup.computeIfAbsent(key, k -> new ArrayList<>()).add(event);
        long t = time.applyAsLong(event);
        streamTime = Math.max(streamTime, t);
        return at(key, clocks.merge(key, t, Math::max));
    }

    /** The group's clock: the largest event time among its accepted events. */
    public long clock(String key) {
        long clock = Long.MIN_VALUE;
        for (E e : events(key)) {
            clock = Math.max(clock, time.applyAsLong(e));
        }
        return clock;
    }

    /**
     * The group's window were its clock {@code clock}: its accepted events with an event time in the window's
     * interval, in (event time, arrival) order.
     */
    public WindowEvents<E> at(String key, long clock) {
        List<E> in = new ArrayList<>();
        for (E e : events(key)) {
            if (window.contains(time.applyAsLong(e), clock)) {
                in.add(e);
            }
        }
        in.sort(Comparator.comparingLong(time)); // stable: arrival order among equal times
        return new WindowEvents<>(in);
    }

    /** The groups with accepted events. */
    public Set<String> groups() {
        return Collections.unmodifiableSet(byGroup.keySet());
    }

    /** The largest event time among all accepted events (Long.MIN_VALUE before the first). */
    public long streamTime() {
        return streamTime;
    }

    private List<E> events(String key) {
        List<E> events = byGroup.get(key);
        if (events == null) {
            throw new IllegalArgumentException("no accepted event of group " + key);
        }
        return events;
    }
}
