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
import java.sql.Statement;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.postgresql.util.PSQLException;

/**
 * Bad input gets a clear ErrorResponse with the Postgres SQLSTATE (and position where it points into the SQL),
 * the connection stays usable, and nothing is inserted.
 */
@Tag("integration")
@Timeout(300)
class BadInputIT {
    @TempDir
    Path dir;

    @Test
    void errorsAreClearAndChangeNothing() throws Exception {
        try (TestNode node = new TestNode(dir); Connection c = node.connect(); Statement s = c.createStatement()) {
            s.execute(WalkingSkeletonIT.CREATE_STREAM);
            s.execute(WalkingSkeletonIT.CREATE_METRIC);

            String ok = "INSERT INTO payments VALUES (1, TIMESTAMP '2026-01-01 10:00:00', 'c1', 'm1', 10.0) RETURNING *";

            // malformed SQL: 42601 at the offending token
            expect(s, "INSERT INTO payments VALUE (1, TIMESTAMP '2026-01-01 10:00:00', 'c1', 'm1', 10.0)",
                    "42601", 22);
            expect(s, "SELEC 1", "42601", 1);
            // unknown stream: 42P01 at the name
            expect(s, "INSERT INTO paymentz VALUES (1, TIMESTAMP '2026-01-01 10:00:00', 'c1', 'm1', 10.0)",
                    "42P01", 13);
            expect(s, "CREATE METRIC m AS SELECT COUNT(*) AS n FROM nope GROUP BY card_id OVER SLIDING 5 MINUTES",
                    "42P01", 46);
            // unknown column: 42703 at the column
            expect(s, "INSERT INTO payments (id, ts, card, merchant_id, amount) VALUES (1, "
                    + "TIMESTAMP '2026-01-01 10:00:00', 'c1', 'm1', 10.0)", "42703", 31);
            expect(s, "CREATE METRIC m AS SELECT SUM(amt) AS t FROM payments GROUP BY card_id OVER SLIDING 5 MINUTES",
                    "42703", 31);
            // wrong column count
            expect(s, "INSERT INTO payments VALUES (1, TIMESTAMP '2026-01-01 10:00:00', 'c1', 'm1', 10.0, 7)",
                    "42601", 0);
            expect(s, "INSERT INTO payments VALUES (1, TIMESTAMP '2026-01-01 10:00:00', 'c1')", "42601", 0);
            // wrong types
            expect(s, "INSERT INTO payments VALUES ('x', TIMESTAMP '2026-01-01 10:00:00', 'c1', 'm1', 10.0)",
                    "22P02", 30);
            expect(s, "INSERT INTO payments VALUES (1, TIMESTAMP '2026-01-01 10:00:00', 'c1', 'm1', TRUE)",
                    "42804", 0);
            expect(s, "INSERT INTO payments VALUES (1, 'yesterday-ish', 'c1', 'm1', 1.0)", "22007", 33);
            // NULL event time
            expect(s, "INSERT INTO payments VALUES (1, NULL, 'c1', 'm1', 10.0)", "23502", 0);
            // a multi-row INSERT with one bad row applies none of its rows
            expect(s, "INSERT INTO payments VALUES (5, TIMESTAMP '2026-01-01 10:00:00', 'c1', 'm1', 10.0), "
                    + "(6, NULL, 'c1', 'm1', 10.0)", "23502", 0);
            // an event far in the future
            expect(s, "INSERT INTO payments VALUES (7, TIMESTAMP '2999-01-01 00:00:00', 'c1', 'm1', 1.0)", "22008", 0);
            // duplicate objects
            expect(s, WalkingSkeletonIT.CREATE_STREAM, "42P07", 0);

            // the connection still works, and none of the failed statements inserted anything
            try (ResultSet rs = s.executeQuery(ok)) {
                assertTrue(rs.next());
                assertEquals(10.0, rs.getDouble("card_5m_total"), 0.0);
                assertEquals(1, rs.getLong("card_5m_n"));
            }
            // a late event (older than stream time minus 10 s lateness) is rejected by the task and changes nothing
            s.executeQuery("INSERT INTO payments VALUES (8, TIMESTAMP '2026-01-01 10:01:00', 'c1', 'm1', 1.0) "
                    + "RETURNING *").close();
            expect(s, "INSERT INTO payments VALUES (9, TIMESTAMP '2026-01-01 10:00:30', 'c1', 'm1', 100.0)", "22008", 0);
            try (ResultSet rs = s.executeQuery("INSERT INTO payments VALUES (10, TIMESTAMP '2026-01-01 10:01:01', "
                    + "'c1', 'm1', 2.0) RETURNING *")) {
                assertTrue(rs.next());
                assertEquals(13.0, rs.getDouble("card_5m_total"), 0.0);
                assertEquals(3, rs.getLong("card_5m_n"));
            }
            // a duplicate event id is not counted again; the reply says so with a NOTICE
            s.clearWarnings();
            try (ResultSet rs = s.executeQuery("INSERT INTO payments VALUES (10, TIMESTAMP '2026-01-01 10:01:01', "
                    + "'c1', 'm1', 2.0) RETURNING *")) {
                assertTrue(rs.next());
                assertEquals(10, rs.getLong("id"));
                assertNull(rs.getObject("card_5m_total"));
                java.sql.SQLWarning w = s.getWarnings();
                assertNotNull(w, "a NOTICE for the duplicate");
                assertTrue(w.getMessage().contains("event 10 is a duplicate"), w.getMessage());
            }
            try (ResultSet rs = s.executeQuery("INSERT INTO payments VALUES (11, TIMESTAMP '2026-01-01 10:01:02', "
                    + "'c1', 'm1', 1.0) RETURNING *")) {
                assertTrue(rs.next());
                assertEquals(14.0, rs.getDouble("card_5m_total"), 0.0);
                assertEquals(4, rs.getLong("card_5m_n"));
            }
        }
    }

    static void expect(Statement s, String sql, String state, int position) {
        SQLException e = assertThrows(SQLException.class, () -> s.execute(sql), sql);
        assertEquals(state, e.getSQLState(), () -> sql + " -> " + e.getMessage());
        if (position > 0) {
            assertEquals(position, ((PSQLException) e).getServerErrorMessage().getPosition(),
                    () -> sql + " -> " + e.getMessage());
        }
    }
}
