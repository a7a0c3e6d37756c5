package io.coilgun.server.session;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.coilgun.sql.query.SessionActivity;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A node's sessions as another node receives them. */
class ClusterSessionsTest {
    @Test
    void sessionsCrossToAnotherNodeWithTheirNode() {
        SessionActivity full = new SessionActivity(7 << 20 | 5, "alice", "coilgun", "psql", "127.0.0.1", 51000,
                1_000L, 2_000L, 3_000L, 4_000L, "active", "SELECT pg_sleep(1)", "n2");
        SessionActivity sparse = new SessionActivity(9, "bob", "coilgun", null, null, null, 5L, null, null, null,
                "idle", null, "n2");
        String longQuery = "SELECT '" + "x".repeat(5000) + "'";
        SessionActivity verbose = new SessionActivity(10, "carol", "coilgun", "app", null, null, 6L, null, 7L, 7L,
                "active", longQuery, "n2");
        List<SessionActivity> back = ClusterSessions.decode(ClusterSessions.encode(List.of(full, sparse, verbose)),
                "n2");
        assertEquals(full, back.get(0));
        assertEquals(sparse, back.get(1));
        assertEquals(longQuery.substring(0, ClusterSessions.QUERY_CHARS), back.get(2).query(),
                "a long statement is cut as Postgres' track_activity_query_size cuts it");
        assertEquals(Arrays.asList(10, "carol"), Arrays.asList(back.get(2).pid(), back.get(2).user()));
    }
}
