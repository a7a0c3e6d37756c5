package io.coilgun.pgwire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.postgresql.util.PSQLException;

/** pgjdbc (simple query mode) against the real server and a scripted session. */
class PgServerJdbcTest {
    private static final FakeSessionFactory SESSIONS = new FakeSessionFactory();
    private static PgServer server;

    @BeforeAll
    static void start() throws IOException {
        server = PgServer.builder(SESSIONS).port(0).build();
        server.start();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    private static Connection connect(String mode) throws SQLException {
        return DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + server.port()
                + "/db?preferQueryMode=" + mode + "&user=x&connectTimeout=5&socketTimeout=10");
    }

    @Test
    void queriesErrorsAndRecovery() throws SQLException {
        try (Connection conn = connect("simple"); Statement st = conn.createStatement()) {
            try (ResultSet rs = st.executeQuery("SELECT 1")) {
                assertTrue(rs.next());
                assertEquals(1, rs.getInt(1));
                assertEquals("?column?", rs.getMetaData().getColumnLabel(1));
                assertFalse(rs.next());
            }

            assertTrue(st.execute("SELECT 1; SELECT many"));
            try (ResultSet rs = st.getResultSet()) {
                assertTrue(rs.next());
                assertEquals(1, rs.getInt(1));
            }
            assertTrue(st.getMoreResults());
            try (ResultSet rs = st.getResultSet()) {
                assertTrue(rs.next());
                assertEquals(1L, rs.getLong("id"));
                assertEquals("one", rs.getString("name"));
                assertEquals(15.5, rs.getDouble("x"));
                assertTrue(rs.getBoolean("ok"));
                assertEquals("2026-01-01 10:00:00.5", rs.getString("ts"));
                assertEquals(java.sql.Timestamp.valueOf("2026-01-01 10:00:00.5"), rs.getTimestamp("ts"));
                assertTrue(rs.next());
                assertNull(rs.getString("name"));
                assertEquals("0.1", rs.getString("x"));
                assertNull(rs.getTimestamp("ts"));
                assertFalse(rs.next());
            }
            assertFalse(st.getMoreResults());

            PSQLException syntax = assertThrows(PSQLException.class, () -> st.execute("SELECT syntax"));
            assertEquals("42601", syntax.getServerErrorMessage().getSQLState());
            assertEquals(5, syntax.getServerErrorMessage().getPosition());
            assertEquals("ERROR", syntax.getServerErrorMessage().getSeverity());

            assertEquals(1, singleInt(st, "SELECT 1"), "connection works after an error");

            try (ResultSet rs = st.executeQuery("SLOW")) { // completes later, on another thread
                assertTrue(rs.next());
                assertEquals("slow", rs.getString(1));
            }

            SESSIONS.executed.clear();
            PSQLException failed = assertThrows(PSQLException.class, () -> st.execute("SET x = 1; FAIL; SELECT 1"));
            assertEquals("22012", failed.getSQLState());
            assertEquals(List.of("SET x = 1", "FAIL"), List.copyOf(SESSIONS.executed), "stops at the first failure");

            PSQLException internal = assertThrows(PSQLException.class, () -> st.execute("BOOM"));
            assertEquals("XX000", internal.getSQLState());
            assertEquals("boom", internal.getServerErrorMessage().getMessage());

            assertEquals(0, st.executeUpdate("SET application_name = 'x'"));
            assertTrue(conn.isValid(2)); // an empty query: EmptyQueryResponse
            assertEquals(1, singleInt(st, "SELECT 1"));
        }
    }

    @Test
    void fatalErrorClosesOnlyThatConnection() throws Exception {
        try (Connection good = connect("simple"); Connection doomed = connect("simple")) {
            PSQLException fatal = assertThrows(PSQLException.class, () -> doomed.createStatement().execute("FATAL"));
            assertEquals("57P01", fatal.getSQLState());
            assertThrows(SQLException.class, () -> doomed.createStatement().execute("SELECT 1"));
            assertEquals(1, singleInt(good.createStatement(), "SELECT 1"));
        }
    }

    @Test
    void refusedSessionIsFatal() {
        PSQLException e = assertThrows(PSQLException.class, () -> DriverManager.getConnection(
                "jdbc:postgresql://127.0.0.1:" + server.port() + "/refused?user=x&preferQueryMode=simple"));
        assertEquals("3D000", e.getSQLState());
    }

    @Test
    void sessionIsClosedOnceWhenTheConnectionEnds() throws Exception {
        int openedBefore = SESSIONS.opened.get();
        int closedBefore = SESSIONS.closed.get();
        try (Connection conn = connect("simple")) {
            assertEquals(1, singleInt(conn.createStatement(), "SELECT 1"));
            assertEquals(openedBefore + 1, SESSIONS.opened.get());
        }
        awaitTrue(() -> SESSIONS.closed.get() >= closedBefore + 1);
        assertEquals("x", SESSIONS.startups.peek().user());
        assertEquals("db", SESSIONS.startups.peek().database());
    }

    @Test
    void portInUseIsReportedClearly() {
        PgServer second = PgServer.builder(SESSIONS).port(server.port()).build();
        IOException e = assertThrows(IOException.class, second::start);
        assertEquals("port " + server.port() + " on 127.0.0.1 is already in use", e.getMessage());
        second.close();
    }

    static int singleInt(Statement st, String sql) throws SQLException {
        try (ResultSet rs = st.executeQuery(sql)) {
            assertTrue(rs.next());
            return rs.getInt(1);
        }
    }

    static void awaitTrue(BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("condition not met within 5 s");
            }
            Thread.sleep(10);
        }
    }
}
