package io.coilgun.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Roles and privileges (issue 42) through pgjdbc against a node: a read-only role reads the metric it was granted and
 * nothing else, cannot INSERT, DROP, ALTER or create (42501, nothing changed), told so before anything else about its
 * statement and nothing of other objects (issue 58: no DETAIL, no HINT; every kind of statement in the server's
 * PrivilegeOrderTest); grants and revokes take effect at once
 * and survive a restart; an owner drops what it created; a role owning objects cannot be dropped (2BP01).
 */
@Tag("integration")
class RolesIT {
    @TempDir
    Path dir;

    @Test
    void aReadOnlyRoleReadsWhatItWasGrantedAndChangesNothing() throws Exception {
        try (TestNode node = new TestNode(dir)) {
            try (Connection admin = as(node, "coilgun"); Statement s = admin.createStatement()) {
                s.execute("CREATE STREAM payments (id BIGINT, ts TIMESTAMP, card_id VARCHAR, amount DOUBLE) "
                        + "WITH (event_time = 'ts', event_id = 'id', partition_by = 'card_id', partitions = 2)");
                s.execute("CREATE METRIC card_5m AS SELECT SUM(amount) AS total, COUNT(*) AS n FROM payments "
                        + "GROUP BY card_id OVER SLIDING INTERVAL '5' MINUTE");
                s.execute("INSERT INTO payments VALUES (1, TIMESTAMP '2026-01-01 10:00:00', 'c1', 10.0)");
                s.execute("CREATE ROLE analyst WITH LOGIN PASSWORD 'analyst-pass'");
                s.execute("GRANT SELECT ON card_5m TO analyst");
                SQLException dup = assertThrows(SQLException.class, () -> s.execute("CREATE ROLE analyst"));
                assertEquals("42710", dup.getSQLState());
            }
            try (Connection admin = as(node, "coilgun"); Connection analyst = as(node, "analyst");
                    Statement s = analyst.createStatement()) {
                assertEquals(1, count(s, "SELECT count(*) FROM card_5m"), "the granted metric reads");
                // another role's session: who and where, not what it runs; and not cancelable
                int adminPid = ((org.postgresql.PGConnection) admin).getBackendPID();
                try (ResultSet rs = s.executeQuery("SELECT usename, query FROM pg_stat_activity WHERE pid = "
                        + adminPid)) {
                    assertTrue(rs.next());
                    assertEquals("coilgun", rs.getString(1));
                    assertEquals("<insufficient privilege>", rs.getString(2));
                }
                denied(s, "SELECT pg_cancel_backend(" + adminPid + ")", "permission denied to cancel query");
                denied(s, "SELECT * FROM payments", "permission denied for table payments");
                denied(s, "SELECT * FROM coilgun.tasks", "permission denied for table coilgun.tasks");
                denied(s, "INSERT INTO payments VALUES (2, TIMESTAMP '2026-01-01 10:01:00', 'c1', 5.0)",
                        "permission denied for table payments");
                denied(s, "DROP METRIC card_5m", "must be owner of metric card_5m");
                denied(s, "DROP STREAM payments CASCADE", "must be owner of stream payments");
                // issue 58: the privilege before anything else about the statement (here card_5m depends on payments:
                // 2BP01, whose DETAIL named it), and nothing in DETAIL or HINT; over Describe (REPLAY's columns) too
                denied(s, "DROP STREAM payments", "must be owner of stream payments");
                denied(s, "ALTER STREAM payments ADD COLUMN card_id VARCHAR", "must be owner of stream payments");
                denied(s, "INSERT INTO payments (id, nosuch) VALUES (3, 1)", "permission denied for table payments");
                denied(s, "REPLAY SELECT SUM(nosuch) AS t FROM payments GROUP BY card_id OVER SLIDING 1 HOUR",
                        "permission denied for table payments");
                denied(s, "CREATE METRIC mine AS SELECT COUNT(*) AS n FROM nowhere GROUP BY k OVER SLIDING 1 HOUR",
                        "permission denied for schema public");
                denied(s, "ALTER STREAM payments ADD COLUMN note VARCHAR", "must be owner of stream payments");
                denied(s, "CREATE STREAM mine (id BIGINT, ts TIMESTAMP, k VARCHAR) WITH (event_time = 'ts', "
                        + "event_id = 'id', partition_by = 'k')",
                        "permission denied for schema public");
                denied(s, "CREATE ROLE intruder SUPERUSER", "permission denied to create role");
                denied(s, "GRANT SELECT ON payments TO analyst", "permission denied for table payments");
                denied(s, "GRANT SELECT ON card_5m TO nobody", "permission denied for table card_5m");
                denied(s, "SUBSCRIBE payments", "permission denied for table payments");
                denied(s, "REPLAY SELECT COUNT(*) AS n FROM payments GROUP BY card_id OVER SLIDING 1 HOUR",
                        "permission denied for table payments");
                denied(s, "COPY (SELECT * FROM payments) TO STDOUT", "permission denied for table payments");
                SQLException copyIn = assertThrows(SQLException.class, () -> new org.postgresql.copy.CopyManager(
                        (org.postgresql.core.BaseConnection) analyst).copyIn("COPY payments FROM STDIN WITH (FORMAT "
                        + "csv)", new java.io.StringReader("9,2026-01-01 10:02:00,c1,1.0\n")));
                assertEquals("42501", copyIn.getSQLState(), copyIn.getMessage());
                s.execute("ALTER ROLE analyst PASSWORD 'a-new-one'"); // one's own password, as Postgres allows
                assertEquals(1, count(s, "SELECT n FROM card_5m WHERE card_id = 'c1'"), "nothing changed");
            }
            // and through psql: the granted metric reads, an INSERT is refused, \du lists the roles
            String read = psql(node, "analyst", "SELECT card_id, n FROM card_5m");
            assertTrue(read.contains(" c1      | 1"), read);
            String refused = psql(node, "analyst", "INSERT INTO payments VALUES (5, TIMESTAMP '2026-01-01 10:03:00', "
                    + "'c1', 1.0)");
            assertTrue(refused.contains("ERROR:  permission denied for table payments"), refused);
            String drop = psql(node, "analyst", "DROP STREAM payments"); // the simple protocol: no DETAIL either
            assertTrue(drop.contains("ERROR:  must be owner of stream payments") && !drop.contains("DETAIL")
                    && !drop.contains("HINT"), drop);
            String roles = psql(node, "coilgun", "\\du");
            assertTrue(roles.contains("analyst") && roles.contains("coilgun") && roles.contains("Superuser"), roles);
            try (Connection admin = as(node, "coilgun"); Statement s = admin.createStatement()) {
                s.execute("GRANT INSERT ON payments TO analyst");
                s.execute("REVOKE SELECT ON card_5m FROM analyst");
                s.execute("CREATE ROLE builder LOGIN");
                s.execute("GRANT CREATE ON SCHEMA public TO builder");
                s.execute("GRANT SELECT ON payments TO builder");
            }
            node.restart(); // the roles and grants are in the durable catalog
            try (Connection analyst = as(node, "analyst"); Statement s = analyst.createStatement()) {
                s.execute("INSERT INTO payments VALUES (2, TIMESTAMP '2026-01-01 10:01:00', 'c1', 5.0)");
                denied(s, "SELECT count(*) FROM card_5m", "permission denied for table card_5m");
            }
            try (Connection builder = as(node, "builder"); Statement s = builder.createStatement()) {
                s.execute("CREATE METRIC card_max AS SELECT MAX(amount) AS hi FROM payments GROUP BY card_id "
                        + "OVER SLIDING INTERVAL '1' HOUR");
                assertEquals(0, count(s, "SELECT count(*) FROM card_max"), "its owner reads it");
                s.execute("GRANT SELECT ON card_max TO analyst"); // the owner grants on it
            }
            try (Connection admin = as(node, "coilgun"); Statement s = admin.createStatement()) {
                SQLException owns = assertThrows(SQLException.class, () -> s.execute("DROP ROLE builder"));
                assertEquals("2BP01", owns.getSQLState());
                assertTrue(owns.getMessage().contains("card_max"), owns.getMessage());
            }
            try (Connection builder = as(node, "builder"); Statement s = builder.createStatement()) {
                s.execute("DROP METRIC card_max");
            }
            try (Connection admin = as(node, "coilgun"); Statement s = admin.createStatement()) {
                s.execute("DROP ROLE builder");
                s.execute("DROP ROLE IF EXISTS builder");
                s.execute("CREATE ROLE batch NOLOGIN");
            }
            SQLException noLogin = assertThrows(SQLException.class, () -> as(node, "batch"));
            assertEquals("28000", noLogin.getSQLState(), "even under trust, a role without LOGIN is not let in");
            try (Connection admin = as(node, "coilgun"); Statement s = admin.createStatement()) {
                assertEquals(2, count(s, "SELECT n FROM card_5m WHERE card_id = 'c1'"));
            }
        }
    }

