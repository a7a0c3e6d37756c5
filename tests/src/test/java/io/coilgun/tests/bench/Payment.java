package io.coilgun.tests.bench;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

/** One card payment of the benchmark workload; {@code timeMicros} is its event time. */
record Payment(long id, long timeMicros, String card, String merchant, double amount) {
    private static final DateTimeFormatter TS = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSSSSS")
            .withZone(ZoneOffset.UTC);

    /** The row as SQL literals, for {@code INSERT INTO payments VALUES (...)}. */
    String sqlRow() {
        Instant t = Instant.ofEpochSecond(Math.floorDiv(timeMicros, 1_000_000), Math.floorMod(timeMicros, 1_000_000) * 1000);
        return "(" + id + ", TIMESTAMP '" + TS.format(t) + "', '" + card.replace("'", "''") + "', '"
                + merchant.replace("'", "''") + "', " + amount + ")";
    }
}
