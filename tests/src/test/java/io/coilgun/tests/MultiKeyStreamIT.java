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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A stream partitioned by three fields (card, merchant, device) decides each event once: under every late_events
 * policy, with disorder beyond the lateness and retries of earlier ids, across a restart, every partitioning applies
 * exactly the events the clients were told were applied. Each RETURNING value is the brute-force value over the
 * decided events (a running COUNT and SUM per key: INFINITE windows), and at the end the counts over cards, over
 * merchants and over devices each equal the number of events answered as applied. The metrics of every
 * partitioner are subscribed to and read by their own key.
 */
@Tag("integration")
@Timeout(300)
@SecondNodeLane
class MultiKeyStreamIT {
    static final long T0 = Timestamp.valueOf("2026-01-01 10:00:00").getTime();
    static final String[] KEYS = {"card", "merchant", "device"};

    @TempDir
    Path dir;

    /** One event as sent. */
    record Sent(long id, long time, String[] keys, double amount) {
    }

    @ParameterizedTest(name = "late_events = {0}")
    @ValueSource(strings = {"drop", "clamp", "reject"})
    void everyPartitioningAppliesTheDecisionTheClientWasTold(String policy) throws Exception {
        Random rnd = new Random(policy.hashCode());
        List<Sent> sent = new ArrayList<>();
        long clock = T0;
        for (int i = 0; i < 500; i++) {
            if (i > 10 && rnd.nextInt(33) == 0) {
                sent.add(sent.get(rnd.nextInt(sent.size()))); // a client's retry of an earlier event
                continue;
            }
            clock += rnd.nextInt(800);
            long t = clock - (rnd.nextInt(5) == 0 ? rnd.nextInt(6000) : 0); // some beyond the 3 s lateness
            sent.add(new Sent(i, t, new String[] {"c" + rnd.nextInt(20), "m" + rnd.nextInt(7), "d" + rnd.nextInt(11)},
                    rnd.nextInt(10000) / 100.0));
        }
        // the brute-force decider: a duplicate id first, then lateness against the stream time of accepted events
        Map<String, long[]> counts = new HashMap<>();
        Map<String, double[]> sums = new HashMap<>();
        Set<Long> accepted = new HashSet<>();
        long streamTime = Long.MIN_VALUE;
        long applied = 0;
        try (TestNode node = new TestNode(dir)) {
            Connection c = node.connect();
            try (Statement s = c.createStatement()) {
                s.execute("CREATE STREAM pay (id BIGINT, ts TIMESTAMP, card VARCHAR, merchant VARCHAR, device VARCHAR, "
                        + "amount DOUBLE) WITH (event_time = 'ts', event_id = 'id', partition_by = 'card, merchant, "
                        + "device', partitions = 4, lateness = '3 seconds', late_events = '" + policy + "')");
                for (String k : KEYS) {
                    s.execute("CREATE METRIC by_" + k + " AS SELECT COUNT(*) AS n, SUM(amount) AS total FROM pay "
                            + "GROUP BY " + k + " OVER INFINITE");
                }
            }
            for (int i = 0; i < sent.size(); i++) {
                if (i == sent.size() / 2) {
                    c.close();
                    node.restart(); // decided events stay decided across a restart
                    c = node.connect();
                }
                Sent e = sent.get(i);
                String decision;
                if (accepted.contains(e.id())) {
                    decision = "duplicate";
                } else if (streamTime != Long.MIN_VALUE && e.time() < streamTime - 3000) {
                    decision = policy.equals("clamp") ? "applied" : policy;
                } else {
                    decision = "applied";
                }
                try (PreparedStatement ps = c.prepareStatement("INSERT INTO pay VALUES (?, ?, ?, ?, ?, ?) RETURNING *")) {
                    ps.setLong(1, e.id());
                    ps.setTimestamp(2, new Timestamp(e.time()));
                    for (int k = 0; k < KEYS.length; k++) {
                        ps.setString(3 + k, e.keys()[k]);
                    }
                    ps.setDouble(6, e.amount());
                    if (decision.equals("reject")) {
                        SQLException refused = null;
                        try {
                            ps.executeQuery().close();
                        } catch (SQLException x) {
                            refused = x;
                        }
                        assertTrue(refused != null && "22008".equals(refused.getSQLState()),
                                "event " + e.id() + " is late: refused, " + refused);
                        continue;
                    }
                    try (ResultSet rs = ps.executeQuery()) {
                        assertTrue(rs.next());
                        for (int k = 0; k < KEYS.length; k++) {
                            String metric = "by_" + KEYS[k];
                            if (!decision.equals("applied")) {
                                assertNull(rs.getObject(metric + "_n"), decision + ": event " + e.id() + ", " + metric);
                                continue;
                            }
                            String key = KEYS[k] + ":" + e.keys()[k];
                            long n = ++counts.computeIfAbsent(key, x -> new long[1])[0];
                            double total = sums.computeIfAbsent(key, x -> new double[1])[0] += e.amount();
                            assertEquals(n, rs.getLong(metric + "_n"), "event " + e.id() + ", " + key);
                            assertEquals(total, rs.getDouble(metric + "_total"), 1e-6, "event " + e.id() + ", " + key);
                        }
                    }
                }
                if (decision.equals("applied")) {
                    accepted.add(e.id());
                    streamTime = Math.max(streamTime, e.time());
                    applied++;
                }
            }
            try (Statement s = c.createStatement()) {
                for (String k : KEYS) {
                    try (ResultSet rs = s.executeQuery("SELECT SUM(n) FROM by_" + k)) {
                        assertTrue(rs.next());
                        assertEquals(applied, rs.getLong(1), "the count over every " + k);
                    }
                }
            }
            c.close();
        }
        assertTrue(applied > 300 && applied < sent.size(), "applied " + applied + " of " + sent.size());
    }

