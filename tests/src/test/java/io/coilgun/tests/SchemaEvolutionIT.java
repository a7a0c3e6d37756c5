package io.coilgun.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * ALTER STREAM ... ADD COLUMN on a live stream: the metric keeps its window across the change, events take the new
 * column, and after a restart the catalog replays CREATE then ALTER and the old events still read back.
 */
@Tag("integration")
@Timeout(300)
@SecondNodeLane
class SchemaEvolutionIT {
    @TempDir
    Path dir;

    @Test
    void addColumnOnALiveStream() throws Exception {
        try (TestNode node = new TestNode(dir)) {
            try (Connection c = node.connect(); Statement s = c.createStatement()) {
                s.execute(WalkingSkeletonIT.CREATE_STREAM);
                s.execute(WalkingSkeletonIT.CREATE_METRIC);
                WalkingSkeletonIT.assertRow(s, "INSERT INTO payments VALUES (1, TIMESTAMP '2026-01-01 10:00:00', "
                        + "'c1', 'm1', 10.0) RETURNING *", 1, 10.0, 1);
                s.execute("ALTER STREAM payments ADD COLUMN country VARCHAR");
                BadInputIT.expect(s, "INSERT INTO payments VALUES (2, TIMESTAMP '2026-01-01 10:01:00', 'c1', 'm1', "
                        + "5.0)", "42601", 0);
                WalkingSkeletonIT.assertRow(s, "INSERT INTO payments VALUES (2, TIMESTAMP '2026-01-01 10:01:00', "
                        + "'c1', 'm1', 5.0, 'PT') RETURNING *", 2, 15.0, 2);
                s.execute("CREATE METRIC card_countries AS SELECT COUNT(country) AS n FROM payments "
                        + "GROUP BY card_id OVER SLIDING 1 HOUR");
            }
            node.restart();
            try (Connection c = node.connect(); Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("INSERT INTO payments (id, ts, card_id, merchant_id, amount, country) "
                            + "VALUES (3, TIMESTAMP '2026-01-01 10:04:00', 'c1', 'm1', 1.0, 'ES') RETURNING *")) {
                assertTrue(rs.next());
                assertEquals(16.0, rs.getDouble("card_5m_total"), 0.0, "events of both schema versions");
                assertEquals(3, rs.getLong("card_5m_n"));
                assertEquals(1, rs.getLong("card_countries_n"), "the new metric started empty after event 2");
            }
        }
    }
}
