package io.coilgun.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code CREATE METRIC … WITH (backfill = …)} on a real node (embedded broker, RocksDB, pgwire through pgjdbc): a
 * metric created after two hours of history (many cards, out-of-order events, late ones dropped) and filled from
 * it, while a client keeps inserting. Its reference is a metric with the same SELECT that existed from the start
 * (the live path, itself checked against brute force by the window oracle tests): once the backfilled metric is live,
 * every value it reports, in RETURNING and in SELECT, equals the reference's. With {@code backfill = '30 minutes'}
 * and a 10-minute window, every value it reports lies in the span too. On 1 and on 4 partitions, and across a
 * restart of the node in the middle of the backfill.
 */
@Tag("integration")
@Timeout(300)
class BackfillIT {
    static final long T0 = Timestamp.valueOf("2026-03-01 08:00:00").getTime();
    static final String SELECT = "SELECT SUM(amount) AS total, COUNT(*) AS n, MAX(amount) AS hi, "
            + "COUNT(DISTINCT shop) AS shops, LAST(amount) AS last_amount FROM pay GROUP BY card "
            + "OVER SLIDING 10 MINUTES";
    static final String[] AGGREGATIONS = {"total", "n", "hi", "shops", "last_amount"};

    @TempDir
    Path dir;

    long nextId;
    long clock = T0;
    /** The event time of the last event {@link #insertOne} sent. */
    long lastTime;
    final Random rnd = new Random(42);

    @ParameterizedTest(name = "{0} partition(s), restart in the middle: {1}")
    @ValueSource(strings = {"1,false", "4,false", "4,true"})
    void aBackfilledMetricReportsWhatTheMetricThatRanFromTheStartReports(String args) throws Exception {
        int partitions = Integer.parseInt(args.split(",")[0]);
        boolean restart = Boolean.parseBoolean(args.split(",")[1]);
        try (TestNode node = new TestNode(dir)) {
            try (Connection c = node.connect(); Statement s = c.createStatement()) {
                s.execute("CREATE STREAM pay (id BIGINT, ts TIMESTAMP, card VARCHAR, shop VARCHAR, amount DOUBLE, "
                        + "note VARCHAR) WITH (event_id = 'id', partition_by = 'card', partitions = " + partitions
                        + ", lateness = '1 minute', late_events = 'drop')");
                s.execute("CREATE METRIC ref AS " + SELECT);
                // two hours of history, then a few events that make the backfill slow (a test fault), so that it
                // is still going while live events come and, in one case, while the node restarts
                insertHistory(c, 3000, 2400);
                // (one card: one task, whose backfill then sleeps 8 x 2 x that long, at a quarter of a core)
                insertRows(c, 8, 0, "coilgun:slow-backfill:" + (restart ? 250 : 100), "slow");
                s.execute("CREATE METRIC bf_all AS " + SELECT + " WITH (backfill = 'all')");
                s.execute("CREATE METRIC bf_30m AS " + SELECT + " WITH (backfill = '30 minutes')");
                try (ResultSet rs = s.executeQuery("SHOW METRICS")) {
                    while (rs.next()) {
                        if (rs.getString("name").equals("bf_30m")) {
                            assertTrue(rs.getString("history").contains("last 30 minutes"), rs.getString("history"));
                        }
                    }
                }
            }
            if (restart) {
                assertTrue(awaitBackfilling(node) != null, "coilgun.metrics shows the backfill");
                node.restart(); // in the middle of the backfill: it begins again from its start
            }
            // live events while the metrics fill: nothing of them is lost or counted twice
            AtomicReference<Throwable> failed = new AtomicReference<>();
            Thread live = new Thread(() -> {
                try (Connection c = node.connect()) {
                    for (int i = 0; i < 30; i++) {
                        insertRows(c, 5, 0, "", null);
                        Thread.sleep(30);
                    }
                } catch (Throwable t) {
                    failed.set(t);
                }
            });
            live.start();
            Map<String, Object[]> seen = awaitBackfilling(node);
            live.join();
            assertNull(failed.get(), "live inserts during the backfill");
            awaitRunning(node, List.of("bf_all", "bf_30m"));
            assertTrue(seen != null, "coilgun.metrics showed the backfill");
            assertTrue(seen.values().stream().anyMatch(v -> v[0].equals("backfilling") && (Long) v[1] > 0),
                    "the backfill's total is known");
            try (Connection c = node.connect()) {
                // every value after the backfill, per event, is the reference's
                for (int i = 0; i < 200; i++) {
                    try (ResultSet rs = insertOne(c, rnd.nextInt(10) == 0 ? 30_000 : 0, "")) {
                        assertTrue(rs.next());
                        for (String metric : List.of("bf_all", "bf_30m")) {
                            for (String a : AGGREGATIONS) {
                                assertEquals(rs.getObject("ref_" + a), rs.getObject(metric + "_" + a),
                                        metric + "_" + a + " of event " + rs.getLong("id"));
                            }
                        }
                    }
                }
                // and so is every group's current value
                Map<String, List<Object>> ref = current(c, "ref");
                assertTrue(ref.size() > 50, "cards: " + ref.size());
                assertSameValues(ref, current(c, "bf_all"), "SELECT over bf_all");
                assertSameValues(ref, current(c, "bf_30m"), "SELECT over bf_30m");
            }
        }
    }

