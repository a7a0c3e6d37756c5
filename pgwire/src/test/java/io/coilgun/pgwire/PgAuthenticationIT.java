package io.coilgun.pgwire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coilgun.pgwire.auth.Authentication;
import io.coilgun.pgwire.auth.ScramCredential;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.postgresql.util.PSQLException;

/** SCRAM-SHA-256 and clear-text password authentication, driven by pgjdbc, psql and raw messages. */
class PgAuthenticationIT {
    private static final Path PSQL = Path.of("/usr/bin/psql");
    private static final FakeSessionFactory SESSIONS = new FakeSessionFactory();
    /** alice's secret is a plain password, bob's a verifier of "pencil" (as Postgres stores it). */
    private static final Map<String, String> USERS = Map.of("alice", "s3cret",
            "bob", ScramCredential.fromPassword("pencil").toVerifier());
    private static PgServer scram;
    private static PgServer password;

    @BeforeAll
    static void start() throws IOException {
        scram = PgServer.builder(SESSIONS).port(0).authentication(Authentication.scram(USERS)).build();
        scram.start();
        password = PgServer.builder(SESSIONS).port(0).authentication(Authentication.password(USERS)).build();
        password.start();
    }

    @AfterAll
    static void stop() {
        scram.close();
        password.close();
    }

    private static Connection connect(PgServer server, String user, String pass) throws SQLException {
        String url = "jdbc:postgresql://127.0.0.1:" + server.port() + "/db?user=" + user
                + "&connectTimeout=5&socketTimeout=10&sslmode=disable" + (pass == null ? "" : "&password=" + pass);
        return DriverManager.getConnection(url);
    }

    private static void assertWorks(PgServer server, String user, String pass) throws SQLException {
        try (Connection conn = connect(server, user, pass); Statement st = conn.createStatement();
                ResultSet rs = st.executeQuery("SELECT 1")) {
            assertTrue(rs.next());
            assertEquals(1, rs.getInt(1));
        }
    }

    private static void assertRefused(PgServer server, String user, String pass) {
        PSQLException e = assertThrows(PSQLException.class, () -> connect(server, user, pass).close());
        assertEquals("28P01", e.getSQLState(), e.getMessage());
        assertEquals("password authentication failed for user \"" + user + "\"",
                e.getServerErrorMessage().getMessage());
        assertEquals("FATAL", e.getServerErrorMessage().getSeverity());
    }

    @Test
    void scramAcceptsTheRightPasswordOnly() throws SQLException {
        assertWorks(scram, "alice", "s3cret");
        assertWorks(scram, "bob", "pencil");
        assertRefused(scram, "alice", "wrong");
        assertRefused(scram, "bob", "s3cret");
        assertRefused(scram, "mallory", "s3cret"); // unknown user: the same error as a wrong password
    }

    @Test
    void passwordAcceptsTheRightPasswordOnly() throws SQLException {
        assertWorks(password, "alice", "s3cret");
        assertWorks(password, "bob", "pencil"); // checked against the verifier, off the event loop
        assertRefused(password, "alice", "S3cret");
        assertRefused(password, "bob", "pencil2");
        assertRefused(password, "mallory", "s3cret");
    }

    @Test
    void clientWithoutPasswordIsToldByTheDriver() {
        PSQLException e = assertThrows(PSQLException.class, () -> connect(scram, "alice", null).close());
        assertEquals("08004", e.getSQLState(), e.getMessage());
        assertTrue(e.getMessage().contains("SCRAM"), e.getMessage());
        PSQLException clear = assertThrows(PSQLException.class, () -> connect(password, "alice", null).close());
        assertEquals("08004", clear.getSQLState(), clear.getMessage());
    }

    @Test
    void psqlWithPgpassword() throws Exception {
        if (!Files.isExecutable(PSQL)) {
            return; // psql is checked by PsqlClientIT's assumption; nothing to run here without it
        }
        for (PgServer server : new PgServer[] {scram, password}) {
            String[] ok = psql(server, "alice", "s3cret");
            assertEquals("0", ok[0], ok[2]);
            assertEquals("1\n", ok[1]);
            String[] wrong = psql(server, "alice", "nope");
            assertEquals("2", wrong[0]);
            assertTrue(wrong[2].contains("password authentication failed for user \"alice\""), wrong[2]);
        }
    }

