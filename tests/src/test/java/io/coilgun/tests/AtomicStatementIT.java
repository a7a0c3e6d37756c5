package io.coilgun.tests;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.StringReader;
import java.nio.file.Files;
import java.sql.ResultSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.postgresql.PGConnection;
import org.postgresql.util.PSQLException;

/**
 * A multi-row INSERT or a COPY with a late row (late_events = 'reject') applies none of its rows, and the error
 * names the row: the rows are judged against their tasks' stream times, raised by the statement's own earlier
 * rows, before anything is published. What was applied is read back through the metrics of a following INSERT.
 */
@Tag("integration")
@Timeout(300)
class AtomicStatementIT {
    @TempDir
    Path dir;

    static String row(long id, String time, String card, double amount) {
        return "(" + id + ", TIMESTAMP '2026-01-01 " + time + "', '" + card + "', 'm1', " + amount + ")";
    }

    @Test
    void aLateRowFailsTheWholeInsertOrCopy() throws Exception {
        try (TestNode node = new TestNode(dir); Connection c = node.connect(); Statement s = c.createStatement()) {
            s.execute(WalkingSkeletonIT.CREATE_STREAM); // lateness 10 seconds, late_events reject
            s.execute(WalkingSkeletonIT.CREATE_METRIC);
            StreamDropIT.assertTotals(s, "INSERT INTO payments VALUES " + row(1, "10:00:00", "c1", 10.0)
                    + " RETURNING *", 10.0, 1);

            // Row 1 raises c1's stream time to 10:00:30, so row 3 (10:00:05) is late; row 2 goes to c2's task.
            PSQLException late = assertThrows(PSQLException.class, () -> s.execute("INSERT INTO payments VALUES "
                    + row(2, "10:00:30", "c1", 1.0) + ", " + row(3, "10:00:31", "c2", 2.0) + ", "
                    + row(4, "10:00:05", "c1", 4.0) + " RETURNING *"));
            assertEquals("22008", late.getSQLState());
            String message = late.getServerErrorMessage().getMessage();
            assertTrue(message.startsWith("row 3 of the INSERT is late: its event time 2026-01-01 10:00:05 is older "
                    + "than the stream time 2026-01-01 10:00:30 minus the lateness 10 SECONDS"), message);
            assertTrue(message.endsWith("nothing was applied"), message);

            // Nothing of it was applied: c1's stream time is still 10:00:00 (10:00:06 is not late) and its window
            // holds event 1 only; c2 has no event yet.
            StreamDropIT.assertTotals(s, "INSERT INTO payments VALUES " + row(5, "10:00:06", "c1", 1.0)
                    + " RETURNING *", 11.0, 2);
            StreamDropIT.assertTotals(s, "INSERT INTO payments VALUES " + row(6, "10:00:07", "c2", 3.0)
                    + " RETURNING *", 3.0, 1);
            // A row late against the task's own stream time alone, in the middle of a statement.
            BadInputIT.expect(s, "INSERT INTO payments VALUES " + row(7, "10:00:08", "c2", 1.0) + ", "
                    + row(8, "09:00:00", "c1", 1.0) + ", " + row(9, "10:00:09", "c1", 1.0), "22008", 0);

            // The same through COPY: line 3 (the second row, after the header) is late after line 2.
            var copy = c.unwrap(PGConnection.class).getCopyAPI();
            PSQLException lateCopy = assertThrows(PSQLException.class, () -> copy.copyIn(
                    "COPY payments FROM STDIN WITH (FORMAT csv, HEADER true)",
                    new StringReader("id,ts,card_id,merchant_id,amount\n10,2026-01-01 10:01:00,c1,m1,100\n"
                            + "11,2026-01-01 10:00:10,c1,m1,100\n12,2026-01-01 10:00:11,c2,m1,100\n")));
            assertEquals("22008", lateCopy.getSQLState());
            assertTrue(lateCopy.getServerErrorMessage().getMessage().startsWith("row 2 of the COPY (line 3) is late"),
                    lateCopy.getMessage());
            assertTrue(lateCopy.getServerErrorMessage().getWhere().contains("COPY payments, line 3"),
                    lateCopy.getMessage());
            StreamDropIT.assertTotals(s, "INSERT INTO payments VALUES " + row(13, "10:00:11", "c1", 1.0)
                    + " RETURNING *", 12.0, 3);
            StreamDropIT.assertTotals(s, "INSERT INTO payments VALUES " + row(14, "10:00:12", "c2", 1.0)
                    + " RETURNING *", 4.0, 2);

            // A COPY without a late row applies all of it.
            assertEquals(2, copy.copyIn("COPY payments FROM STDIN WITH (FORMAT csv)", new StringReader(
                    "15,2026-01-01 10:00:13,c1,m1,1\n16,2026-01-01 10:00:14,c1,m1,1\n")));
            StreamDropIT.assertTotals(s, "INSERT INTO payments VALUES " + row(17, "10:00:15", "c1", 1.0)
                    + " RETURNING *", 15.0, 6);
        }
    }

