package io.coilgun.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLWarning;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.postgresql.util.PSQLException;
import org.postgresql.util.ServerErrorMessage;

/**
 * DROP STREAM on a real node: refused while metrics depend on the stream (2BP01 with DETAIL and HINT), CASCADE
 * drops them too, the name can be created again at once from scratch (no old events, state, ids or topics, even
 * with another partition count), an INSERT racing the drop fails with 42P01 instead of hanging, and a restart does
 * not bring a dropped stream back.
 */
@Tag("integration")
@Timeout(300)
@SecondNodeLane
class StreamDropIT {
    @TempDir
    Path dir;

    static String insert(long id, String time, double amount) {
        return "INSERT INTO payments VALUES (" + id + ", TIMESTAMP '2026-01-01 " + time + "', 'c1', 'm1', " + amount
                + ") RETURNING *";
    }

    static void assertTotals(Statement s, String sql, double total, long n) throws SQLException {
        try (ResultSet rs = s.executeQuery(sql)) {
            assertTrue(rs.next(), sql);
            assertEquals(total, rs.getDouble("card_5m_total"), 0.0, sql);
            assertEquals(n, rs.getLong("card_5m_n"), sql);
        }
    }

    static int rows(Statement s, String sql) throws SQLException {
        int n = 0;
        try (ResultSet rs = s.executeQuery(sql)) {
            while (rs.next()) {
                n++;
            }
        }
        return n;
    }

    static List<String> warnings(Statement s) throws SQLException {
        List<String> out = new ArrayList<>();
        for (SQLWarning w = s.getWarnings(); w != null; w = w.getNextWarning()) {
            out.add(w.getMessage());
        }
        return out;
    }

    @Test
    void dropRecreateRestart() throws Exception {
        try (TestNode node = new TestNode(dir)) {
            try (Connection c = node.connect(); Statement s = c.createStatement()) {
                s.execute(WalkingSkeletonIT.CREATE_STREAM);
                s.execute(WalkingSkeletonIT.CREATE_METRIC);
                assertTotals(s, insert(1, "10:00:00", 10.0), 10.0, 1);
                assertTotals(s, insert(2, "10:00:01", 5.0), 15.0, 2);

                PSQLException refused = assertThrows(PSQLException.class, () -> s.execute("DROP STREAM payments"));
                assertEquals("2BP01", refused.getSQLState());
                ServerErrorMessage m = refused.getServerErrorMessage();
                assertEquals("cannot drop stream payments because other objects depend on it", m.getMessage());
                assertEquals("metric card_5m depends on stream payments", m.getDetail());
                assertEquals("Use DROP ... CASCADE to drop the dependent objects too.", m.getHint());
                BadInputIT.expect(s, "DROP STREAM payments RESTRICT", "2BP01", 0);
                assertTotals(s, insert(3, "10:00:02", 1.0), 16.0, 3); // refused: nothing changed

                s.execute("DROP STREAM payments CASCADE");
                assertEquals(List.of("drop cascades to metric card_5m"), warnings(s));
                assertEquals(0, rows(s, "SHOW STREAMS"));
                assertEquals(0, rows(s, "SHOW METRICS"));
                BadInputIT.expect(s, insert(4, "10:00:03", 1.0), "42P01", 0);
                BadInputIT.expect(s, "DROP STREAM payments", "42P01", 13);
                s.execute("DROP STREAM IF EXISTS payments");
                assertEquals(List.of("stream \"payments\" does not exist, skipping"), warnings(s));

                // The same name at once, with another partition count: fresh topics, tasks and state.
                s.execute(WalkingSkeletonIT.CREATE_STREAM.replace("partitions = 4", "partitions = 2"));
                s.execute(WalkingSkeletonIT.CREATE_METRIC);
                assertTotals(s, insert(1, "09:00:00", 7.0), 7.0, 1); // not late (old S gone), id 1 not a duplicate
                assertTotals(s, insert(2, "09:00:01", 1.0), 8.0, 2);
                try (ResultSet rs = s.executeQuery("SHOW STREAMS")) {
                    assertTrue(rs.next());
                    assertEquals("2", rs.getString("partitions"));
                }
            }
            node.restart();
            try (Connection c = node.connect(); Statement s = c.createStatement()) {
                assertTotals(s, insert(3, "09:00:02", 2.0), 10.0, 3); // the recreated stream kept its own state
                s.execute("DROP STREAM payments CASCADE");
                s.execute("CREATE STREAM other (t TIMESTAMP, k VARCHAR) WITH (partition_by = 'k', partitions = 1)");
            }
            node.restart();
            try (Connection c = node.connect(); Statement s = c.createStatement()) {
                try (ResultSet rs = s.executeQuery("SHOW STREAMS")) {
                    assertTrue(rs.next());
                    assertEquals("other", rs.getString("name"), "the dropped stream stays dropped");
                    assertFalse(rs.next());
                }
                assertEquals(0, rows(s, "SHOW METRICS"));
                BadInputIT.expect(s, insert(4, "09:00:03", 1.0), "42P01", 0);
                s.execute(WalkingSkeletonIT.CREATE_STREAM);
                s.execute(WalkingSkeletonIT.CREATE_METRIC);
                assertTotals(s, insert(1, "08:00:00", 3.0), 3.0, 1);
            }
        }
    }

