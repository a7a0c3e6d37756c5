package io.coilgun.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.postgresql.util.PSQLException;

/**
 * Every statement answers in bounded time: statement_timeout (SET, or given at connection start as pgjdbc's and
 * libpq's options) ends a waiting INSERT, a COPY and a long SELECT with 57014 as Postgres words it, and the
 * connection goes on (a SUBSCRIBE, which never ends by itself, too); a CancelRequest (Statement.cancel(), setQueryTimeout) ends a waiting INSERT too. Waiting is
 * made by the test fault 'coilgun:sleep:<ms>', which holds the event's processor unit that long.
 */
@Tag("integration")
@Timeout(300)
class StatementTimeoutIT {
    @TempDir
    static Path dir;
    static TestNode node;
    static long nextId = 1;
    static int second;

    @BeforeAll
    static void start() throws Exception {
        node = new TestNode(dir);
        try (Connection c = node.connect(); Statement s = c.createStatement()) {
            s.execute(WalkingSkeletonIT.CREATE_STREAM);
            s.execute(WalkingSkeletonIT.CREATE_METRIC);
        }
    }

    @AfterAll
    static void stop() {
        node.close();
    }

    static String insert(String merchant) {
        second++;
        return "INSERT INTO payments VALUES (" + nextId++ + ", TIMESTAMP '2026-01-01 10:" + String.format("%02d:%02d",
                second / 60, second % 60) + "', 'c1', '" + merchant + "', 1.0) RETURNING *";
    }

    /** Runs {@code sql}, expecting 57014 with {@code message} within {@code withinMs}. */
    static void expectCanceled(Statement s, String sql, String message, long withinMs) {
        long start = System.nanoTime();
        PSQLException e = assertThrows(PSQLException.class, () -> s.execute(sql), sql);
        long ms = (System.nanoTime() - start) / 1_000_000;
        assertEquals("57014", e.getSQLState(), e.getMessage());
        assertEquals(message, e.getServerErrorMessage().getMessage());
        assertTrue(ms < withinMs, sql + " ended after " + ms + " ms");
    }

    static String show(Statement s) throws SQLException {
        try (ResultSet rs = s.executeQuery("SHOW statement_timeout")) {
            assertTrue(rs.next());
            return rs.getString(1);
        }
    }

    static long count(Statement s) throws SQLException {
        try (ResultSet rs = s.executeQuery(insert("m1"))) {
            assertTrue(rs.next());
            return rs.getLong("card_5m_n");
        }
    }

    @Test
    void setStatementTimeoutEndsAWaitingInsertAndTheSessionGoesOn() throws Exception {
        try (Connection c = node.connect(); Statement s = c.createStatement()) {
            long before = count(s);
            assertEquals("0", show(s));
            s.execute("SET statement_timeout = '1s'");
            assertEquals("1s", show(s));
            // 2.5 s: a unit held 3 s or more hears nothing from Kafka that long, and the node then counts itself cut
            // off (KafkaContact) and fails the statements waiting: 3 s here raced the node's own verdict
            expectCanceled(s, insert("coilgun:sleep:2500"), "canceling statement due to statement timeout", 2_400);
            s.execute("RESET statement_timeout");
            assertEquals("0", show(s));
            // The timed-out event was published before the timeout: it is applied once its task gets to it (as a
            // Postgres statement canceled after its commit). The next event of the card waits behind it and counts it.
            assertEquals(before + 2, count(s));
        }
    }

    @Test
    void valuesAreReadAndShownAsPostgresDoes() throws Exception {
        try (Connection c = node.connect(); Statement s = c.createStatement()) {
            for (String[] v : new String[][] {{"2000", "2s"}, {"'1min'", "1min"}, {"1500", "1500ms"}, {"'90s'",
                "90s"}, {"0", "0"}, {"'2h'", "2h"}, {"'500 ms'", "500ms"}}) {
                s.execute("SET statement_timeout = " + v[0]);
                assertEquals(v[1], show(s), v[0]);
            }
            s.execute("SET statement_timeout = 3000");
            PSQLException bad = assertThrows(PSQLException.class, () -> s.execute("SET statement_timeout = 'abc'"));
            assertEquals("22023", bad.getSQLState());
            assertEquals("invalid value for parameter \"statement_timeout\": \"abc\"",
                    bad.getServerErrorMessage().getMessage());
            assertEquals("3s", show(s), "a refused value changes nothing");
            assertEquals("22023", assertThrows(PSQLException.class,
                    () -> s.execute("SET statement_timeout = '-5'")).getSQLState());
        }
    }

    @Test
    void startupOptionsSetItForTheConnection() throws Exception {
        try (Connection c = node.connect("options=-c%20statement_timeout%3D1000&"); Statement s = c.createStatement()) {
            assertEquals("1s", show(s));
            expectCanceled(s, insert("coilgun:sleep:2500"), "canceling statement due to statement timeout", 2_400);
            assertEquals("1s", show(s), "the connection goes on");
        }
        awaitIdle();
        // a bad value at connection start is a FATAL error, as in Postgres
        SQLException fatal = assertThrows(SQLException.class, () -> node.connect("options=-c%20statement_timeout%3Dx&"));
        assertEquals("22023", fatal.getSQLState());
    }