    /**
     * A COPY bigger than what the node keeps in memory (1,000 rows in the tests' JVM, see tests/pom.xml; past them it
     * spools and publishes in batches of 400) is still all or none: a row late only against the COPY's own earlier
     * rows, 1,500 rows and several batches later, and a bad value at line 2,000, each apply nothing; the whole COPY
     * then applies every row, exactly, and sent again counts none twice. The spool is gone after each.
     */
    @Test
    void aCopyBiggerThanMemoryIsStillAllOrNone() throws Exception {
        int rows = 3_000;
        try (TestNode node = new TestNode(dir); Connection c = node.connect(); Statement s = c.createStatement()) {
            s.execute(WalkingSkeletonIT.CREATE_STREAM); // lateness 10 seconds, late_events reject
            s.execute(WalkingSkeletonIT.CREATE_METRIC);
            var copy = c.unwrap(PGConnection.class).getCopyAPI();
            java.util.function.IntFunction<String> line = i -> i + ",2026-01-01 10:00:" + String.format("%02d.%02d",
                    i / 100, i % 100) + ",c" + (i % 50) + ",m1," + (i % 100) + "\n";
            StringBuilder good = new StringBuilder();
            for (int i = 1; i <= rows; i++) {
                good.append(line.apply(i));
            }
            // line 2,500 at 10:00:00.50: late only against the COPY's rows before it (stream time 10:00:24.99)
            String late = good.toString().replace(line.apply(2_500), "2500,2026-01-01 10:00:00.50,c0,m1,1\n");
            PSQLException lateCopy = assertThrows(PSQLException.class, () -> copy.copyIn(
                    "COPY payments FROM STDIN WITH (FORMAT csv)", new StringReader(late)));
            assertEquals("22008", lateCopy.getSQLState());
            assertTrue(lateCopy.getServerErrorMessage().getMessage().startsWith(
                    "row 2500 of the COPY (line 2500) is late"), lateCopy.getMessage());
            String bad = good.toString().replace(line.apply(2_000), "2000,2026-01-01 10:00:20,c0,m1,x\n");
            PSQLException badCopy = assertThrows(PSQLException.class, () -> copy.copyIn(
                    "COPY payments FROM STDIN WITH (FORMAT csv)", new StringReader(bad)));
            assertEquals("22P02", badCopy.getSQLState(), badCopy.getMessage());
            assertTrue(badCopy.getServerErrorMessage().getWhere().contains("line 2000"), badCopy.getMessage());
            assertEquals(0, StreamDropIT.rows(s, "SELECT * FROM card_5m"), "nothing applied");
            assertEquals(List.of(), spooled(), "the spool of the failed COPYs is gone");

            assertEquals(rows, copy.copyIn("COPY payments FROM STDIN WITH (FORMAT csv)",
                    new StringReader(good.toString())));
            Map<String, double[]> expected = new HashMap<>();
            for (int i = 1; i <= rows; i++) {
                double[] v = expected.computeIfAbsent("c" + (i % 50), k -> new double[2]);
                v[0] += i % 100;
                v[1]++;
            }
            assertEquals(expected.keySet(), totals(s).keySet());
            totals(s).forEach((card, v) -> assertArrayEquals(expected.get(card), v, 0.0, card));
            assertEquals(0, copy.copyIn("COPY payments FROM STDIN WITH (FORMAT csv)",
                    new StringReader(good.toString())), "sent again: every row a duplicate");
            totals(s).forEach((card, v) -> assertArrayEquals(expected.get(card), v, 0.0, card));
            assertEquals(List.of(), spooled(), "the spool is gone");
        }
    }

    private List<Path> spooled() throws java.io.IOException {
        Path spool = dir.resolve("copy-spool");
        if (!Files.isDirectory(spool)) {
            return List.of();
        }
        try (var files = Files.list(spool)) {
            return files.toList();
        }
    }

    private static Map<String, double[]> totals(Statement s) throws java.sql.SQLException {
        Map<String, double[]> out = new HashMap<>();
        try (ResultSet rs = s.executeQuery("SELECT card_id, total, n FROM card_5m")) {
            while (rs.next()) {
                out.put(rs.getString(1), new double[] {rs.getDouble(2), rs.getLong(3)});
            }
        }
        return out;
    }
}
