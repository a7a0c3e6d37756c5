package io.coilgun.pgwire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.coilgun.pgwire.auth.Authentication;
import io.coilgun.pgwire.tls.ServerTls;
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
import org.junit.jupiter.api.io.TempDir;

/**
 * TLS on SSLRequest with a self-signed certificate made by {@code openssl} for the test: pgjdbc and psql with
 * sslmode=require (and psql verify-ca against the certificate), sslmode=disable still in clear; GSSENCRequest 'N'.
 */
class PgTlsIT {
    private static final Path PSQL = Path.of("/usr/bin/psql");
    private static final FakeSessionFactory SESSIONS = new FakeSessionFactory();
    @TempDir
    static Path dir;
    private static Path cert;
    private static Path key;
    private static PgServer server;

    @BeforeAll
    static void start() throws Exception {
        cert = dir.resolve("server.crt");
        key = dir.resolve("server.key");
        selfSigned(cert, key);
        server = PgServer.builder(SESSIONS).port(0).tls(ServerTls.fromPem(cert, key))
                .authentication(Authentication.scram(Map.of("alice", "s3cret"))).build();
        server.start();
    }

    /** A self-signed certificate for CN=localhost and its unencrypted key, as PEM files (openssl). */
    static void selfSigned(Path cert, Path key) throws IOException, InterruptedException {
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/openssl")), "openssl is not installed");
        Process openssl = new ProcessBuilder("/usr/bin/openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes",
                "-keyout", key.toString(), "-out", cert.toString(), "-days", "2", "-subj", "/CN=localhost")
                .redirectErrorStream(true).start();
        String output = new String(openssl.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(openssl.waitFor(60, TimeUnit.SECONDS), "openssl did not finish");
        assertEquals(0, openssl.exitValue(), output);
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
    }

    private static void select1(String sslmode) throws SQLException {
        try (Connection conn = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + server.port()
                + "/db?user=alice&password=s3cret&connectTimeout=5&socketTimeout=10&sslmode=" + sslmode);
                Statement st = conn.createStatement(); ResultSet rs = st.executeQuery("SELECT 1")) {
            assertTrue(rs.next());
            assertEquals(1, rs.getInt(1));
        }
    }

    @Test
    void pgjdbcOverTlsAndInClear() throws SQLException {
        select1("require");
        select1("prefer");
        select1("disable");
        org.postgresql.util.PSQLException wrong = assertThrows(org.postgresql.util.PSQLException.class,
                () -> DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + server.port()
                        + "/db?user=alice&password=nope&connectTimeout=5&sslmode=require").close());
        assertEquals("28P01", wrong.getSQLState());
    }

    @Test
    void psqlOverTls() throws Exception {
        assumeTrue(Files.isExecutable(PSQL), "psql is not installed");
        String[] require = psql("PGSSLMODE", "require");
        assertEquals("0", require[0], require[2]);
        assertEquals("1\n", require[1]);
        // verify-ca checks the chain against the certificate itself: the server did present it.
        String[] verify = psql("PGSSLMODE", "verify-ca", "PGSSLROOTCERT", cert.toString());
        assertEquals("0", verify[0], verify[2]);
        String[] clear = psql("PGSSLMODE", "disable");
        assertEquals("0", clear[0], clear[2]);
        String[] gss = psql("PGSSLMODE", "disable", "PGGSSENCMODE", "prefer");
        assertEquals("0", gss[0], gss[2]);
    }

    @Test
    void gssEncRequestIsRefusedWithN() throws IOException {
        try (RawPgClient client = new RawPgClient(server.port())) {
            client.send(RawPgClient.untypedCode(80877104));
            assertEquals('N', client.readByte());
            client.send(RawPgClient.startup("user", "alice"));
            assertEquals('R', client.read().type());
        }
    }

    @Test
    void plainBytesAfterSslRequestAreRefused() throws IOException {
        try (RawPgClient client = new RawPgClient(server.port())) {
            byte[] ssl = RawPgClient.untypedCode(80877103);
            byte[] startup = RawPgClient.startup("user", "alice");
            byte[] both = new byte[ssl.length + startup.length];
            System.arraycopy(ssl, 0, both, 0, ssl.length);
            System.arraycopy(startup, 0, both, ssl.length, startup.length);
            client.send(both);
            RawPgClient.Message error = client.read();
            assertEquals('E', error.type());
            assertEquals("08P01", error.fields().get('C'));
            assertTrue(client.closedByServer());
        }
    }

    @Test
    void clearTextAfterSAnswerEndsTheConnection() throws IOException {
        try (RawPgClient client = new RawPgClient(server.port())) {
            client.send(RawPgClient.untypedCode(80877103));
            assertEquals('S', client.readByte());
            client.send(RawPgClient.startup("user", "alice")); // not a TLS record
            assertTrue(client.closedByServer());
        }
    }

    @Test
    void badFilesAreRefusedWithTheirName() throws IOException {
        Path missing = dir.resolve("missing.pem");
        IllegalArgumentException none = assertThrows(IllegalArgumentException.class,
                () -> ServerTls.fromPem(missing, key));
        assertTrue(none.getMessage().contains("missing.pem") && none.getMessage().contains("does not exist"),
                none.getMessage());
        Path garbage = Files.writeString(dir.resolve("garbage.pem"), "not a certificate\n");
        IllegalArgumentException bad = assertThrows(IllegalArgumentException.class,
                () -> ServerTls.fromPem(garbage, key));
        assertTrue(bad.getMessage().startsWith("cannot use TLS certificate " + garbage), bad.getMessage());
        IllegalArgumentException swapped = assertThrows(IllegalArgumentException.class,
                () -> ServerTls.fromPem(key, cert));
        assertTrue(swapped.getMessage().startsWith("cannot use TLS certificate"), swapped.getMessage());
    }

    private static String[] psql(String... env) throws Exception {
        ProcessBuilder builder = new ProcessBuilder(PSQL.toString(), "-h", "127.0.0.1", "-p",
                Integer.toString(server.port()), "-U", "alice", "-d", "db", "-X", "-A", "-t", "-w", "-c", "SELECT 1");
        builder.environment().keySet().removeIf(name -> name.startsWith("PG"));
        builder.environment().put("PGCONNECT_TIMEOUT", "5");
        builder.environment().put("PGPASSWORD", "s3cret");
        for (int i = 0; i < env.length; i += 2) {
            builder.environment().put(env[i], env[i + 1]);
        }
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
