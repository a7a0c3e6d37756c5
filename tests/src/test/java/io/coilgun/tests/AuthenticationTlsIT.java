package io.coilgun.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.coilgun.server.CoilgunNode;
import io.coilgun.server.config.NodeConfig;
import io.coilgun.server.config.SecurityConfig;
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
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.postgresql.util.PSQLException;

/**
 * A real node with SCRAM-SHA-256 and TLS (a self-signed certificate made by openssl): pgjdbc with sslmode=require
 * and the right password runs statements, a wrong password gets 28P01; auth scram without users stops the start.
 */
@Tag("integration")
@Timeout(180)
class AuthenticationTlsIT {
    @TempDir
    Path dir;

    @Test
    void scramOverTls() throws Exception {
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/openssl")), "openssl is not installed");
        Path cert = dir.resolve("server.crt");
        Path key = dir.resolve("server.key");
        Process openssl = new ProcessBuilder("/usr/bin/openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes",
                "-keyout", key.toString(), "-out", cert.toString(), "-days", "2", "-subj", "/CN=localhost")
                .redirectErrorStream(true).start();
        String output = new String(openssl.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(openssl.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, openssl.exitValue(), output);

        NodeConfig config = new NodeConfig(NodeConfig.DEFAULT_HOST, 0, dir.resolve("data"), null, 0, "node-1", 2,
                15_000).withSecurity(new SecurityConfig("scram", Map.of("tester", "s3cret"), cert, key));
        try (CoilgunNode node = CoilgunNode.start(config)) {
            String url = "jdbc:postgresql://127.0.0.1:" + node.port() + "/coilgun?user=tester&sslmode=require"
                    + "&connectTimeout=10&socketTimeout=60&password=";
            try (Connection c = DriverManager.getConnection(url + "s3cret"); Statement s = c.createStatement()) {
                s.execute("CREATE STREAM pay (id BIGINT, ts TIMESTAMP, card VARCHAR, amount DOUBLE) WITH (event_time"
                        + " = 'ts', event_id = 'id', partition_by = 'card', partitions = 1)");
                try (ResultSet rs = s.executeQuery(
                        "INSERT INTO pay VALUES (1, TIMESTAMP '2026-01-01 10:00:00', 'c1', 2.5) RETURNING *")) {
                    assertTrue(rs.next());
                    assertEquals(1L, rs.getLong("id"));
                    assertFalse(rs.next());
                }
            }
            PSQLException wrong = assertThrows(PSQLException.class,
                    () -> DriverManager.getConnection(url + "S3cret").close());
            assertEquals("28P01", wrong.getSQLState());
            assertEquals("password authentication failed for user \"tester\"",
                    wrong.getServerErrorMessage().getMessage());
            PSQLException unknown = assertThrows(PSQLException.class,
                    () -> DriverManager.getConnection(url.replace("user=tester", "user=eve") + "s3cret").close());
            assertEquals("28P01", unknown.getSQLState());

            // the HTTP listener serves HTTPS with the node's certificate, and asks for the same users (Basic);
            // /health answers anyone (liveness)
            assertEquals("https", node.httpScheme());
            java.net.http.HttpClient client = java.net.http.HttpClient.newBuilder().sslContext(trusting(cert)).build();
            String http = "https://localhost:" + node.httpPort();
            assertEquals(401, get(client, http + "/metrics", null).statusCode());
            assertEquals(401, get(client, http + "/status.json", "tester:wrong").statusCode());
            var metrics = get(client, http + "/metrics", "tester:s3cret");
            assertEquals(200, metrics.statusCode());
            assertTrue(metrics.body().contains("coilgun_task_events_total{"), metrics.body());
            assertEquals(200, get(client, http + "/health", null).statusCode());
            // plain HTTP gets no answer from a TLS listener
            assertThrows(java.io.IOException.class,
                    () -> ObservabilityIT.get("http://localhost:" + node.httpPort() + "/health", null));
        }
    }

    /** A TLS context that trusts the certificate in the PEM file {@code cert} (self-signed). */
    static javax.net.ssl.SSLContext trusting(Path cert) throws Exception {
        java.security.KeyStore trust = java.security.KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        try (var in = Files.newInputStream(cert)) {
            trust.setCertificateEntry("node", java.security.cert.CertificateFactory.getInstance("X.509")
                    .generateCertificate(in));
        }
        javax.net.ssl.TrustManagerFactory tmf = javax.net.ssl.TrustManagerFactory.getInstance(
                javax.net.ssl.TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        javax.net.ssl.SSLContext context = javax.net.ssl.SSLContext.getInstance("TLS");
        context.init(null, tmf.getTrustManagers(), null);
        return context;
    }

    private static java.net.http.HttpResponse<String> get(java.net.http.HttpClient client, String url,
            String userPassword) throws Exception {
        var b = java.net.http.HttpRequest.newBuilder(java.net.URI.create(url))
                .timeout(java.time.Duration.ofSeconds(20));
        if (userPassword != null) {
            b.header("Authorization", "Basic " + java.util.Base64.getEncoder().encodeToString(
                    userPassword.getBytes(StandardCharsets.UTF_8)));
        }
        return client.send(b.build(), java.net.http.HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void scramWithoutUsersStopsTheStart() throws SQLException {
        String err = StartupIT.runExpectingFailure("start", "--port", "0", "--data-dir", dir.resolve("d").toString(),
                "--auth", "scram");
        assertTrue(err.contains("auth scram needs users: add lines user.<name> ="), err);
        assertFalse(Files.exists(dir.resolve("d")), "failed before touching the data directory");
    }
}
