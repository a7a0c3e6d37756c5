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
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ALTER STREAM … ADD PARTITION BY} on a stream that has events: the new partitioner's tasks are filled from
 * the history its decider holds while clients keep inserting, then go live; a metric on it (refused with 55000 until
 * then) filled with {@code backfill = 'all'} reports, for every event after, the brute-force COUNT and SUM over every
 * event the stream accepted since it began (clamped ones at their final time, duplicates once), across a restart,
 * and agrees with the partitionings the stream was created with. {@code DROP PARTITION BY} takes it away again once
 * no metric runs on it.
 */
@Tag("integration")
@Timeout(300)
@SecondNodeLane
class AddPartitionerIT {
    static final long T0 = Timestamp.valueOf("2026-01-01 10:00:00").getTime();

    @TempDir
    Path dir;

    /** One event as sent. */
    record Sent(long id, long time, String card, String merchant, String device, double amount) {
    }

    /** The brute-force decider (clamp policy, 3 s lateness) and the running COUNT and SUM per key. */
    static final class Oracle {
        final Set<Long> accepted = new HashSet<>();
        final Map<String, long[]> counts = new HashMap<>();
        final Map<String, double[]> sums = new HashMap<>();
        long streamTime = Long.MIN_VALUE;

        /** Whether the event is applied (not a duplicate); counts it. */
        synchronized boolean decide(Sent e) {
            if (!accepted.add(e.id())) {
                return false;
            }
            streamTime = Math.max(streamTime, e.time()); // a clamped event moves nothing
            for (String key : List.of("card:" + e.card(), "device:" + e.device())) {
                counts.computeIfAbsent(key, k -> new long[1])[0]++;
                sums.computeIfAbsent(key, k -> new double[1])[0] += e.amount();
            }
            return true;
        }
    }

    @Test
    void anAddedPartitionerIsFilledFromHistoryThenGoesLive() throws Exception {
        Random rnd = new Random(37);
        List<Sent> sent = events(rnd, 1500);
        Oracle oracle = new Oracle();
        try (TestNode node = new TestNode(dir)) {
            Connection c = node.connect();
            try (Statement s = c.createStatement()) {
                s.execute("CREATE STREAM pay (id BIGINT, ts TIMESTAMP, card VARCHAR, merchant VARCHAR, device VARCHAR, "
                        + "amount DOUBLE) WITH (event_time = 'ts', event_id = 'id', partition_by = 'card, merchant', "
                        + "partitions = 2, lateness = '3 seconds', late_events = 'clamp', backfill_horizon = '1 day')");
                s.execute("CREATE METRIC by_card AS SELECT COUNT(*) AS n, SUM(amount) AS total FROM pay GROUP BY card "
                        + "OVER INFINITE");
                expectError(s, "CREATE METRIC by_device AS SELECT COUNT(*) AS n FROM pay GROUP BY device OVER INFINITE",
                        "42803");
            }
            insert(c, sent.subList(0, 600), oracle, false);
            // device is no partitioner yet: an event may have none (it goes to the device metric's NULL group)
            insert(c, List.of(new Sent(50_000, sent.get(599).time(), "c1", "m1", null, 5)), oracle, false);
            try (Statement s = c.createStatement()) {
                s.execute("ALTER STREAM pay ADD PARTITION BY device WITH (partitions = 3)");
                expectError(s, "ALTER STREAM pay ADD PARTITION BY device", "42710");
                expectError(s, "ALTER STREAM pay ADD PARTITION BY nothing", "42703");
            }
            // clients keep inserting while the device topic is filled
            Connection other = node.connect();
            CompletableFuture<Void> meanwhile = insertMeanwhile(other, sent.subList(600, 1000), oracle);
            try (Statement s = c.createStatement()) {
                createOnceFilled(s, "CREATE METRIC by_device AS SELECT COUNT(*) AS n, SUM(amount) AS total FROM pay "
                        + "GROUP BY device OVER INFINITE WITH (backfill = 'all')");
                meanwhile.get(120, TimeUnit.SECONDS);
                other.close();
                awaitRunning(s, "by_device");
                assertEquals(3, ClusterIT.count(s, "SELECT partitions FROM coilgun.partitioners WHERE partitioner = "
                        + "'device' AND added AND state = 'live'"));
            }
            insert(c, sent.subList(1000, 1250), oracle, true);
            c.close();
            node.restart();
            c = node.connect();
            insert(c, sent.subList(1250, sent.size()), oracle, true);
            try (Statement s = c.createStatement()) {
                long applied = oracle.accepted.size();
                assertEquals(applied, ClusterIT.count(s, "SELECT SUM(n) FROM by_device"), "the count over devices");
                assertEquals(1, ClusterIT.count(s, "SELECT n FROM by_device WHERE device IS NULL"), "the NULL group");
                assertEquals(applied, ClusterIT.count(s, "SELECT SUM(n) FROM by_card"), "the count over cards");
                expectError(s, "ALTER STREAM pay DROP PARTITION BY device", "2BP01");
                s.execute("DROP METRIC by_device");
                s.execute("ALTER STREAM pay DROP PARTITION BY device");
                expectError(s, "ALTER STREAM pay DROP PARTITION BY merchant", "0A000");
                assertEquals(0, ClusterIT.count(s, "SELECT count(*) FROM coilgun.partitioners WHERE partitioner = "
                        + "'device'"));
                assertEquals(0, ClusterIT.count(s, "SELECT count(*) FROM coilgun.tasks WHERE partitioner = 'device'"));
            }
            Sent last = new Sent(99_999, T0 + 3_000_000, "c1", "m1", "d1", 1);
            insert(c, List.of(last), oracle, false);
            try (Statement s = c.createStatement()) {
                assertEquals(oracle.accepted.size(), ClusterIT.count(s, "SELECT SUM(n) FROM by_card"));
            }
            c.close();
        }
    }

