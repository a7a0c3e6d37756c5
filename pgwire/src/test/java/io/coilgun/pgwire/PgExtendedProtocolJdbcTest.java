package io.coilgun.pgwire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.StringReader;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyManager;
import org.postgresql.util.PSQLException;

/** pgjdbc in its default (extended protocol) mode against the real server and a scripted session. */
class PgExtendedProtocolJdbcTest {
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

    /** prepareThreshold 0: named statements from the first use, binary transfer of parameters and results. */
    private static Connection connect(int prepareThreshold) throws SQLException {
        return DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + server.port()
                + "/db?user=x&connectTimeout=5&socketTimeout=10&prepareThreshold=" + prepareThreshold);
    }

    @ParameterizedTest(name = "prepareThreshold={0}")
    @ValueSource(ints = {0, 5})
    void parametersOfEveryTypeRoundTrip(int prepareThreshold) throws SQLException {
        try (Connection conn = connect(prepareThreshold);
                PreparedStatement ps = conn.prepareStatement("ECHO ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?")) {
            for (int round = 0; round < 3; round++) { // past any threshold: unnamed, then named statements
                ps.setInt(1, -7);
                ps.setLong(2, Long.MIN_VALUE + round);
                ps.setShort(3, (short) 12);
                ps.setDouble(4, 0.1);
                ps.setFloat(5, 1.5f);
                ps.setBoolean(6, true);
                ps.setString(7, "héllo");
                ps.setBigDecimal(8, new BigDecimal("-12345.678900"));
                ps.setObject(9, LocalDateTime.of(2026, 11, 23, 10, 0, 0, 123_456_000));
                ps.setObject(10, LocalDate.of(1999, 12, 31));
                ps.setNull(11, java.sql.Types.BIGINT);
                try (ResultSet rs = ps.executeQuery()) {
                    assertTrue(rs.next());
                    assertEquals(-7, rs.getInt(1));
                    assertEquals(Long.MIN_VALUE + round, rs.getLong(2));
                    assertEquals(12, rs.getShort(3));
                    assertEquals(0.1, rs.getDouble(4));
                    assertEquals(1.5f, rs.getFloat(5));
                    assertTrue(rs.getBoolean(6));
                    assertEquals("héllo", rs.getString(7));
                    assertEquals(new BigDecimal("-12345.678900"), rs.getBigDecimal(8));
                    assertEquals(LocalDateTime.of(2026, 11, 23, 10, 0, 0, 123_456_000),
                            rs.getObject(9, LocalDateTime.class));
                    assertEquals(LocalDate.of(1999, 12, 31), rs.getObject(10, LocalDate.class));
                    assertNull(rs.getObject(11));
                    assertFalse(rs.next());
                }
            }
        }
    }

    @Test
    void timestampsWithZoneAndBytes() throws SQLException {
        try (Connection conn = connect(0); PreparedStatement ps = conn.prepareStatement("ECHO ?, ?")) {
            OffsetDateTime at = OffsetDateTime.of(2026, 1, 2, 3, 4, 5, 6000, ZoneOffset.ofHours(2));
            ps.setObject(1, at);
            ps.setBytes(2, new byte[] {0, 1, (byte) 0xFF});
            try (ResultSet rs = ps.executeQuery()) {
                assertTrue(rs.next());
                assertEquals(at.toInstant(), rs.getObject(1, OffsetDateTime.class).toInstant());
                assertArrayEquals(new byte[] {0, 1, (byte) 0xFF}, rs.getBytes(2));
            }
        }
    }

    @Test
    void fetchSizeStreamsThroughSuspendedPortals() throws SQLException {
        try (Connection conn = connect(5)) {
            conn.setAutoCommit(false); // pgjdbc uses cursors (portals with a row limit) only in a transaction
            try (Statement st = conn.createStatement()) {
                st.setFetchSize(1);
                try (ResultSet rs = st.executeQuery("SELECT many")) {
                    assertTrue(rs.next());
                    assertEquals(1L, rs.getLong("id"));
                    assertEquals("one", rs.getString("name"));
                    assertTrue(rs.next());
                    assertEquals(2L, rs.getLong("id"));
                    assertNull(rs.getString("name"));
                    assertFalse(rs.next());
                }
            }
            conn.commit();
        }
    }

    @Test
    void errorsSkipToSyncAndBatchesWork() throws SQLException {
        try (Connection conn = connect(5); Statement st = conn.createStatement()) {
            PSQLException e = assertThrows(PSQLException.class, () -> st.executeQuery("FAIL"));
            assertEquals("22012", e.getSQLState());
            try (ResultSet rs = st.executeQuery("SELECT 1")) {
                assertTrue(rs.next());
                assertEquals(1, rs.getInt(1));
            }
            try (PreparedStatement ps = conn.prepareStatement("SET x = ?")) {
                for (int i = 0; i < 3; i++) {
                    ps.setInt(1, i);
                    ps.addBatch();
                }
                assertArrayEquals(new int[] {0, 0, 0}, ps.executeBatch());
            }
        }
    }

    @Test
    void cancelStopsARunningStatement() throws Exception {
        try (Connection conn = connect(5); Statement st = conn.createStatement()) {
            CompletableFuture<Throwable> outcome = CompletableFuture.supplyAsync(() -> {
                try {
                    st.execute("WAIT");
                    return null;
                } catch (SQLException e) {
                    return e;
                }
            });
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (!SESSIONS.executed.contains("WAIT") && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            st.cancel();
            Throwable error = outcome.get(5, TimeUnit.SECONDS);
            assertTrue(error instanceof PSQLException, String.valueOf(error));
            assertEquals("57014", ((PSQLException) error).getSQLState());
            try (ResultSet rs = st.executeQuery("SELECT 1")) {
                assertTrue(rs.next());
            }
        }
    }

    @Test
    void copyInAppliesAllRowsOrNone() throws Exception {
        try (Connection conn = connect(5)) {
            CopyManager copy = conn.unwrap(PGConnection.class).getCopyAPI();
            SESSIONS.copied.clear();
            long n = copy.copyIn("COPY t (a, b) FROM STDIN CSV", new StringReader("1,x\n2,\"y,z\"\n3,\n"));
            assertEquals(3, n);
            assertEquals(List.of(List.of("1", "x"), List.of("2", "y,z"), java.util.Arrays.asList("3", null)),
                    List.copyOf(SESSIONS.copied));

            SESSIONS.copied.clear();
            PSQLException e = assertThrows(PSQLException.class,
                    () -> copy.copyIn("COPY t (a, b) FROM STDIN", new StringReader("1\tx\nbad\ty\n")));
            assertEquals("22P02", e.getSQLState());
            assertTrue(SESSIONS.copied.isEmpty());
            PSQLException format = assertThrows(PSQLException.class,
                    () -> copy.copyIn("COPY t (a, b) FROM STDIN", new StringReader("1\tx\textra\n")));
            assertEquals("22P04", format.getSQLState());
            try (ResultSet rs = conn.createStatement().executeQuery("SELECT 1")) {
                assertTrue(rs.next());
            }
        }
    }

    @Test
    void idleConnectionsAreClosedAndTheLimitHolds() throws Exception {
        try (PgServer limited = PgServer.builder(SESSIONS).port(0).maxConnections(1)
                .idleTimeout(Duration.ofMillis(300)).build()) {
            limited.start();
            String url = "jdbc:postgresql://127.0.0.1:" + limited.port() + "/db?user=x&connectTimeout=5";
            try (Connection first = DriverManager.getConnection(url)) {
                PSQLException refused = assertThrows(PSQLException.class, () -> DriverManager.getConnection(url));
                assertEquals("53300", refused.getSQLState());
                Thread.sleep(1000);
                assertThrows(SQLException.class, () -> first.createStatement().executeQuery("SELECT 1"));
            }
        }
    }

    /**
     * A Describe the session answers later (a query it plans off the event loop) holds only its own connection:
     * another connection on the same network thread runs its statements meanwhile, and the first one gets its
     * description, then its rows, in order, once it is ready.
     */
    @Test
    void aSlowDescribeHoldsOnlyItsOwnConnection() throws Exception {
        try (PgServer one = PgServer.builder(SESSIONS).port(0).workerThreads(1).build()) {
            one.start();
            String url = "jdbc:postgresql://127.0.0.1:" + one.port() + "/db?user=u&socketTimeout=20";
            CompletableFuture<Void> gate = new CompletableFuture<>();
            FakeSessionFactory.describeGate = gate;
            try (Connection slow = DriverManager.getConnection(url); Connection other = DriverManager.getConnection(url)) {
                CompletableFuture<String> described = CompletableFuture.supplyAsync(() -> {
                    try (Statement st = slow.createStatement(); ResultSet rs = st.executeQuery("SLOW DESCRIBE")) {
                        rs.next();
                        return rs.getMetaData().getColumnName(1) + "=" + rs.getString(1);
                    } catch (SQLException e) {
                        throw new java.util.concurrent.CompletionException(e);
                    }
                });
                for (int i = 0; i < 5; i++) {
                    try (Statement st = other.createStatement(); ResultSet rs = st.executeQuery("SELECT 1")) {
                        assertTrue(rs.next(), "the other connection is answered while the Describe waits");
                    }
                }
                assertFalse(described.isDone(), "the slow Describe still waits");
                gate.complete(null);
                assertEquals("s=described", described.get(20, java.util.concurrent.TimeUnit.SECONDS));
            } finally {
                FakeSessionFactory.describeGate = CompletableFuture.completedFuture(null);
            }
        }
    }
}
