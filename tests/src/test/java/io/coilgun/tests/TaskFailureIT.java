package io.coilgun.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.postgresql.util.PSQLException;

/**
 * A failure while a task applies an event stays inside that task: the event's statement gets XX000 at once, the task
 * rolls back to its last checkpoint, skips the event (recorded in coilgun.failed_events) and goes on with every other
 * event exact; the rest of the node never notices. A task that fails again and again stops alone: statements for it
 * fail fast with 55000, the others go on, and a restart reopens it. Faults come from {@code TestFaults}: an event
 * whose merchant_id is 'coilgun:fail' makes its task throw halfway through aggregating it.
 */
@Tag("integration")
@Timeout(300)
class TaskFailureIT {
    @TempDir
    Path dir;

    /** Expected SUM(amount) and COUNT(*) per card: every event is inside the 5-minute window. */
    private final Map<String, double[]> expected = new HashMap<>();
    private int second;

    private String event(long id, String card, String merchant, double amount) {
        second++;
        return "INSERT INTO payments VALUES (" + id + ", TIMESTAMP '2026-01-01 10:" + String.format("%02d:%02d",
                second / 60, second % 60) + "', '" + card + "', '" + merchant + "', " + amount + ") RETURNING *";
    }

    /** Four rows of one card; the third makes its task fail. */
    private String multiRow(long firstId, String card) {
        StringBuilder sql = new StringBuilder("INSERT INTO payments VALUES ");
        for (int r = 0; r < 4; r++) {
            String one = event(firstId + r, card, r == 2 ? "coilgun:fail" : "m1", firstId + r);
            sql.append(r == 0 ? "" : ", ").append(one, one.indexOf('('), one.indexOf(" RETURNING"));
        }
        return sql.append(" RETURNING *").toString();
    }

    /** An event that applies: its RETURNING row equals the card's expected totals. */
    private void applies(Statement s, long id, String card) throws SQLException {
        double[] e = expected.computeIfAbsent(card, k -> new double[2]);
        e[0] += id;
        e[1]++;
        StreamDropIT.assertTotals(s, event(id, card, "m1", id), e[0], (long) e[1]);
    }

    /** An event its task fails on: the statement fails at once with XX000, nothing of it counts. */
    private void fails(Statement s, long id, String card) {
        long start = System.nanoTime();
        PSQLException e = assertThrows(PSQLException.class, () -> s.executeQuery(event(id, card, "coilgun:fail", id)));
        long ms = (System.nanoTime() - start) / 1_000_000;
        assertEquals("XX000", e.getSQLState(), e.getMessage());
        assertTrue(e.getMessage().contains("failed on this event and skipped it"), e.getMessage());
        assertTrue(e.getMessage().contains("injected test fault"), e.getMessage());
        assertTrue(ms < 5_000, "the failed statement answered after " + ms + " ms");
    }

