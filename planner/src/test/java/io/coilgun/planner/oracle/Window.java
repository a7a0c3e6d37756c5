package io.coilgun.planner.oracle;

/**
 * A window as docs/sql.md states it (Window semantics): which event times its value covers when its group's clock is
 * {@code T}. Sizes and delays are in microseconds; an INFINITE window has no size.
 */
public record Window(Kind kind, long size, long delay) {

    public enum Kind { SLIDING, TUMBLING, INFINITE }

    /** Whether an event at {@code t} is in the window of a group whose clock is {@code clock}: the table's interval. */
    public boolean contains(long t, long clock) {
        long upper = clock - delay;
        return switch (kind) {
            case SLIDING -> upper - size < t && t <= upper;
            case TUMBLING -> Math.floorDiv(upper, size) * size <= t && t <= upper;
            case INFINITE -> t <= upper;
        };
    }
}