    @Test
    void aCancelRequestEndsAWaitingInsert() throws Exception {
        try (Connection c = node.connect(); Statement s = c.createStatement()) {
            CompletableFuture<Void> canceler = CompletableFuture.runAsync(() -> {
                try {
                    Thread.sleep(700);
                    s.cancel();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            expectCanceled(s, insert("coilgun:sleep:2500"), "canceling statement due to user request", 2_400);
            canceler.get(10, TimeUnit.SECONDS);
            awaitIdle();
            // pgjdbc's setQueryTimeout sends a CancelRequest on its own timer
            s.setQueryTimeout(1);
            expectCanceled(s, insert("coilgun:sleep:2500"), "canceling statement due to user request", 2_400);
            s.setQueryTimeout(0);
            assertTrue(count(s) > 0, "the connection goes on");
        }
    }

    @Test
    void aSelectWaitingForABusyTaskEndsAtTheTimeout() throws Exception {
        try (Connection writer = node.connect(); Statement w = writer.createStatement();
                Connection c = node.connect(); Statement s = c.createStatement()) {
            // a SELECT over a metric reads each task on its processor unit, here held by a slow event for 2.5 s;
            // planned once before, so the timeout measures its run (Calcite's first planning takes a second)
            s.executeQuery("SELECT * FROM card_5m").close();
            CompletableFuture<Boolean> slow = CompletableFuture.supplyAsync(() -> {
                try {
                    return w.execute(insert("coilgun:sleep:2500"));
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            });
            Thread.sleep(300);
            s.execute("SET statement_timeout = 800");
            expectCanceled(s, "SELECT * FROM card_5m", "canceling statement due to statement timeout", 2_000);
            try (ResultSet rs = s.executeQuery("SELECT 1")) {
                assertTrue(rs.next());
            }
            slow.get(30, TimeUnit.SECONDS);
        }
    }

    /** A SUBSCRIBE never ends by itself: statement_timeout ends it (also inside COPY … TO STDOUT), as in Postgres. */
    @Test
    void aSubscribeEndsAtTheTimeout() throws Exception {
        try (Connection c = node.connect(); Statement s = c.createStatement()) {
            s.execute("SET statement_timeout = '1s'");
            expectCanceled(s, "SUBSCRIBE card_5m", "canceling statement due to statement timeout", 10_000);
            long start = System.nanoTime();
            PSQLException e = assertThrows(PSQLException.class, () -> c.unwrap(org.postgresql.PGConnection.class)
                    .getCopyAPI().copyOut("COPY (SUBSCRIBE payments) TO STDOUT", new java.io.StringWriter()));
            assertEquals("57014", e.getSQLState(), e.getMessage());
            assertTrue((System.nanoTime() - start) / 1_000_000 < 10_000);
            s.execute("SET statement_timeout = 0");
            assertTrue(count(s) > 0, "the session goes on");
        }
    }

    @Test
    void aCopyWaitingForItsRowsEndsAtTheTimeout() throws Exception {
        try (Connection c = node.connect(); Statement s = c.createStatement()) {
            long before = count(s);
            s.execute("SET statement_timeout = 1000");
            var copy = c.unwrap(org.postgresql.PGConnection.class).getCopyAPI();
            second += 2;
            String data = (nextId++) + "\t2026-01-01 10:" + String.format("%02d:%02d", second / 60, second % 60)
                    + "\tc1\tcoilgun:sleep:2500\t1\n";
            long start = System.nanoTime();
            PSQLException e = assertThrows(PSQLException.class, () -> copy.copyIn("COPY payments FROM STDIN",
                    new java.io.ByteArrayInputStream(data.getBytes(StandardCharsets.UTF_8))));
            assertEquals("57014", e.getSQLState(), e.getMessage());
            assertTrue((System.nanoTime() - start) / 1_000_000 < 2_400);
            s.execute("RESET statement_timeout");
            assertEquals(before + 2, count(s), "the COPY's row was published before its timeout");
        }
    }

    @Test
    void psqlWithPgoptions() throws Exception {
        ProcessBuilder pb = new ProcessBuilder(List.of("psql", "-h", "127.0.0.1", "-p", String.valueOf(node.port()),
                "-U", "coilgun", "-d", "coilgun", "-X", "-q", "-c", insert("coilgun:sleep:2500")))
                .redirectErrorStream(true);
        pb.environment().put("PGOPTIONS", "-c statement_timeout=1s");
        Process p = pb.start();
        assertTrue(p.waitFor(30, TimeUnit.SECONDS));
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(out.contains("ERROR:  canceling statement due to statement timeout"), out);
        awaitIdle();
    }

    /** Lets a sleeping event finish, so the next test's statements do not wait behind it. */
    static void awaitIdle() throws Exception {
        try (Connection c = node.connect(); Statement s = c.createStatement()) {
            count(s);
        }
    }
}