    /**
     * A task failing on an event its decider accepted never skips it (the other partitionings apply it): a passing
     * fault is taken again and the event applies everywhere, exactly; a fault that stays stops the tasks it meets,
     * the statement fails with XX000 saying the event was accepted, nothing is recorded as skipped, and every other
     * task goes on.
     */
    @Test
    void aTaskFailingOnADecidedEventNeverSkipsIt() throws Exception {
        try (TestNode node = new TestNode(dir); Connection c = node.connect(); Statement s = c.createStatement()) {
            s.execute("CREATE STREAM pay (id BIGINT, ts TIMESTAMP, card VARCHAR, merchant VARCHAR, note VARCHAR, "
                    + "amount DOUBLE) WITH (event_time = 'ts', event_id = 'id', partition_by = 'card, merchant', "
                    + "partitions = 2, lateness = '1 hour')");
            s.execute("CREATE METRIC by_card AS SELECT COUNT(*) AS n, SUM(amount) AS total FROM pay GROUP BY card "
                    + "OVER INFINITE");
            s.execute("CREATE METRIC by_merchant AS SELECT COUNT(*) AS n FROM pay GROUP BY merchant OVER INFINITE");
            String insert = "INSERT INTO pay VALUES (%d, TIMESTAMP '2026-01-01 10:00:%02d', 'c1', 'm1', '%s', 1) "
                    + "RETURNING *";
            for (int id = 1; id <= 3; id++) {
                try (ResultSet rs = s.executeQuery(String.format(insert, id, id, "ok"))) {
                    assertTrue(rs.next());
                    assertEquals(id, rs.getLong("by_card_n"));
                }
            }
            // the first task to aggregate it fails once, rolls back and takes it again: applied by both, once
            try (ResultSet rs = s.executeQuery(String.format(insert, 4, 4, "coilgun:fail-once:" + System.nanoTime()))) {
                assertTrue(rs.next());
                assertEquals(4, rs.getLong("by_card_n"), "by card");
                assertEquals(4, rs.getLong("by_merchant_n"), "by merchant");
            }
            SQLException failed = null;
            try {
                s.executeQuery(String.format(insert, 5, 5, "coilgun:fail")).close();
            } catch (SQLException e) {
                failed = e;
            }
            assertTrue(failed != null && "XX000".equals(failed.getSQLState()), "a fault that stays: " + failed);
            assertTrue(failed.getMessage().contains("was accepted"), failed.getMessage());
            assertEquals(0, ClusterIT.count(s, "SELECT count(*) FROM coilgun.failed_events"), "nothing skipped");
            assertEquals(2, ClusterIT.count(s, "SELECT count(*) FROM coilgun.tasks WHERE state = 'failed'"),
                    "the card's and the merchant's task stopped");
            // another card and merchant, on tasks that did not meet the event, go on exactly
            boolean wentOn = false;
            for (int id = 6, card = 2; id < 40 && !wentOn; id++, card++) {
                String other = String.format("INSERT INTO pay VALUES (%d, TIMESTAMP '2026-01-01 10:00:%02d', 'c%d', "
                        + "'m%d', 'ok', 1) RETURNING *", id, id, card, card);
                try (ResultSet rs = s.executeQuery(other)) {
                    assertTrue(rs.next());
                    assertEquals(1, rs.getLong("by_card_n"), other);
                    assertEquals(1, rs.getLong("by_merchant_n"), other);
                    wentOn = true;
                } catch (SQLException onAStoppedTask) {
                    assertTrue(onAStoppedTask.getMessage().contains("stopped"), onAStoppedTask.getMessage());
                }
            }
            assertTrue(wentOn, "an event on two running tasks applies");
        }
    }

