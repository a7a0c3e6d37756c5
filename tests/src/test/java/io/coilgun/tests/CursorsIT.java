package io.coilgun.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Cursors read their query as they are fetched, in a node of its own process started as a user starts one. */
@Tag("integration")
@Timeout(300)
@SecondNodeLane // one node of its own process, its embedded broker inside: light beside the clusters
class CursorsIT {
    @TempDir
    Path dir;

    /**
     * A cursor streams its query rather than holding its rows (issue 40), in a node of -Xmx512m: ten million rows
     * through a NO SCROLL cursor (nothing kept), a million through a scrollable one (all but the first 10,000 kept in
     * its spool file to go back to; ten million take 4 s, docs/sql.md).
     */
    @Test
    void tenMillionRowsThroughCursorsInAHalfGigabyteNode() throws Exception {
        int port = NodeCrashIT.freePort();
        Process node = NodeCrashIT.start(dir.resolve("data"), "-Xmx512m", port, 0);
        try (Connection conn = NodeCrashIT.connect(port); Statement st = conn.createStatement()) {
            conn.setAutoCommit(false);
            st.execute("DECLARE c SCROLL CURSOR FOR SELECT g, 'row ' || g AS label FROM generate_series(1, 1000000) "
                    + "AS t(g)");
            st.execute("MOVE FORWARD ALL IN c");
            assertEquals(1_000_000, st.getUpdateCount());
            assertEquals(List.of(1_000_000L, 999_999L), column(st, "FETCH BACKWARD 2 FROM c"));
            assertEquals(List.of(500_000L), column(st, "FETCH ABSOLUTE 500000 FROM c"));
            assertEquals(List.of(1L), column(st, "FETCH FIRST FROM c"));
            st.execute("DECLARE d NO SCROLL CURSOR FOR SELECT g FROM generate_series(1, 10000000) AS t(g)");
            st.execute("MOVE FORWARD 9999999 IN d");
            assertEquals(List.of(10_000_000L), column(st, "FETCH FORWARD 5 FROM d"));
            conn.commit();
        } finally {
            node.destroyForcibly();
            node.waitFor(30, TimeUnit.SECONDS);
        }
    }

    private static List<Long> column(Statement st, String sql) throws SQLException {
        List<Long> values = new ArrayList<>();
        try (ResultSet rs = st.executeQuery(sql)) {
            while (rs.next()) {
                values.add(rs.getLong(1));
            }
        }
        return values;
    }
}
