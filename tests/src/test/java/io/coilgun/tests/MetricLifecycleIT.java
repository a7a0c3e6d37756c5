package io.coilgun.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Metrics come and go on a live stream: a metric created after events starts empty, DROP METRIC takes it out of
 * the plan (and of RETURNING) without touching the others, the drop survives a restart, and a metric created
 * again under the same name starts empty, not with the old state.
 */
@Tag("integration")
@Timeout(300)
@SecondNodeLane
class MetricLifecycleIT {
    @TempDir
    Path dir;

    static String insert(long id, String time, double amount) {
        return "INSERT INTO payments VALUES (" + id + ", TIMESTAMP '2026-01-01 " + time + "', 'c1', 'm1', " + amount
                + ") RETURNING *";
    }

    @Test
    void createDropRecreate() throws Exception {
        try (TestNode node = new TestNode(dir)) {
            try (Connection c = node.connect(); Statement s = c.createStatement()) {
                s.execute(WalkingSkeletonIT.CREATE_STREAM);
                s.execute(WalkingSkeletonIT.CREATE_METRIC);
                s.executeQuery(insert(1, "10:00:00", 10.0)).close();
                s.execute("CREATE METRIC card_max AS SELECT MAX(amount) AS hi FROM payments GROUP BY card_id "
                        + "OVER INFINITE");
                try (ResultSet rs = s.executeQuery(insert(2, "10:00:01", 5.0))) {
                    assertTrue(rs.next());
                    assertEquals(15.0, rs.getDouble("card_5m_total"), 0.0);
                    assertEquals(5.0, rs.getDouble("card_max_hi"), 0.0, "a new metric starts empty");
                }
                try (ResultSet rs = s.executeQuery("SHOW METRICS")) {
                    assertTrue(rs.next());
                    assertEquals("card_5m", rs.getString("name"));
                    assertTrue(rs.next());
                    assertEquals("card_max", rs.getString("name"));
                    assertEquals("INFINITE", rs.getString("window"));
                    assertTrue(rs.getString("history").startsWith("started empty when created"));
                    assertTrue(!rs.next());
                }
                try (ResultSet rs = s.executeQuery("SHOW STREAMS")) {
                    assertTrue(rs.next());
                    assertEquals("payments", rs.getString("name"));
                    assertEquals("card_id", rs.getString("partition_by"));
                }
                s.execute("DROP METRIC card_max");
                try (ResultSet rs = s.executeQuery("SHOW METRICS")) {
                    assertTrue(rs.next());
                    assertTrue(!rs.next(), "card_max is gone");
                }
                try (ResultSet rs = s.executeQuery(insert(3, "10:00:02", 1.0))) {
                    assertTrue(rs.next());
                    assertEquals(3, rs.getMetaData().getColumnCount(), "id and card_5m's two columns");
                    assertEquals(16.0, rs.getDouble("card_5m_total"), 0.0, "the other metric is untouched");
                }
                BadInputIT.expect(s, "DROP METRIC card_max", "42P01", 13);
                s.execute("DROP METRIC IF EXISTS card_max");
            }
            node.restart();
            try (Connection c = node.connect(); Statement s = c.createStatement()) {
                try (ResultSet rs = s.executeQuery(insert(4, "10:00:03", 2.0))) {
                    assertTrue(rs.next());
                    assertEquals(3, rs.getMetaData().getColumnCount(), "still dropped after a restart");
                }
                // a server-prepared INSERT ... RETURNING * (pgjdbc names it after 5 executions) whose columns
                // change: refused as Postgres refuses it (0A000, RevalidateCachedQuery), before anything is
                // applied; pgjdbc prepares it again and retries, so the application sees the new columns
                PreparedStatement ps = c.prepareStatement("INSERT INTO payments VALUES (?, ?, 'c2', 'm1', 1.0) "
                        + "RETURNING *");
                for (int i = 0; i < 6; i++) {
                    ps.setLong(1, 100 + i);
                    ps.setTimestamp(2, java.sql.Timestamp.valueOf("2026-01-01 10:00:1" + i));
                    try (ResultSet rs = ps.executeQuery()) {
                        assertTrue(rs.next());
                        assertEquals(i + 1, rs.getLong("card_5m_n"));
                    }
                }
                s.execute("CREATE METRIC card_max AS SELECT MAX(amount) AS hi FROM payments GROUP BY card_id "
                        + "OVER INFINITE");
                ps.setLong(1, 106);
                ps.setTimestamp(2, java.sql.Timestamp.valueOf("2026-01-01 10:00:16"));
                try (ResultSet rs = ps.executeQuery()) {
                    assertTrue(rs.next());
                    assertEquals(7, rs.getLong("card_5m_n"), "applied once, after pgjdbc prepared it again");
                    assertEquals(1.0, rs.getDouble("card_max_hi"), 0.0);
                }
                try (ResultSet rs = s.executeQuery(insert(5, "10:00:17", 3.0))) {
                    assertTrue(rs.next());
                    assertEquals(3.0, rs.getDouble("card_max_hi"), 0.0, "created again: empty, not the old state");
                    assertEquals(21.0, rs.getDouble("card_5m_total"), 0.0);
                }
            }
        }
    }
}