    /**
     * A stream created with one partition_by field gains a second: its tasks hand the history they judged to the
     * stream's new decider (statements wait meanwhile, and go on to the decider), which fills the new partitioner;
     * a retry of an event judged before is a duplicate after, and both partitionings count every event once.
     */
    @Test
    void aStreamOfOneKeyGainsADecider() throws Exception {
        Random rnd = new Random(41);
        List<Sent> sent = events(rnd, 1500);
        Oracle oracle = new Oracle();
        try (TestNode node = new TestNode(dir)) {
            Connection c = node.connect();
            try (Statement s = c.createStatement()) {
                s.execute("CREATE STREAM pay (id BIGINT, ts TIMESTAMP, card VARCHAR, merchant VARCHAR, device VARCHAR, "
                        + "amount DOUBLE) WITH (event_time = 'ts', event_id = 'id', partition_by = 'card', "
                        + "partitions = 3, lateness = '3 seconds', late_events = 'clamp', backfill_horizon = '1 day')");
                s.execute("CREATE METRIC by_card AS SELECT COUNT(*) AS n, SUM(amount) AS total FROM pay GROUP BY card "
                        + "OVER INFINITE");
            }
            insert(c, sent.subList(0, 700), oracle, false);
            Connection other = node.connect();
            CompletableFuture<Void> meanwhile = insertMeanwhile(other, sent.subList(700, 1000), oracle); // some wait
            try (Statement s = c.createStatement()) {
                Thread.sleep(50);
                s.execute("ALTER STREAM pay ADD PARTITION BY device WITH (partitions = 2)");
                meanwhile.get(120, TimeUnit.SECONDS);
                other.close();
                createOnceFilled(s, "CREATE METRIC by_device AS SELECT COUNT(*) AS n, SUM(amount) AS total FROM pay "
                        + "GROUP BY device OVER INFINITE WITH (backfill = 'all')");
                awaitRunning(s, "by_device");
                assertEquals(1, ClusterIT.count(s, "SELECT count(*) FROM coilgun.partitioners WHERE partitioner = "
                        + "'device' AND added AND state = 'live'"));
            }
            insert(c, sent.subList(1000, 1250), oracle, true);
            c.close();
            node.restart();
            c = node.connect();
            insert(c, sent.subList(1250, sent.size()), oracle, true);
            insert(c, sent.subList(0, 40), oracle, true); // retries of events judged before the decider existed
            try (Statement s = c.createStatement()) {
                long applied = oracle.accepted.size();
                assertEquals(applied, ClusterIT.count(s, "SELECT SUM(n) FROM by_device"), "the count over devices");
                assertEquals(applied, ClusterIT.count(s, "SELECT SUM(n) FROM by_card"), "the count over cards");
            }
            c.close();
        }
    }

