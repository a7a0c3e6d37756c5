package io.coilgun.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coilgun.planner.oracle.Aggregation;
import io.coilgun.planner.oracle.WindowEvents;
import io.coilgun.tests.WindowOracle.Payment;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.Function;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Twelve metrics on one stream, every window kind and every aggregation, through SQL: metrics over SLIDING, SLIDING
 * DELAYED BY, TUMBLING, TUMBLING DELAYED BY, INFINITE and INFINITE DELAYED BY, and two with a WHERE filter and an
 * expression argument; events for 40 cards, a tenth of them out of order within the lateness; COUNT, SUM, STDDEV,
 * MIN, MAX, LAST, PREV and COUNT(DISTINCT expression) of every metric in every RETURNING row checked against the
 * shared oracle ({@link WindowOracle}), across a restart.
 */
@Tag("integration")
@Timeout(600)
@SecondNodeLane
class WindowKindsIT {
    static final long SECOND = 1_000_000L;
    static final long MINUTE = 60 * SECOND;

    record Metric(String name, String window, WindowOracle.Kind kind, long size, long delay, String sumOf,
            String where) {
        Metric(String name, String window, WindowOracle.Kind kind, long size, long delay) {
            this(name, window, kind, size, delay, "amount", null);
        }
    }

    static final List<Metric> METRICS = List.of(
            new Metric("s5m", "SLIDING 5 MINUTES", WindowOracle.Kind.SLIDING, 5 * MINUTE, 0),
            new Metric("s10m_d1m", "SLIDING 10 MINUTES DELAYED BY 1 MINUTE", WindowOracle.Kind.SLIDING, 10 * MINUTE,
                    MINUTE),
            new Metric("t1h", "TUMBLING 1 HOUR", WindowOracle.Kind.TUMBLING, 60 * MINUTE, 0),
            new Metric("t15m_d5s", "TUMBLING 15 MINUTES DELAYED BY 5 SECONDS", WindowOracle.Kind.TUMBLING,
                    15 * MINUTE, 5 * SECOND),
            new Metric("inf", "INFINITE", WindowOracle.Kind.INFINITE, 0, 0),
            new Metric("inf_d30s", "INFINITE DELAYED BY 30 SECONDS", WindowOracle.Kind.INFINITE, 0, 30 * SECOND),
            new Metric("big_s5m", "SLIDING 5 MINUTES", WindowOracle.Kind.SLIDING, 5 * MINUTE, 0, "amount * 2",
                    "amount > 250 AND card_id LIKE 'card-%'"),
            new Metric("s3s", "SLIDING 3 SECONDS", WindowOracle.Kind.SLIDING, 3 * SECOND, 0),
            new Metric("s1d", "SLIDING INTERVAL '1' DAY", WindowOracle.Kind.SLIDING, 24 * 60 * MINUTE, 0),
            new Metric("s2m_d20s", "SLIDING 2 MINUTES DELAYED BY 20 SECONDS", WindowOracle.Kind.SLIDING, 2 * MINUTE,
                    20 * SECOND),
            new Metric("t10s", "TUMBLING 10 SECONDS", WindowOracle.Kind.TUMBLING, 10 * SECOND, 0),
            new Metric("big_inf", "INFINITE", WindowOracle.Kind.INFINITE, 0, 0, "amount * 2",
                    "amount > 250 AND card_id LIKE 'card-%'"));

    @TempDir
    Path dir;

    @Test
    void everyWindowKindIsExactThroughSql() throws Exception {
        long seed = Long.getLong("coilgun.seed", System.nanoTime());
        System.out.println("WindowKindsIT seed=" + seed);
        Random rnd = new Random(seed);
        List<WindowOracle> oracles = new ArrayList<>();
        for (Metric m : METRICS) {
            oracles.add(new WindowOracle(m.kind(), m.size(), m.delay()));
        }
        long[] clock = {LocalDateTime.of(2026, 3, 1, 0, 0).toEpochSecond(ZoneOffset.UTC) * SECOND};
        long[] nextId = {1};
        try (TestNode node = new TestNode(dir)) {
            try (Connection c = node.connect(); Statement s = c.createStatement()) {
                s.execute(WalkingSkeletonIT.CREATE_STREAM);
                for (Metric m : METRICS) {
                    s.execute("CREATE METRIC " + m.name() + " AS SELECT COUNT(*) AS n, SUM(" + m.sumOf()
                            + ") AS total, STDDEV(amount) AS sd, MIN(amount) AS lo, MAX(amount) AS hi, LAST(amount), "
                            + "PREV(amount), COUNT(DISTINCT CAST(amount AS INTEGER) / 100) AS hundreds FROM payments"
                            + (m.where() == null ? "" : " WHERE " + m.where()) + " GROUP BY card_id OVER "
                            + m.window());
                }
                send(s, rnd, oracles, clock, nextId, 2_500);
            }
            node.restart();
            try (Connection c = node.connect(); Statement s = c.createStatement()) {
                send(s, rnd, oracles, clock, nextId, 500);
            }
        }
    }

