package io.coilgun.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A backfill on a cluster: three nodes as processes, a stream with two copies of each task. A metric is created
 * {@code WITH (backfill = 'all')} after history; every copy fills itself from its own reservoir, and the node leading
 * the most tasks is killed (SIGKILL) in the middle of the fill, so replicas whose own fill is under way take over.
 * Once every task made the metric live, every node reads the same values as a metric that ran from the start, and
 * every new event's RETURNING row agrees.
 */
@Timeout(300)
@OwnProcesses
class BackfillClusterIT {
    static final long T0 = Timestamp.valueOf("2026-03-01 08:00:00").getTime();
    static final String SELECT = "SELECT SUM(amount) AS total, COUNT(*) AS n, MAX(amount) AS hi, "
            + "COUNT(DISTINCT shop) AS shops FROM pay GROUP BY card OVER SLIDING 10 MINUTES";
    static final String[] AGGREGATIONS = {"total", "n", "hi", "shops"};

    @TempDir
    Path dir;

    final Random rnd = new Random(7);
    long nextId;
    long clock = T0;

    @Test
    void replicasFillThemselvesAndTakeOverInTheMiddleOfAFill() throws Exception {
        try (ClusterProcesses c = new ClusterProcesses(dir, 1)) {
            c.startNodes("n1", "n2", "n3");
            try (Connection conn = ElasticityIT.connect(c.port("n1")); Statement st = conn.createStatement()) {
                st.execute("CREATE STREAM pay (id BIGINT, ts TIMESTAMP, card VARCHAR, shop VARCHAR, amount DOUBLE, "
                        + "note VARCHAR) WITH (event_id = 'id', partition_by = 'card', partitions = 4, replicas = 2, "
                        + "lateness = '1 minute', late_events = 'drop')");
                st.execute("CREATE METRIC ref AS " + SELECT);
                insert(conn, 2000, 400, "");
                // every task's fill then takes a few seconds (test fault), long enough to kill a node in the middle
                // (12 such events, 300 ms each: with background work at a quarter of a core, several seconds per copy)
                for (int i = 0; i < 12; i++) {
                    insert(conn, 1, 400, "coilgun:slow-backfill:300");
                }
            }
            ElasticityIT.awaitAllRunning(c, "n1");
            try (Connection conn = ElasticityIT.connect(c.port("n1")); Statement st = conn.createStatement()) {
                st.execute("CREATE METRIC bf AS " + SELECT + " WITH (backfill = 'all')");
            }
            awaitState(c.port("n1"), "bf", "backfilling");
            String victim = leaderOfMostTasks(c);
            c.kill(victim);
            List<String> alive = List.of("n1", "n2", "n3").stream().filter(n -> !n.equals(victim)).toList();
            // the group has moved every task off the dead node: until then its last status (it led copies that may
            // have finished their fill) can read as live while the replicas taking over still fill
            ElasticityIT.awaitRunningOn(c, alive);
            awaitState(c.port(alive.get(0)), "bf", "running");
            for (String n : alive) {
                try (Connection conn = ElasticityIT.connect(c.port(n))) {
                    BackfillIT.assertSameValues(current(conn, "ref"), current(conn, "bf"), "SELECT on " + n);
                }
            }
            Map<Long, List<Object>> live = new java.util.HashMap<>();
            try (Connection conn = ElasticityIT.connect(c.port(alive.get(0)));
                    PreparedStatement ps = conn.prepareStatement(
                            "INSERT INTO pay VALUES (?, ?, ?, ?, ?, ?) RETURNING *")) {
                for (int i = 0; i < 100; i++) {
                    bind(ps, 400, "");
                    try (ResultSet rs = ps.executeQuery()) {
                        assertTrue(rs.next());
                        List<Object> values = new java.util.ArrayList<>();
                        for (String a : AGGREGATIONS) {
                            assertEquals(rs.getObject("ref_" + a), rs.getObject("bf_" + a), "bf_" + a + " of event "
                                    + rs.getLong("id"));
                            values.add(rs.getObject("ref_" + a));
                        }
                        if (values.get(1) != null) {
                            live.put(rs.getLong("id"), values); // (a late event is dropped: NULL values, not stored)
                        }
                    }
                }
            }
            // REPLAY from each surviving node: the tasks the other one leads replay there, through the peer link;
            // every event gets the values the live metric gave it
            for (String n : alive) {
                try (Connection conn = ElasticityIT.connect(c.port(n)); Statement st = conn.createStatement();
                        ResultSet rs = st.executeQuery("REPLAY " + SELECT)) {
                    int rows = 0;
                    int checked = 0;
                    while (rs.next()) {
                        rows++;
                        List<Object> want = live.get(rs.getLong("id"));
                        if (want != null) {
                            List<Object> got = new java.util.ArrayList<>();
                            for (String a : AGGREGATIONS) {
                                got.add(rs.getObject(a));
                            }
                            assertEquals(want, got, "REPLAY on " + n + " of event " + rs.getLong("id"));
                            checked++;
                        }
                    }
                    assertEquals(live.size(), checked, "REPLAY on " + n + ": every recent event, once");
                    assertTrue(rows > 2000, "REPLAY on " + n + ": the whole history, " + rows + " rows");
                }
            }
            assertTrue(c.log(alive.get(0)).contains("metric=bf backfilled in")
                    || c.log(alive.get(1)).contains("metric=bf backfilled in"), "a fill ended on a surviving node");
        }
    }

