package io.coilgun.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coilgun.planner.oracle.Aggregation;
import io.coilgun.planner.oracle.WindowEvents;
import io.coilgun.tests.WindowOracle.Payment;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The walking skeleton end to end: a real node (embedded KRaft broker, RocksDB, Netty pgwire), pgjdbc, the
 * README's stream and metric, 20,000 events for 500 cards over 2 hours checked row by row against a brute-force
 * oracle of docs/sql.md, then a restart and more events that must still be exact.
 */
@Tag("integration")
@Timeout(600)
@SecondNodeLane
class WalkingSkeletonIT {
    static final String CREATE_STREAM = "CREATE STREAM payments (id BIGINT, ts TIMESTAMP, card_id VARCHAR, "
            + "merchant_id VARCHAR, amount DOUBLE) WITH (event_time = 'ts', event_id = 'id', "
            + "partition_by = 'card_id', partitions = 4)";
    static final String CREATE_METRIC = "CREATE METRIC card_5m AS SELECT SUM(amount) AS total, COUNT(*) AS n "
            + "FROM payments GROUP BY card_id OVER SLIDING INTERVAL '5' MINUTE";
    static final long FIVE_MINUTES = 300_000_000L;

    @TempDir
    Path dir;

    @Test
    void exactSlidingSumsThroughKafkaAndAcrossARestart() throws Exception {
        long seed = Long.getLong("coilgun.seed", System.nanoTime());
        System.out.println("WalkingSkeletonIT seed=" + seed + " (rerun with -Dcoilgun.seed=" + seed + ")");
        Random rnd = new Random(seed);
        WindowOracle oracle = new WindowOracle(WindowOracle.Kind.SLIDING, FIVE_MINUTES, 0);
        Generator gen = new Generator(rnd, 500,
                LocalDateTime.of(2026, 1, 2, 0, 0).toEpochSecond(ZoneOffset.UTC) * 1_000_000L,
                7_200_000_000L / 20_000);

        try (TestNode node = new TestNode(dir)) {
            try (Connection c = node.connect(); Statement s = c.createStatement()) {
                s.execute(CREATE_STREAM);
                s.execute(CREATE_METRIC);
                assertRow(s, "INSERT INTO payments VALUES (1, TIMESTAMP '2026-01-01 10:00:00', 'c1', 'm1', 10.0) "
                        + "RETURNING *", 1, 10.0, 1);
                assertRow(s, "INSERT INTO payments VALUES (2, TIMESTAMP '2026-01-01 10:04:59', 'c1', 'm2', 5.0) "
                        + "RETURNING *", 2, 15.0, 2);
                assertRow(s, "INSERT INTO payments VALUES (3, TIMESTAMP '2026-01-01 10:05:00', 'c1', 'm1', 1.0) "
                        + "RETURNING *", 3, 6.0, 2);

                int checked = sendAndCheck(s, gen, oracle, 20_000);
                assertEquals(20_000, checked);
            }
            node.restart();
            try (Connection c = node.connect(); Statement s = c.createStatement()) {
                int checked = sendAndCheck(s, gen, oracle, 2_000);
                assertEquals(2_000, checked);
            }
        }
    }

    /** Sends {@code n} events (mostly 50-row INSERTs, some single rows) and checks every RETURNING row. */
    static int sendAndCheck(Statement s, Generator gen, WindowOracle oracle, int n) throws SQLException {
        int checked = 0;
        while (checked < n) {
            int batch = Math.min(n - checked, gen.rnd.nextInt(10) == 0 ? 1 : 50);
            List<Generator.Event> events = new ArrayList<>();
            StringBuilder sql = new StringBuilder("INSERT INTO payments VALUES ");
            for (int i = 0; i < batch; i++) {
                Generator.Event e = gen.next();
                events.add(e);
                sql.append(i == 0 ? "" : ", ").append(e.valuesSql());
            }
            sql.append(" RETURNING *");
            try (ResultSet rs = s.executeQuery(sql.toString())) {
                for (Generator.Event e : events) {
                    assertTrue(rs.next(), "a RETURNING row per event");
                    WindowEvents<Payment> expected = oracle.accept(e.card(), e.time(), e.amount());
                    Double sum = (Double) expected.aggregate(Aggregation.SUM, Payment::amount);
                    String where = "event " + e.id() + " card " + e.card();
                    assertEquals(e.id(), rs.getLong("id"), where);
                    assertEquals(expected.count(), rs.getLong("card_5m_n"), where + " count");
                    double total = rs.getDouble("card_5m_total");
                    assertEquals(sum == null, rs.wasNull(), where + " sum null");
                    if (sum != null) {
                        assertEquals(sum, total, 1e-9 * Math.max(1, Math.abs(sum)), where + " sum");
                    }
                }
                checked += events.size();
            }
        }
        return checked;
    }

    static void assertRow(Statement s, String sql, long id, double total, long n) throws SQLException {
        try (ResultSet rs = s.executeQuery(sql)) {
            assertTrue(rs.next());
            assertEquals(3, rs.getMetaData().getColumnCount());
            assertEquals("id", rs.getMetaData().getColumnName(1));
            assertEquals("card_5m_total", rs.getMetaData().getColumnName(2));
            assertEquals("card_5m_n", rs.getMetaData().getColumnName(3));
            assertEquals(id, rs.getLong(1));
            assertEquals(total, rs.getDouble(2), 0.0);
            assertEquals(n, rs.getLong(3));
        }
    }

    /** Payments with increasing timestamps, Zipf-like skew over cards, amounts with cents. */
    static final class Generator {
        final Random rnd;
        final int cards;
        long time;
        final long meanGap;
        long nextId = 1000;

        Generator(Random rnd, int cards, long start, long meanGap) {
            this.rnd = rnd;
            this.cards = cards;
            this.time = start;
            this.meanGap = meanGap;
        }

        Event next() {
            time += 1 + (long) (rnd.nextDouble() * 2 * meanGap);
            double u = rnd.nextDouble();
            String card = "card-" + (int) (cards * u * u);
            double amount = Math.round(rnd.nextDouble() * rnd.nextDouble() * 100_000) / 100.0;
            return new Event(nextId++, time, card, "m" + rnd.nextInt(50), amount);
        }

        record Event(long id, long time, String card, String merchant, double amount) {
            String valuesSql() {
                LocalDateTime t = LocalDateTime.ofEpochSecond(time / 1_000_000, (int) (time % 1_000_000) * 1000,
                        ZoneOffset.UTC);
                return "(" + id + ", TIMESTAMP '" + t.toString().replace('T', ' ') + "', '" + card + "', '"
                        + merchant + "', " + amount + ")";
            }
        }
    }
}
