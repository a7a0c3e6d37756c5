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
        return sqlRow(false);
    }

    /** The row as SQL literals, with its {@link #device} last when {@code devices}. */
    String sqlRow(boolean devices) {
        Instant t = Instant.ofEpochSecond(Math.floorDiv(timeMicros, 1_000_000), Math.floorMod(timeMicros, 1_000_000) * 1000);
        return "(" + id + ", TIMESTAMP '" + TS.format(t) + "', '" + card.replace("'", "''") + "', '"
                + merchant.replace("'", "''") + "', " + amount + (devices ? ", '" + device() + "'" : "") + ")";
    }

    /** The device the payment came from: each card uses three (a stream partitioned by device_id too). */
    String device() {
        return "d" + Math.floorMod(card.hashCode() * 3L + id % 3, 1_000_000L);
    }
}