    /**
     * REPLAY of a metric's SELECT over the whole history gives, for each event, the values the metric that ran from
     * the start returned for it live; BETWEEN keeps the events of that span; JDBC reads it with a fetch size, and
     * COPY (REPLAY …) TO STDOUT streams it.
     */
    @org.junit.jupiter.api.Test
    void aReplayGivesTheValuesTheLivePathGave() throws Exception {
        try (TestNode node = new TestNode(dir); Connection c = node.connect(); Statement s = c.createStatement()) {
            s.execute("CREATE STREAM pay (id BIGINT, ts TIMESTAMP, card VARCHAR, shop VARCHAR, amount DOUBLE, "
                    + "note VARCHAR) WITH (event_id = 'id', partition_by = 'card', partitions = 4, "
                    + "lateness = '1 minute', late_events = 'drop')");
            s.execute("CREATE METRIC ref AS " + SELECT);
            Map<Long, List<Object>> live = new HashMap<>();
            Map<Long, Long> times = new HashMap<>();
            for (int i = 0; i < 600; i++) {
                try (ResultSet rs = insertOne(c, rnd.nextInt(5) == 0 ? 50_000 : 0, "")) {
                    assertTrue(rs.next());
                    List<Object> values = new ArrayList<>();
                    for (String a : AGGREGATIONS) {
                        values.add(rs.getObject("ref_" + a));
                    }
                    live.put(rs.getLong("id"), values);
                    times.put(rs.getLong("id"), lastTime);
                }
            }
            c.setAutoCommit(false); // a fetch size needs a transaction in pgjdbc (a portal read in pages)
            int rows = 0;
            try (Statement replay = c.createStatement()) {
                replay.setFetchSize(50);
                try (ResultSet rs = replay.executeQuery("REPLAY " + SELECT)) {
                    while (rs.next()) {
                        long id = rs.getLong("id");
                        List<Object> values = new ArrayList<>();
                        for (String a : AGGREGATIONS) {
                            values.add(rs.getObject(a));
                        }
                        assertEquals(live.get(id), values, "the replayed values of event " + id);
                        rows++;
                    }
                }
            }
            c.commit();
            c.setAutoCommit(true);
            assertEquals(live.size(), rows, "one row per event");
            // a span: the events of that hour of event time
            long from = T0 + 20 * 60_000;
            long to = T0 + 80 * 60_000;
            long inSpan = times.values().stream().filter(t -> t >= from && t <= to).count();
            String between = " BETWEEN TIMESTAMP '" + new Timestamp(from) + "' AND TIMESTAMP '" + new Timestamp(to)
                    + "'";
            try (ResultSet rs = s.executeQuery("REPLAY " + SELECT + between)) {
                int n = 0;
                while (rs.next()) {
                    long t = rs.getTimestamp("ts").getTime();
                    assertTrue(t >= from && t <= to, "in the span: " + rs.getTimestamp("ts"));
                    n++;
                }
                assertEquals(inSpan, n, "the events of the span");
            }
            java.io.StringWriter out = new java.io.StringWriter();
            long copied = c.unwrap(org.postgresql.PGConnection.class).getCopyAPI()
                    .copyOut("COPY (REPLAY " + SELECT + between + ") TO STDOUT", out);
            assertEquals(inSpan, copied, "COPY (REPLAY …) TO STDOUT: " + out.toString().lines().findFirst());
        }
    }

