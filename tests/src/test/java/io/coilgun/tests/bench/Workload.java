package io.coilgun.tests.bench;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** The benchmark's stream, its metric sets, and history preloaded before a measured run. */
final class Workload {
    static final String STREAM_DDL = streamDdl("card_id");

    /**
     * The benchmark stream partitioned by {@code partitionBy} ({@code card_id}, {@code card_id, merchant_id} or
     * {@code card_id, merchant_id, device_id}; with device_id the stream has that column last).
     */
    static String streamDdl(String partitionBy) {
        return "CREATE STREAM payments (id BIGINT, ts TIMESTAMP, card_id VARCHAR, merchant_id VARCHAR, amount DOUBLE"
                + (partitionBy.contains("device_id") ? ", device_id VARCHAR" : "") + ") WITH (event_time = 'ts', "
                + "event_id = 'id', partition_by = '" + partitionBy + "', partitions = 4)";
    }

    private Workload() {
    }

    /**
     * The metrics of a metric set: {@code a} is the paper's SUM(amount) by card over 60 minutes, {@code b} SUM, AVG
     * and COUNT by card over 5 minutes; {@code ab} both.
     */
    static List<String> metricSet(String set) {
        List<String> out = new ArrayList<>();
        if (set.contains("a")) {
            out.add("CREATE METRIC card_60m AS SELECT SUM(amount) AS total FROM payments GROUP BY card_id "
                    + "OVER SLIDING INTERVAL '60' MINUTE");
        }
        if (set.contains("b")) {
            out.add(sumAvgCount("card_5m", "SLIDING INTERVAL '5' MINUTE"));
        }
        if (out.isEmpty()) {
            throw new IllegalArgumentException("--metrics is a, b or ab, not " + set);
        }
        return out;
    }

    /** SUM, AVG and COUNT of amount by card over {@code window} (SQL after OVER). */
    static String sumAvgCount(String name, String window) {
        return "CREATE METRIC " + name + " AS SELECT SUM(amount) AS total, AVG(amount) AS mean, COUNT(*) AS n "
                + "FROM payments GROUP BY card_id OVER " + window;
    }

    static void define(BenchNode node, List<String> metrics) throws SQLException {
        define(node, metrics, "card_id");
    }

    /**
     * The stream partitioned by {@code partitionBy} and its metrics; each partitioner besides card_id gets SUM, AVG
     * and COUNT by its column over 5 minutes.
     */
    static void define(BenchNode node, List<String> metrics, String partitionBy) throws SQLException {
        try (Connection c = node.connect(120); Statement s = c.createStatement()) {
            s.execute(streamDdl(partitionBy));
            for (String field : partitionBy.split(",")) {
                if (!field.isBlank() && !field.trim().equals("card_id")) {
                    s.execute("CREATE METRIC " + field.trim() + "_5m AS SELECT SUM(amount) AS total, AVG(amount) AS "
                            + "mean, COUNT(*) AS n FROM payments GROUP BY " + field.trim()
                            + " OVER SLIDING INTERVAL '5' MINUTE");
                }
            }
            for (String m : metrics) {
                s.execute(m);
            }
        }
    }

    /** An interval in SQL ({@code INTERVAL '7' DAY}) for a size written 5m, 1h, 1d, 7d, 365d, 90s. */
    static String interval(String size) {
        long n = Long.parseLong(size.substring(0, size.length() - 1));
        String unit = switch (size.charAt(size.length() - 1)) {
            case 's' -> "SECOND";
            case 'm' -> "MINUTE";
            case 'h' -> "HOUR";
            case 'd' -> "DAY";
            default -> throw new IllegalArgumentException("a size is a number and s, m, h or d: " + size);
        };
        return "INTERVAL '" + n + "' " + unit;
    }

    static long micros(String size) {
        long n = Long.parseLong(size.substring(0, size.length() - 1));
        return n * switch (size.charAt(size.length() - 1)) {
            case 's' -> 1_000_000L;
            case 'm' -> 60_000_000L;
            case 'h' -> 3_600_000_000L;
            case 'd' -> 86_400_000_000L;
            default -> throw new IllegalArgumentException(size);
        };
    }