    /**
     * With SCRAM authentication, the users of the config file are superusers and a role created with LOGIN and a
     * password logs in with it (its verifier from the catalog, read at each login); a wrong password, or a role
     * without LOGIN, is refused.
     */
    @Test
    void aRoleWithAPasswordLogsInWithScram() throws Exception {
        try (TestNode node = new TestNode(dir, null, c -> c.withSecurity(
                new io.coilgun.server.config.SecurityConfig("scram", java.util.Map.of("admin", "admin-pass"), null,
                        null)))) {
            try (Connection admin = login(node, "admin", "admin-pass"); Statement s = admin.createStatement()) {
                s.execute("CREATE ROLE reader LOGIN PASSWORD 'reader-pass'");
                s.execute("CREATE ROLE batch PASSWORD 'batch-pass'"); // no LOGIN
                try (ResultSet rs = s.executeQuery("SELECT rolname, rolsuper, rolcanlogin FROM pg_roles "
                        + "ORDER BY rolname")) {
                    StringBuilder roles = new StringBuilder();
                    while (rs.next()) {
                        roles.append(rs.getString(1)).append(rs.getBoolean(2) ? "+super" : "")
                                .append(rs.getBoolean(3) ? "+login" : "").append(' ');
                    }
                    assertEquals("admin+super+login batch reader+login ", roles.toString());
                }
            }
            try (Connection reader = login(node, "reader", "reader-pass"); Statement s = reader.createStatement()) {
                denied(s, "CREATE ROLE other", "permission denied to create role");
                try (ResultSet rs = s.executeQuery("SELECT current_user, has_table_privilege('coilgun.nodes', "
                        + "'SELECT'), has_table_privilege('pg_class', 'SELECT')")) {
                    assertTrue(rs.next());
                    assertEquals("reader", rs.getString(1));
                    assertEquals(false, rs.getBoolean(2));
                    assertEquals(true, rs.getBoolean(3));
                }
            }
            SQLException wrong = assertThrows(SQLException.class, () -> login(node, "reader", "not-it"));
            assertEquals("28P01", wrong.getSQLState());
            SQLException noLogin = assertThrows(SQLException.class, () -> login(node, "batch", "batch-pass"));
            assertEquals("28P01", noLogin.getSQLState(), "a role without LOGIN is not let in");
        }
    }