    /** Events a few hundred ms apart, one in five up to 6 s behind (beyond the lateness), 3% retries. */
    static List<Sent> events(Random rnd, int n) {
        List<Sent> sent = new ArrayList<>();
        long clock = T0;
        for (int i = 0; i < n; i++) {
            if (i > 10 && rnd.nextInt(33) == 0) {
                sent.add(sent.get(rnd.nextInt(sent.size())));
                continue;
            }
            clock += rnd.nextInt(800);
            long t = clock - (rnd.nextInt(5) == 0 ? rnd.nextInt(6000) : 0);
            sent.add(new Sent(i, t, "c" + rnd.nextInt(20), "m" + rnd.nextInt(7), "d" + rnd.nextInt(11),
                    rnd.nextInt(10000) / 100.0));
        }
        return sent;
    }

    /** Inserts each event with RETURNING; with {@code checkDevice}, its device metric too, against the oracle. */
    static void insert(Connection c, List<Sent> events, Oracle oracle, boolean checkDevice) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO pay VALUES (?, ?, ?, ?, ?, ?) RETURNING *")) {
            for (Sent e : events) {
                ps.setLong(1, e.id());
                ps.setTimestamp(2, new Timestamp(e.time()));
                ps.setString(3, e.card());
                ps.setString(4, e.merchant());
                ps.setString(5, e.device());
                ps.setDouble(6, e.amount());
                try (ResultSet rs = ps.executeQuery()) {
                    assertTrue(rs.next());
                    if (!oracle.decide(e)) {
                        continue; // a duplicate: NULL values
                    }
                    assertEquals(oracle.counts.get("card:" + e.card())[0], rs.getLong("by_card_n"), "event " + e.id());
                    assertEquals(oracle.sums.get("card:" + e.card())[0], rs.getDouble("by_card_total"), 1e-6);
                    if (checkDevice) {
                        assertEquals(oracle.counts.get("device:" + e.device())[0], rs.getLong("by_device_n"),
                                "event " + e.id() + ", device " + e.device());
                        assertEquals(oracle.sums.get("device:" + e.device())[0], rs.getDouble("by_device_total"),
                                1e-6, "event " + e.id());
                    }
                }
            }
        }
    }

    /** {@link #insert} on another thread (a client inserting while the statement under test runs). */
    static CompletableFuture<Void> insertMeanwhile(Connection c, List<Sent> events, Oracle oracle) {
        return CompletableFuture.runAsync(() -> {
            try {
                insert(c, events, oracle, false);
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        });
    }

    /** Creates a metric on an added partitioner, again while it is refused because the partitioner still fills. */
    static void createOnceFilled(Statement s, String createMetric) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (true) {
            try {
                s.execute(createMetric);
                return;
            } catch (SQLException filling) {
                assertEquals("55000", filling.getSQLState(), filling.getMessage());
                assertTrue(System.nanoTime() < deadline, "still filling after 120 s: " + filling.getMessage());
                Thread.sleep(100);
            }
        }
    }

    static void awaitRunning(Statement s, String metric) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (ClusterIT.count(s, "SELECT count(*) FROM coilgun.metrics WHERE name = '" + metric
                + "' AND state = 'running'") == 0) {
            assertTrue(System.nanoTime() < deadline, metric + " still backfilling after 120 s");
            Thread.sleep(100);
        }
    }

    static void expectError(Statement s, String sql, String state) {
        SQLException error = null;
        try {
            s.execute(sql);
        } catch (SQLException e) {
            error = e;
        }
        assertTrue(error != null && state.equals(error.getSQLState()), sql + ": expected " + state + ", got " + error);
    }
}
