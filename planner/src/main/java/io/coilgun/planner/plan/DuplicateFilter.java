package io.coilgun.planner.plan;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;

/**
 * Recognizes an event id the task already accepted, within the <em>dedup horizon</em>: ids of accepted events
 * with {@code t >= S - lateness}.
 *
 * <p>Why that far back is enough: a retry carries the original's event time. If the retry is not late, its time
 * is at least {@code S - lateness}, so the original (same time) is still inside the horizon and is found. A retry
 * that is late is handled by the stream's late-events policy before dedup is asked (rejected, dropped, or, with
 * {@code clamp}, counted again: dedup does not reach behind the horizon). An id reused with a different time is
 * found only if the earlier event is still inside the horizon.
 *
 * <p>Memory is bounded by the events of one lateness span, like the reservoir's open chunk; at start the filter is
 * refilled from the reservoir's events inside the horizon.
 */
final class DuplicateFilter {
    private final long lateness;
    private final Map<Object, Long> times = new HashMap<>();
    private final ArrayDeque<Object> arrivals = new ArrayDeque<>();
    private final ArrayDeque<Long> arrivalTimes = new ArrayDeque<>();

    DuplicateFilter(long lateness) {
        this.lateness = lateness;
    }

    /** True if {@code id} was accepted within the horizon. */
    boolean seen(Object id) {
        return times.containsKey(id);
    }

    /** Records an accepted event and forgets those that left the horizon ({@code t < streamTime - lateness}). */
    void accepted(Object id, long time, long streamTime) {
        times.merge(id, time, Math::max);
        arrivals.add(id);
        arrivalTimes.add(time);
        long horizon = streamTime - lateness;
        // Arrival order is almost time order: an entry waits behind a newer one at most one lateness span.
        while (!arrivalTimes.isEmpty() && arrivalTimes.peek() < horizon) {
            Object old = arrivals.poll();
            arrivalTimes.poll();
            Long t = times.get(old);
            if (t != null && t < horizon) {
                times.remove(old);
            }
        }
    }

    int size() {
        return times.size();
    }
}