    void insert(Connection conn, int n, int cards, String note) throws SQLException {
        try (PreparedStatement ps = conn.prepareStatement("INSERT INTO pay VALUES (?, ?, ?, ?, ?, ?)")) {
            for (int i = 0; i < n; i++) {
                bind(ps, cards, note);
                ps.addBatch();
            }
            ps.executeBatch();
        }
    }

    private void bind(PreparedStatement ps, int cards, String note) throws SQLException {
        clock += rnd.nextInt(3000);
        long t = clock - (rnd.nextInt(4) == 0 ? rnd.nextInt(70_000) : 0);
        ps.setLong(1, ++nextId);
        ps.setTimestamp(2, new Timestamp(t));
        ps.setString(3, "c" + rnd.nextInt(cards));
        ps.setString(4, "s" + rnd.nextInt(7));
        ps.setDouble(5, rnd.nextInt(100_000) / 100.0);
        ps.setString(6, note);
    }

    static Map<String, List<Object>> current(Connection conn, String metric) throws SQLException {
        Map<String, List<Object>> rows = new java.util.HashMap<>();
        try (Statement s = conn.createStatement(); ResultSet rs = s.executeQuery("SELECT * FROM " + metric)) {
            while (rs.next()) {
                List<Object> values = new java.util.ArrayList<>();
                for (String a : AGGREGATIONS) {
                    values.add(rs.getObject(a));
                }
                rows.put(rs.getString("card"), values);
            }
        }
        return rows;
    }

    static String state(Statement st, String metric) throws SQLException {
        try (ResultSet rs = st.executeQuery("SELECT state FROM coilgun.metrics WHERE name = '" + metric + "'")) {
            return rs.next() ? rs.getString(1) : null;
        }
    }

    static void awaitState(int port, String metric, String wanted) throws Exception {
        long deadline = System.currentTimeMillis() + 120_000;
        String now = null;
        while (System.currentTimeMillis() < deadline) {
            try (Connection conn = ElasticityIT.connect(port); Statement st = conn.createStatement()) {
                now = state(st, metric);
                if (wanted.equals(now)) {
                    return;
                }
            } catch (SQLException e) {
                // a rebalance: again
            }
            Thread.sleep(200);
        }
        throw new AssertionError(metric + " is " + now + ", not " + wanted);
    }

    /** The node whose units lead the most tasks. */
    static String leaderOfMostTasks(ClusterProcesses c) throws SQLException {
        Map<String, Integer> led = new java.util.TreeMap<>();
        try (Connection conn = ElasticityIT.connect(c.port("n1")); Statement st = conn.createStatement();
                ResultSet rs = st.executeQuery("SELECT node FROM coilgun.tasks")) {
            while (rs.next()) {
                led.merge(rs.getString(1), 1, Integer::sum);
            }
        }
        return led.entrySet().stream().max(Map.Entry.comparingByValue()).orElseThrow().getKey();
    }
}