    /**
     * SUBSCRIBE to a metric of the second and of the third partitioner sees each event with the values its INSERT
     * returned; point reads and SELECT of each metric route to the tasks of its own partitioner, each partitioner
     * topic with a partition count of its own.
     */
    @Test
    void everyPartitionersMetricsAreSubscribedAndReadByTheirKey() throws Exception {
        int events = 40;
        try (TestNode node = new TestNode(dir); Connection c = node.connect()) {
            try (Statement s = c.createStatement()) {
                s.execute("CREATE STREAM pay (id BIGINT, ts TIMESTAMP, card VARCHAR, merchant VARCHAR, device VARCHAR, "
                        + "amount DOUBLE) WITH (event_time = 'ts', event_id = 'id', partition_by = 'card, merchant, "
                        + "device', partitions = 'card 2, merchant 5, device 3', lateness = '1 hour')");
                for (String k : KEYS) {
                    s.execute("CREATE METRIC by_" + k + " AS SELECT COUNT(*) AS n, SUM(amount) AS total FROM pay "
                            + "GROUP BY " + k + " OVER INFINITE");
                }
                // each partitioner topic with its own partitions, and the decider
                assertEquals(1 + 2 + 5 + 3, ClusterIT.count(s, "SELECT count(*) FROM coilgun.tasks"));
                assertEquals(5, ClusterIT.count(s, "SELECT count(*) FROM coilgun.tasks WHERE partitioner = 'merchant'"));
            }
            List<Connection> readers = new ArrayList<>();
            List<CompletableFuture<Map<Long, Long>>> subscriptions = new ArrayList<>();
            for (String k : List.of("merchant", "device")) {
                Connection reader = node.connect();
                readers.add(reader);
                reader.setAutoCommit(false);
                Statement subscribe = reader.createStatement();
                subscribe.setFetchSize(1);
                subscriptions.add(CompletableFuture.supplyAsync(() -> {
                    Map<Long, Long> seen = new HashMap<>(); // event id -> the metric's n
                    try (ResultSet rs = subscribe.executeQuery("SUBSCRIBE by_" + k)) {
                        while (seen.size() < events && rs.next()) {
                            assertTrue(rs.getString(k).startsWith(k.substring(0, 1)), k + " column: " + rs.getString(k));
                            seen.put(rs.getLong("id"), rs.getLong("by_" + k + "_n"));
                        }
                    } catch (SQLException e) {
                        throw new IllegalStateException(e);
                    }
                    return seen;
                }));
            }
            node.awaitSubscriptions(n -> n == 2);
            Map<Long, long[]> returned = new HashMap<>(); // event id -> {merchant's n, device's n}
            Map<String, Long> counts = new HashMap<>();
            for (long id = 1; id <= events; id++) {
                String[] keys = {"c" + id % 5, "m" + id % 3, "d" + id % 4};
                try (PreparedStatement ps = c.prepareStatement("INSERT INTO pay VALUES (?, ?, ?, ?, ?, ?) RETURNING *")) {
                    ps.setLong(1, id);
                    ps.setTimestamp(2, new Timestamp(T0 + id * 1000));
                    for (int k = 0; k < KEYS.length; k++) {
                        ps.setString(3 + k, keys[k]);
                        counts.merge(KEYS[k] + ":" + keys[k], 1L, Long::sum);
                    }
                    ps.setDouble(6, id);
                    try (ResultSet rs = ps.executeQuery()) {
                        assertTrue(rs.next());
                        returned.put(id, new long[] {rs.getLong("by_merchant_n"), rs.getLong("by_device_n")});
                        assertEquals(counts.get("merchant:" + keys[1]), rs.getLong("by_merchant_n"), "event " + id);
                        assertEquals(counts.get("device:" + keys[2]), rs.getLong("by_device_n"), "event " + id);
                    }
                }
            }
            for (int k = 0; k < 2; k++) {
                Map<Long, Long> seen = subscriptions.get(k).get(30, TimeUnit.SECONDS);
                assertEquals(events, seen.size(), "SUBSCRIBE by_" + KEYS[k + 1] + " saw every event");
                for (var e : seen.entrySet()) {
                    assertEquals(returned.get(e.getKey())[k], e.getValue(), "by_" + KEYS[k + 1] + ", event " + e.getKey());
                }
            }
            for (Connection r : readers) {
                r.close();
            }
            try (Statement s = c.createStatement()) {
                for (var e : counts.entrySet()) {
                    String[] kv = e.getKey().split(":");
                    try (ResultSet rs = s.executeQuery("SELECT n FROM by_" + kv[0] + " WHERE " + kv[0] + " = '" + kv[1]
                            + "'")) {
                        assertTrue(rs.next(), "point read of " + e.getKey());
                        assertEquals(e.getValue(), rs.getLong(1), "point read of " + e.getKey());
                    }
                }
                for (String k : KEYS) {
                    assertEquals(events, ClusterIT.count(s, "SELECT SUM(n) FROM by_" + k), "SELECT over by_" + k);
                }
            }
        }
    }
}
