package io.coilgun.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLWarning;
import java.sql.Statement;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.postgresql.util.PSQLException;

/**
 * A client retries an INSERT long after the first attempt (a lost connection, a timeout): within the stream's
 * dedup_horizon the retry is answered as a duplicate (NOTICE, NULL metric values, not counted in the tag), never as
 * late and never counted twice, under every late_events policy, also after a restart; beyond the horizon it is a new
 * event to the policy. Lateness is 10 s; retries come 1 minute, 30 minutes and 2 hours of event time after the
 * original.
 */
@Tag("integration")
@Timeout(300)
@SecondNodeLane
class RetryIT {
    @TempDir
    Path dir;

    static final LocalDateTime T0 = LocalDateTime.of(2026, 1, 1, 10, 0);
    static final String[] POLICIES = {"reject", "clamp", "drop"};

    static void createStream(Statement s, String name, String policy, String horizon) throws SQLException {
        s.execute("CREATE STREAM " + name + " (id BIGINT, ts TIMESTAMP, card VARCHAR, amount DOUBLE) WITH ("
                + "event_time = 'ts', event_id = 'id', partition_by = 'card', partitions = 2, lateness = '10 seconds', "
                + "late_events = '" + policy + "', dedup_horizon = '" + horizon + "')");
        s.execute("CREATE METRIC " + name + "_m AS SELECT SUM(amount) AS total, COUNT(*) AS n FROM " + name
                + " GROUP BY card OVER SLIDING 3 HOURS");
    }

    static String values(long id, long secondsAfterT0, double amount) {
        return "(" + id + ", TIMESTAMP '" + T0.plusSeconds(secondsAfterT0).toString().replace('T', ' ') + "', 'c1', "
                + amount + ")";
    }

    /** One event that applies: its RETURNING totals. */
    static void applied(Statement s, String stream, long id, long at, double amount, double total, long n)
            throws SQLException {
        try (ResultSet rs = s.executeQuery("INSERT INTO " + stream + " VALUES " + values(id, at, amount)
                + " RETURNING *")) {
            assertTrue(rs.next());
            assertEquals(total, rs.getDouble(stream + "_m_total"), 0.0, stream + " event " + id);
            assertEquals(n, rs.getLong(stream + "_m_n"), stream + " event " + id);
        }
        assertEquals(1, s.getUpdateCount() < 0 ? 1 : s.getUpdateCount());
    }

    /** A retry of an accepted event: NULL metric values, a NOTICE, tag INSERT 0 0. */
    static void duplicate(Statement s, String stream, long id, long at, double amount) throws SQLException {
        s.clearWarnings();
        assertTrue(s.execute("INSERT INTO " + stream + " VALUES " + values(id, at, amount) + " RETURNING *"));
        try (ResultSet rs = s.getResultSet()) {
            assertTrue(rs.next());
            assertEquals(id, rs.getLong("id"));
            assertNull(rs.getObject(stream + "_m_total"), stream + " retry of " + id);
            assertNull(rs.getObject(stream + "_m_n"), stream + " retry of " + id);
        }
        assertNotices(s, List.of("event " + id + " is a duplicate"));
        assertEquals(0, s.executeUpdate("INSERT INTO " + stream + " VALUES " + values(id, at, amount)),
                stream + ": a retry is not counted in the tag");
    }

    static void assertNotices(Statement s, List<String> starts) throws SQLException {
        List<String> notices = new ArrayList<>();
        for (SQLWarning w = s.getWarnings(); w != null; w = w.getNextWarning()) {
            notices.add(w.getMessage());
        }
        assertEquals(starts.size(), notices.size(), notices.toString());
        for (int i = 0; i < starts.size(); i++) {
            assertTrue(notices.get(i).startsWith(starts.get(i)), notices.toString());
        }
    }