    @Test
    void otherMessagesDuringAuthenticationAreProtocolViolations() throws IOException {
        try (RawPgClient client = new RawPgClient(scram.port())) {
            client.send(RawPgClient.startup("user", "alice"));
            RawPgClient.Message sasl = client.read();
            assertEquals('R', sasl.type());
            assertEquals(10, sasl.body()[3]);
            assertEquals("SCRAM-SHA-256\0\0", new String(sasl.body(), 4, sasl.body().length - 4,
                    StandardCharsets.UTF_8));
            client.send(RawPgClient.query("SELECT 1"));
            RawPgClient.Message error = client.read();
            assertEquals('E', error.type());
            assertEquals("08P01", error.fields().get('C'));
            assertEquals("expected SASL response, got message type 81", error.fields().get('M'));
            assertTrue(client.closedByServer());
        }
        try (RawPgClient client = new RawPgClient(scram.port())) {
            client.send(RawPgClient.startup("user", "alice"));
            client.read();
            client.send(RawPgClient.typed('p', "PLAIN\0\0\0\0\0".getBytes(StandardCharsets.US_ASCII)));
            RawPgClient.Message error = client.read();
            assertEquals("08P01", error.fields().get('C'));
            assertEquals("client selected an invalid SASL authentication mechanism", error.fields().get('M'));
        }
        try (RawPgClient client = new RawPgClient(scram.port())) {
            client.send(RawPgClient.startup("user", "alice"));
            client.read();
            byte[] first = "p=tls-server-end-point,,n=,r=abcdef".getBytes(StandardCharsets.US_ASCII);
            java.io.ByteArrayOutputStream body = new java.io.ByteArrayOutputStream();
            body.writeBytes("SCRAM-SHA-256\0".getBytes(StandardCharsets.US_ASCII));
            body.writeBytes(new byte[] {0, 0, 0, (byte) first.length});
            body.writeBytes(first);
            client.send(RawPgClient.typed('p', body.toByteArray()));
            RawPgClient.Message error = client.read();
            assertEquals("08P01", error.fields().get('C'));
            assertTrue(error.fields().get('M').contains("channel binding is not supported"), error.fields().get('M'));
        }
        try (RawPgClient client = new RawPgClient(password.port())) {
            client.send(RawPgClient.startup("user", "alice"));
            RawPgClient.Message request = client.read();
            assertEquals(3, request.body()[3]);
            client.send(RawPgClient.typed('p', "s3cret".getBytes(StandardCharsets.US_ASCII))); // no terminator
            RawPgClient.Message error = client.read();
            assertEquals("08P01", error.fields().get('C'));
            assertEquals("invalid password packet size", error.fields().get('M'));
        }
        try (RawPgClient client = new RawPgClient(password.port())) {
            client.send(RawPgClient.startup("user", "alice"));
            client.read();
            client.send(RawPgClient.typed('p', new byte[0]));
            RawPgClient.Message error = client.read();
            assertEquals("08P01", error.fields().get('C'));
            assertEquals("invalid password packet size", error.fields().get('M'));
        }
    }

    @Test
    void connectionsNotAuthenticatedInTimeAreClosed() throws IOException, SQLException {
        PgServer quick = PgServer.builder(SESSIONS).port(0).authentication(Authentication.scram(USERS))
                .authenticationTimeout(java.time.Duration.ofSeconds(2)).build();
        quick.start();
        try {
            try (RawPgClient silent = new RawPgClient(quick.port())) {
                assertTrue(silent.closedByServer()); // no startup message at all (RawPgClient reads for 5 s at most)
            }
            try (RawPgClient stalled = new RawPgClient(quick.port())) {
                stalled.send(RawPgClient.startup("user", "alice"));
                assertEquals('R', stalled.read().type()); // AuthenticationSASL, never answered
                assertTrue(stalled.closedByServer());
            }
            assertWorks(quick, "alice", "s3cret"); // a client in time is not affected (SCRAM on both sides: < 2 s)
        } finally {
            quick.close();
        }
    }

    /** Exit code, stdout, stderr of {@code psql -c 'SELECT 1'} with PGPASSWORD. */
    private static String[] psql(PgServer server, String user, String pass) throws Exception {
        ProcessBuilder builder = new ProcessBuilder(PSQL.toString(), "-h", "127.0.0.1", "-p",
                Integer.toString(server.port()), "-U", user, "-d", "db", "-X", "-A", "-t", "-w", "-c", "SELECT 1");
        builder.environment().keySet().removeIf(name -> name.startsWith("PG"));
        builder.environment().put("PGCONNECT_TIMEOUT", "5");
        builder.environment().put("PGPASSWORD", pass);
        builder.environment().put("PGSSLMODE", "disable");
        Process process = builder.start();
        process.getOutputStream().close();
        if (!process.waitFor(15, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("psql did not finish");
        }
        return new String[] {Integer.toString(process.exitValue()),
                new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8),
                new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8)};
    }
}