    /**
     * Preloads history through multi-row INSERTs on one connection, in event-time order: {@code background} events
     * spread evenly over {@code (now - span, now - 1 min)}, merged with a dense band at {@code bandRate} events/s over
     * {@code (now - bandFrom, now - bandTo]}, which the windows' tails walk through during the measured run (so they
     * read old chunks from disk at the live event rate).
     */
    static void preload(BenchNode node, PaymentGenerator gen, long nowMicros, long spanMicros, long background,
            long bandFromMicros, long bandToMicros, double bandRate, String label) throws SQLException {
        long banded = Math.max(0, (long) ((bandFromMicros - bandToMicros) / 1e6 * bandRate));
        long total = background + banded;
        long spread = spanMicros - 60_000_000L;
        System.out.printf(Locale.ROOT, "%s: preloading %d events of history (%d over %.1f days, %d at %.0f events/s "
                + "over the %.1f minutes the tails will pass)%n", label, total, background, spanMicros / 86_400e6,
                banded, bandRate, (bandFromMicros - bandToMicros) / 60e6);
        long t0 = System.nanoTime();
        try (Connection c = node.connect(300); Statement s = c.createStatement()) {
            StringBuilder sql = new StringBuilder();
            int rows = 0;
            long lastReport = t0;
            long i = 0;
            long j = 0;
            for (long n = 0; n < total; n++) {
                long tb = i < background ? nowMicros - spanMicros + (long) (spread * (double) i / background)
                        : Long.MAX_VALUE;
                long td = j < banded ? nowMicros - bandFromMicros + (long) (j * 1e6 / bandRate) : Long.MAX_VALUE;
                long t;
                if (tb <= td) {
                    t = tb;
                    i++;
                } else {
                    t = td;
                    j++;
                }
                sql.append(rows == 0 ? "INSERT INTO payments VALUES " : ", ").append(gen.next(t).sqlRow());
                if (++rows == 500 || n == total - 1) {
                    s.execute(sql.toString());
                    sql.setLength(0);
                    rows = 0;
                }
                if (System.nanoTime() - lastReport > 5e9) {
                    lastReport = System.nanoTime();
                    System.out.printf(Locale.ROOT, "%s: preloaded %d / %d (%.0f events/s)%n", label, n + 1, total,
                            (n + 1) / ((lastReport - t0) / 1e9));
                }
            }
        }
        System.out.printf(Locale.ROOT, "%s: preloaded %d events in %.1f s%n", label, total,
                (System.nanoTime() - t0) / 1e9);
    }

    /**
     * Continues a band preloaded up to {@code fromMicros} at {@code bandRate} events/s up to a second before now,
     * again until the gap is under a second: the preload takes wall time, and without this the first live event would
     * move the stream time (and every window's tail) across that whole gap at once.
     */
    static void closeGap(BenchNode node, PaymentGenerator gen, long fromMicros, double bandRate, String label)
            throws SQLException {
        long from = fromMicros;
        try (Connection c = node.connect(300); Statement s = c.createStatement()) {
            for (int pass = 0; pass < 8; pass++) {
                long upTo = System.currentTimeMillis() * 1000 - 1_000_000L;
                if (upTo - from < 1_000_000L) {
                    return;
                }
                long n = (long) ((upTo - from) / 1e6 * bandRate);
                System.out.printf(Locale.ROOT, "%s: closing the %.1f s gap to now with %d more events%n", label,
                        (upTo - from) / 1e6, n);
                StringBuilder sql = new StringBuilder();
                for (long j = 1; j <= n; j++) {
                    long t = from + (upTo - from) * j / n;
                    sql.append(sql.length() == 0 ? "INSERT INTO payments VALUES " : ", ").append(gen.next(t).sqlRow());
                    if (j % 500 == 0 || j == n) {
                        s.execute(sql.toString());
                        sql.setLength(0);
                    }
                }
                from = upTo;
            }
        }
    }
}
