package io.coilgun.planner.oracle;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * The events of one group's window at one clock, in (event time, arrival) order, and a metric's aggregations over
 * them (docs/sql.md, CREATE METRIC).
 *
 * @param <E> the caller's event type
 */
public final class WindowEvents<E> {
    private final List<E> events;

    WindowEvents(List<E> events) {
        this.events = events;
    }

    /** The events, in (event time, arrival) order. */
    public List<E> events() {
        return Collections.unmodifiableList(events);
    }

    /**
     * The events a metric's {@code WHERE} keeps: those whose condition is true (a condition that is NULL in SQL must
     * answer false). The group's clock does not depend on it: it is the window's already.
     */
    public WindowEvents<E> where(Predicate<? super E> condition) {
        List<E> kept = new ArrayList<>();
        for (E e : events) {
            if (condition.test(e)) {
                kept.add(e);
            }
        }
        return new WindowEvents<>(kept);
    }

    /** {@code COUNT(*)}. */
    public long count() {
        return events.size();
    }

    /**
     * The aggregation of {@code argument} over the window (NULL arguments, returned as null, are ignored). An argument
     * is a value of its SQL type's Java class: see {@link Aggregation}.
     */
    public Object aggregate(Aggregation aggregation, Function<? super E, ?> argument) {
        return aggregation.over(arguments(argument));
    }

    /**
     * The non-NULL values of {@code argument} over the window, in (event time, arrival) order: what {@link
     * Aggregation#over} takes (to compute several aggregations of one argument from one list).
     */
    public List<Object> arguments(Function<? super E, ?> argument) {
        List<Object> values = new ArrayList<>(events.size());
        for (E e : events) {
            Object v = argument.apply(e);
            if (v != null) {
                values.add(v);
            }
        }
        return values;
    }
}