    @Test
    void insertsRacingADropFailCleanly() throws Exception {
        try (TestNode node = new TestNode(dir)) {
            try (Connection c = node.connect(); Statement s = c.createStatement()) {
                s.execute(WalkingSkeletonIT.CREATE_STREAM);
                s.execute(WalkingSkeletonIT.CREATE_METRIC);
            }
            AtomicBoolean stop = new AtomicBoolean();
            List<String> unexpected = java.util.Collections.synchronizedList(new ArrayList<>());
            int[] applied = new int[4];
            int[] refused = new int[4];
            List<Thread> writers = new ArrayList<>();
            for (int w = 0; w < 4; w++) {
                int writer = w;
                Thread t = new Thread(() -> {
                    try (Connection c = node.connect(); Statement s = c.createStatement()) {
                        for (long i = 0; !stop.get(); i++) {
                            long id = writer * 1_000_000L + i;
                            StringBuilder sql = new StringBuilder("INSERT INTO payments VALUES ");
                            for (int r = 0; r < 3; r++) {
                                sql.append(r == 0 ? "" : ", ").append("(").append(id * 3 + r)
                                        .append(", TIMESTAMP '2026-01-01 10:00:00', 'c").append(r).append("', 'm', 1)");
                            }
                            try {
                                s.execute(sql.toString());
                                applied[writer]++;
                            } catch (SQLException e) {
                                if ("42P01".equals(e.getSQLState())) {
                                    refused[writer]++;
                                    if (refused[writer] > 3) {
                                        return;
                                    }
                                } else {
                                    unexpected.add(e.getSQLState() + " " + e.getMessage());
                                    return;
                                }
                            }
                        }
                    } catch (SQLException e) {
                        unexpected.add("connection: " + e);
                    }
                }, "writer-" + w);
                t.start();
                writers.add(t);
            }
            Thread.sleep(1_500);
            long start = System.nanoTime();
            try (Connection c = node.connect(); Statement s = c.createStatement()) {
                s.execute("DROP STREAM payments CASCADE");
            }
            for (Thread t : writers) {
                t.join(20_000);
                assertFalse(t.isAlive(), "an INSERT hangs after the drop");
            }
            stop.set(true);
            assertTrue(System.nanoTime() - start < 20_000_000_000L);
            assertEquals(List.of(), unexpected);
            for (int w = 0; w < 4; w++) {
                assertTrue(applied[w] > 0, "writer " + w + " inserted before the drop");
                assertTrue(refused[w] > 0, "writer " + w + " was refused after the drop");
            }
            try (Connection c = node.connect(); Statement s = c.createStatement()) {
                s.execute(WalkingSkeletonIT.CREATE_STREAM);
                s.execute(WalkingSkeletonIT.CREATE_METRIC);
                assertTotals(s, insert(1, "10:00:00", 2.0), 2.0, 1);
            }
        }
    }
}