    /** Events over {@code cards} cards, a few seconds apart, a quarter out of order (some by more than the lateness). */
    void insertHistory(Connection c, int events, int cards) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO pay VALUES (?, ?, ?, ?, ?, ?)")) {
            for (int i = 0; i < events; i++) {
                clock += rnd.nextInt(4800);
                long t = clock - (rnd.nextInt(4) == 0 ? rnd.nextInt(70_000) : 0);
                bind(ps, t, "c" + rnd.nextInt(cards / 10 + 1 + i / 10), "");
                ps.addBatch();
                if (i % 200 == 199) {
                    ps.executeBatch();
                }
            }
            ps.executeBatch();
        }
    }

    void insertRows(Connection c, int n, long maxLateMs, String note, String card) throws SQLException {
        for (int i = 0; i < n; i++) {
            insertOne(c, maxLateMs, note, card).close();
        }
    }

    ResultSet insertOne(Connection c, long maxLateMs, String note) throws SQLException {
        return insertOne(c, maxLateMs, note, null);
    }

    /** One event, {@code maxLateMs} at most behind the clock, of {@code card} (or a random one when null). */
    synchronized ResultSet insertOne(Connection c, long maxLateMs, String note, String card) throws SQLException {
        clock += rnd.nextInt(2000);
        long t = clock - (maxLateMs > 0 ? rnd.nextLong(maxLateMs) : 0);
        lastTime = t;
        PreparedStatement ps = c.prepareStatement("INSERT INTO pay VALUES (?, ?, ?, ?, ?, ?) RETURNING *");
        ps.closeOnCompletion();
        bind(ps, t, card != null ? card : "c" + rnd.nextInt(300), note);
        return ps.executeQuery();
    }

    private void bind(PreparedStatement ps, long t, String card, String note) throws SQLException {
        ps.setLong(1, ++nextId);
        ps.setTimestamp(2, new Timestamp(t));
        ps.setString(3, card);
        ps.setString(4, "s" + rnd.nextInt(7));
        ps.setDouble(5, rnd.nextInt(100_000) / 100.0);
        ps.setString(6, note);
    }

    /**
     * The two metrics' values are the same for every card; a card the backfilled metric never saw (its events all
     * before the span) has no events in the reference's window either (the cards that differ are listed, not all).
     */
    static void assertSameValues(Map<String, List<Object>> expected, Map<String, List<Object>> actual, String what) {
        List<String> differ = new ArrayList<>();
        for (String card : expected.keySet()) {
            List<Object> got = actual.get(card);
            boolean same = got == null ? ((Number) expected.get(card).get(1)).longValue() == 0
                    : expected.get(card).equals(got);
            if (!same) {
                differ.add(card + ": " + expected.get(card) + " but " + got);
            }
        }
        assertTrue(expected.keySet().containsAll(actual.keySet()), what + ": the cards");
        assertEquals(List.of(), differ.subList(0, Math.min(differ.size(), 10)), what + ": " + differ.size()
                + " cards differ");
    }

    /** Each card's values of {@code metric} (SELECT over its state). */
    static Map<String, List<Object>> current(Connection c, String metric) throws SQLException {
        Map<String, List<Object>> rows = new HashMap<>();
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT * FROM " + metric)) {
            while (rs.next()) {
                List<Object> values = new ArrayList<>();
                for (String a : AGGREGATIONS) {
                    values.add(rs.getObject(a));
                }
                rows.put(rs.getString("card"), values);
            }
        }
        return rows;
    }

    /**
     * Waits until coilgun.metrics shows a metric backfilling; each metric's state and events in all then (null when
     * none was seen backfilling within 30 s).
     */
    static Map<String, Object[]> awaitBackfilling(TestNode node) throws Exception {
        long deadline = System.currentTimeMillis() + 30_000;
        while (System.currentTimeMillis() < deadline) {
            Map<String, Object[]> states = states(node);
            if (states.values().stream().anyMatch(row -> row[0].equals("backfilling"))) {
                Map<String, Object[]> seen = new HashMap<>();
                states.forEach((k, v) -> seen.put(k, new Object[] {v[0], v[2]}));
                return seen;
            }
            Thread.sleep(20);
        }
        return null;
    }

    static void awaitRunning(TestNode node, List<String> metrics) throws Exception {
        long deadline = System.currentTimeMillis() + 120_000;
        Map<String, Object[]> states = Map.of();
        while (System.currentTimeMillis() < deadline) {
            try {
                Map<String, Object[]> now = states(node);
                states = now;
                if (metrics.stream().allMatch(m -> states(m, now).equals("running"))) {
                    return;
                }
            } catch (SQLException e) {
                // the node is starting
            }
            Thread.sleep(100);
        }
        throw new AssertionError("not all running: " + states.keySet());
    }

    private static String states(String metric, Map<String, Object[]> states) {
        Object[] row = states.get(metric);
        return row == null ? "missing" : (String) row[0];
    }

    static Map<String, Object[]> states(TestNode node) throws SQLException {
        Map<String, Object[]> out = new HashMap<>();
        try (Connection c = node.connect(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(
                "SELECT name, state, backfilled_events, backfill_events, backfill_eta_s FROM coilgun.metrics")) {
            while (rs.next()) {
                out.put(rs.getString(1), new Object[] {rs.getString(2), rs.getObject(3), rs.getObject(4),
                    rs.getObject(5)});
            }
        }
        return out;
    }
}