    private static Connection login(TestNode node, String user, String password) throws SQLException {
        return DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + node.port() + "/coilgun", user,
                password);
    }

    /** What psql prints (output and errors) running {@code command} as {@code user}. */
    private static String psql(TestNode node, String user, String command) throws Exception {
        Process p = new ProcessBuilder("psql", "-h", "127.0.0.1", "-p", String.valueOf(node.port()), "-U", user, "-d",
                "coilgun", "-c", command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, java.util.concurrent.TimeUnit.SECONDS));
        return out;
    }

    /** 42501 with {@code message}, and no DETAIL or HINT (which would name other objects). */
    private static void denied(Statement s, String sql, String message) {
        SQLException e = assertThrows(SQLException.class, () -> s.execute(sql), sql);
        assertEquals("42501", e.getSQLState(), sql + ": " + e.getMessage());
        assertTrue(e.getMessage().contains(message), e.getMessage());
        if (e instanceof org.postgresql.util.PSQLException pe && pe.getServerErrorMessage() != null) {
            assertEquals(null, pe.getServerErrorMessage().getDetail(), sql);
            assertEquals(null, pe.getServerErrorMessage().getHint(), sql);
        }
    }

    private static Connection as(TestNode node, String user) throws SQLException {
        return DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + node.port() + "/coilgun?user=" + user);
    }

    private static long count(Statement s, String sql) throws SQLException {
        try (ResultSet rs = s.executeQuery(sql)) {
            assertTrue(rs.next());
            return rs.getLong(1);
        }
    }
}
