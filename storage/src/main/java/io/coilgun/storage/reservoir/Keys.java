package io.coilgun.storage.reservoir;

/** Events are ordered by key {@code (time, seq)}: event time, then arrival (the Kafka offset). */
final class Keys {
    /** Bytes counted per event on top of its payload when sizing chunks: time, seq, schema, length. */
    static final int EVENT_OVERHEAD = 24;

    private Keys() {
    }

    static int compare(long t1, long s1, long t2, long s2) {
        int c = Long.compare(t1, t2);
        return c != 0 ? c : Long.compare(s1, s2);
    }
}
