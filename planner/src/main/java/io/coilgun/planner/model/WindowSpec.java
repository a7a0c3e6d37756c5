package io.coilgun.planner.model;

/**
 * A metric's window (docs/sql.md, "Window semantics"). Sizes and delays are in microseconds.
 * For a group whose clock is {@code T}: SLIDING keeps events with {@code T - d - w < t <= T - d},
 * TUMBLING {@code floor((T - d) / w) * w <= t <= T - d}, INFINITE {@code t <= T - d}.
 */
public record WindowSpec(Kind kind, long sizeMicros, long delayMicros) {

    public enum Kind { SLIDING, TUMBLING, INFINITE }

    public static WindowSpec sliding(long sizeMicros) {
        return new WindowSpec(Kind.SLIDING, sizeMicros, 0);
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder(kind.name());
        if (kind != Kind.INFINITE) {
            sb.append(' ').append(Durations.format(sizeMicros));
        }
        if (delayMicros > 0) {
            sb.append(" DELAYED BY ").append(Durations.format(delayMicros));
        }
        return sb.toString();
    }
}