    static void send(Statement s, Random rnd, List<WindowOracle> oracles, long[] clock, long[] nextId, int n)
            throws Exception {
        int sent = 0;
        while (sent < n) {
            int batch = Math.min(n - sent, 25);
            StringBuilder sql = new StringBuilder("INSERT INTO payments VALUES ");
            List<Object[]> events = new ArrayList<>();
            for (int i = 0; i < batch; i++) {
                clock[0] += 1 + (long) (rnd.nextDouble() * 4 * SECOND);
                long t = rnd.nextInt(10) == 0 ? clock[0] - (long) (rnd.nextDouble() * 8 * SECOND) : clock[0];
                String card = "card-" + (int) (40 * Math.pow(rnd.nextDouble(), 2));
                double amount = Math.round(rnd.nextDouble() * 50_000) / 100.0;
                long id = nextId[0]++;
                events.add(new Object[] {id, t, card, amount});
                LocalDateTime ts = LocalDateTime.ofEpochSecond(Math.floorDiv(t, SECOND),
                        (int) Math.floorMod(t, SECOND) * 1000, ZoneOffset.UTC);
                sql.append(i == 0 ? "" : ", ").append("(").append(id).append(", TIMESTAMP '")
                        .append(ts.toString().replace('T', ' ')).append("', '").append(card).append("', 'm', ")
                        .append(amount).append(")");
            }
            sql.append(" RETURNING *");
            try (ResultSet rs = s.executeQuery(sql.toString())) {
                for (Object[] e : events) {
                    assertTrue(rs.next());
                    long id = (Long) e[0];
                    assertEquals(id, rs.getLong("id"));
                    for (int m = 0; m < METRICS.size(); m++) {
                        Metric metric = METRICS.get(m);
                        WindowEvents<Payment> window = oracles.get(m).accept((String) e[2], (Long) e[1], (Double) e[3]);
                        Function<Payment, Object> sumOf = Payment::amount;
                        if (metric.where() != null) {
                            window = window.where(p -> p.amount() > 250); // every card is LIKE 'card-%'
                            sumOf = p -> p.amount() * 2;
                        }
                        String name = metric.name();
                        String where = "event " + id + " " + name;
                        assertEquals(window.count(), rs.getLong(name + "_n"), where + " count");
                        Double sum = (Double) window.aggregate(Aggregation.SUM, sumOf);
                        double total = rs.getDouble(name + "_total");
                        boolean totalNull = rs.wasNull();
                        assertEquals(sum == null, totalNull, where + " sum null");
                        if (!totalNull) {
                            assertEquals(sum, total, 1e-9 * Math.max(1, Math.abs(sum)), where + " sum");
                        }
                        // COUNT(DISTINCT CAST(amount AS INTEGER) / 100): CAST rounds half away from zero (the amounts
                        // are positive), / is integer division
                        assertEquals(window.aggregate(Aggregation.COUNT_DISTINCT, p -> Math.round(p.amount()) / 100),
                                rs.getLong(name + "_hundreds"), where + " count distinct");
                        List<Object> amounts = window.arguments(Payment::amount);
                        String[] columns = {"sd", "lo", "hi", "last", "prev"};
                        Aggregation[] aggregations = {Aggregation.STDDEV, Aggregation.MIN, Aggregation.MAX,
                            Aggregation.LAST, Aggregation.PREV};
                        for (int k = 0; k < columns.length; k++) {
                            double got = rs.getDouble(name + "_" + columns[k]);
                            boolean isNull = rs.wasNull();
                            Double want = (Double) aggregations[k].over(amounts);
                            assertEquals(want == null, isNull, where + " " + columns[k] + " null");
                            if (!isNull) {
                                assertEquals(want, got, 1e-9 * Math.max(1, Math.abs(want)), where + " " + columns[k]);
                            }
                        }
                    }
                }
            }
            sent += batch;
        }
    }
}