    @Test
    void aFailingEventIsAnsweredSkippedAndRecordedWhileEverythingElseGoesOn() throws Exception {
        try (TestNode node = new TestNode(dir)) {
            try (Connection c = node.connect(); Statement s = c.createStatement()) {
                s.execute(WalkingSkeletonIT.CREATE_STREAM);
                s.execute(WalkingSkeletonIT.CREATE_METRIC);
                for (int i = 1; i <= 24; i++) {
                    applies(s, i, "c" + i % 8);
                }
                fails(s, 100, "c1");
                // Rows of one statement arrive in one poll, after the task's last checkpoint: the rollback replays
                // rows 1 and 2 (not counting or answering them twice), skips row 3 and applies row 4. The statement
                // fails with row 3's error; its other rows stay applied (docs/sql.md, "what a failed task does").
                // A subscriber sees each applied event once: none of the rows applied again by the rollback.
                Connection reader = node.connect();
                reader.setAutoCommit(false);
                Statement subscribe = reader.createStatement();
                subscribe.setFetchSize(1);
                CompletableFuture<List<Long>> fed = CompletableFuture.supplyAsync(() -> {
                    List<Long> ids = new ArrayList<>();
                    try (ResultSet rs = subscribe.executeQuery("SUBSCRIBE card_5m WHERE card_id = 'c2'")) {
                        while (!ids.contains(26L) && rs.next()) {
                            ids.add(rs.getLong("id"));
                        }
                    } catch (SQLException e) {
                        throw new IllegalStateException(e);
                    }
                    return ids;
                });
                node.awaitSubscriptions(n -> n == 1);
                PSQLException multi = assertThrows(PSQLException.class, () -> s.executeQuery(multiRow(101, "c2")));
                assertEquals("XX000", multi.getSQLState());
                assertTrue(multi.getMessage().contains("row 3: task"), multi.getMessage());
                assertTrue(multi.getMessage().contains("these rows were applied nonetheless: 1, 2, 4"),
                        multi.getMessage());
                for (long id : new long[] {101, 102, 104}) {
                    expected.computeIfAbsent("c2", k -> new double[2])[0] += id;
                    expected.get("c2")[1]++;
                }
                // The task that failed rolled back and replayed its records since the checkpoint: every card, on
                // every task (some share the failed task's processor unit), is exact and the failed event absent.
                for (int i = 25; i <= 48; i++) {
                    applies(s, i, "c" + i % 8);
                }
                assertEquals(List.of(101L, 102L, 104L, 26L), fed.get(30, TimeUnit.SECONDS));
                reader.close();
                try (ResultSet rs = s.executeQuery("SELECT task, state, error, error_at, failed_events "
                        + "FROM coilgun.tasks WHERE failed_events > 0")) {
                    for (int task = 0; task < 2; task++) { // c1's and c2's
                        assertTrue(rs.next());
                        assertEquals("running", rs.getString("state"));
                        assertTrue(rs.getString("error").contains("injected test fault"), rs.getString("error"));
                        assertTrue(rs.getTimestamp("error_at") != null);
                        assertEquals(1, rs.getLong("failed_events"));
                    }
                    assertFalse(rs.next());
                }
                assertFailedEvents(s, "100", "103");
                assertGroup(s, "c1");
            }
            node.restart();
            try (Connection c = node.connect(); Statement s = c.createStatement()) {
                for (int i = 49; i <= 64; i++) {
                    applies(s, i, "c" + i % 8);
                }
                assertFailedEvents(s, "100", "103");
                assertGroup(s, "c1");
                assertGroup(s, "c2");

                // Five failures within a minute: the task stops, alone.
                for (int i = 200; i < 205; i++) {
                    fails(s, i, "c1");
                }
                try (ResultSet rs = s.executeQuery("SELECT state, error FROM coilgun.tasks WHERE state <> 'running'")) {
                    assertTrue(rs.next());
                    assertEquals("failed", rs.getString("state"));
                    assertTrue(rs.getString("error").startsWith("failed 5 times within 60 s"), rs.getString("error"));
                    assertFalse(rs.next());
                }
                long start = System.nanoTime();
                PSQLException stopped = assertThrows(PSQLException.class, () -> s.executeQuery(event(300, "c1", "m1", 1)));
                assertEquals("55000", stopped.getSQLState());
                assertTrue(stopped.getMessage().contains("is stopped"), stopped.getMessage());
                assertTrue((System.nanoTime() - start) / 1_000_000 < 5_000);
                assertEquals("55000", assertThrows(PSQLException.class,
                        () -> s.executeQuery("SELECT * FROM card_5m")).getSQLState());
                // The other tasks go on: cards on other tasks answer exactly; those on the stopped one fail fast.
                int answered = 0;
                for (int i = 65; i <= 80; i++) {
                    String card = "c" + i % 8;
                    try {
                        applies(s, i, card);
                        answered++;
                    } catch (PSQLException e) {
                        assertEquals("55000", e.getSQLState(), e.getMessage());
                        double[] e2 = expected.get(card);
                        e2[0] -= i; // not applied
                        e2[1]--;
                    }
                }
                assertTrue(answered >= 8, "cards on running tasks answered " + answered + " times");
            }
            node.restart();
            try (Connection c = node.connect(); Statement s = c.createStatement()) {
                // Reopened: the fifth failing event (never recorded before the stop) failed again on replay and was
                // skipped; the four before it were skipped from the record.
                for (int i = 81; i <= 96; i++) {
                    applies(s, i, "c" + i % 8);
                }
                assertFailedEvents(s, "100", "103", "200", "201", "202", "203", "204");
                try (ResultSet rs = s.executeQuery("SELECT count(*) FROM coilgun.tasks WHERE state = 'running'")) {
                    assertTrue(rs.next());
                    assertEquals(4, rs.getLong(1));
                }
                assertGroup(s, "c1");
                assertGroup(s, "c2");
            }
        }
    }

    private static void assertFailedEvents(Statement s, String... ids) throws SQLException {
        try (ResultSet rs = s.executeQuery("SELECT event_id, error, kafka_offset, event_time, failed_at "
                + "FROM coilgun.failed_events ORDER BY event_id")) {
            for (String id : ids) {
                assertTrue(rs.next(), "failed event " + id);
                assertEquals(id, rs.getString("event_id"));
                assertTrue(rs.getString("error").contains("injected test fault"), rs.getString("error"));
                assertTrue(rs.getTimestamp("event_time") != null && rs.getTimestamp("failed_at") != null);
            }
            assertFalse(rs.next());
        }
    }

    /** SELECT over the metric agrees with what the events answered. */
    private void assertGroup(Statement s, String card) throws SQLException {
        try (ResultSet rs = s.executeQuery("SELECT total, n FROM card_5m WHERE card_id = '" + card + "'")) {
            assertTrue(rs.next());
            assertEquals(expected.get(card)[0], rs.getDouble("total"), 0.0);
            assertEquals((long) expected.get(card)[1], rs.getLong("n"));
        }
    }
}