    @Test
    void retriesWithinTheHorizonAreDuplicatesUnderEveryPolicyAcrossARestart() throws Exception {
        try (TestNode node = new TestNode(dir)) {
            try (Connection c = node.connect(); Statement s = c.createStatement()) {
                for (String p : POLICIES) {
                    String st = "p_" + p;
                    createStream(s, st, p, "24 hours");
                    applied(s, st, 1, 0, 10, 10, 1);
                    applied(s, st, 2, 60, 1, 11, 2);
                    duplicate(s, st, 1, 0, 10); // 1 minute later
                    applied(s, st, 3, 30 * 60, 1, 12, 3);
                    duplicate(s, st, 1, 0, 10); // 30 minutes later
                    duplicate(s, st, 2, 60, 1);
                    applied(s, st, 4, 2 * 3600, 1, 13, 4);
                    duplicate(s, st, 1, 0, 10); // 2 hours later
                    duplicate(s, st, 3, 30 * 60, 1);
                }
            }
            node.restart();
            try (Connection c = node.connect(); Statement s = c.createStatement()) {
                for (String p : POLICIES) {
                    String st = "p_" + p;
                    duplicate(s, st, 1, 0, 10);
                    duplicate(s, st, 4, 2 * 3600, 1); // on time, still a duplicate
                    applied(s, st, 5, 2 * 3600 + 1, 1, 14, 5);
                    // a retry (late) and a new row in one statement: the retry is a duplicate, the new row counts
                    s.clearWarnings();
                    try (ResultSet rs = s.executeQuery("INSERT INTO " + st + " VALUES " + values(3, 30 * 60, 1) + ", "
                            + values(6, 2 * 3600 + 2, 1) + " RETURNING *")) {
                        assertTrue(rs.next());
                        assertNull(rs.getObject(st + "_m_total"));
                        assertTrue(rs.next());
                        assertEquals(15.0, rs.getDouble(st + "_m_total"), 0.0);
                        assertEquals(6, rs.getLong(st + "_m_n"));
                    }
                    assertNotices(s, List.of("event 3 is a duplicate"));
                }
                // A late event that was never accepted follows the policy.
                PSQLException late = assertThrows(PSQLException.class,
                        () -> s.execute("INSERT INTO p_reject VALUES " + values(7, 3600, 1)));
                assertEquals("22008", late.getSQLState());
                assertTrue(late.getMessage().contains("is late"), late.getMessage());
                applied(s, "p_clamp", 7, 3600, 1, 16, 7); // clamped to S - lateness: inside the 3-hour window
                assertEquals(0, s.executeUpdate("INSERT INTO p_drop VALUES " + values(7, 3600, 1)));
                applied(s, "p_reject", 8, 2 * 3600 + 3, 1, 16, 7);
                applied(s, "p_drop", 8, 2 * 3600 + 3, 1, 16, 7);
            }
        }
    }

    @Test
    void beyondTheHorizonARetryIsANewEvent() throws Exception {
        try (TestNode node = new TestNode(dir); Connection c = node.connect(); Statement s = c.createStatement()) {
            createStream(s, "short_reject", "reject", "1 hour");
            createStream(s, "short_clamp", "clamp", "1 hour");
            assertEquals("22023", assertThrows(PSQLException.class, () -> createStream(s, "bad", "reject",
                    "5 seconds")).getSQLState(), "a horizon shorter than the lateness");
            for (String st : new String[] {"short_reject", "short_clamp"}) {
                applied(s, st, 1, 0, 10, 10, 1);
                applied(s, st, 2, 2 * 3600, 1, 11, 2);
                duplicate(s, st, 2, 2 * 3600, 1);
            }
            assertEquals("22008", assertThrows(PSQLException.class,
                    () -> s.execute("INSERT INTO short_reject VALUES " + values(1, 0, 10))).getSQLState());
            // under clamp, an event retried after its id left the horizon is counted again: size the horizon
            applied(s, "short_clamp", 1, 0, 10, 21, 3);
            try (ResultSet rs = s.executeQuery("SELECT dedup_horizon FROM coilgun.streams WHERE name = 'short_clamp'")) {
                assertTrue(rs.next());
                assertEquals("1 HOUR", rs.getString(1));
            }
            assertNotNull(s);
        }
    }
}
