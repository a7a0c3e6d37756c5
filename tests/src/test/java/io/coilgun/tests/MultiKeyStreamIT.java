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
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A stream partitioned by three fields (card, merchant, device) decides each event once: under every late_events
 * policy, with disorder beyond the lateness and retries of earlier ids, across a restart, every partitioning applies
 * exactly the events the clients were told were applied. Each RETURNING value is the brute-force value over the
 * decided events (a running COUNT and SUM per key: INFINITE windows), and at the end the counts over cards, over
 * merchants and over devices each equal the number of events answered as applied.
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
}
