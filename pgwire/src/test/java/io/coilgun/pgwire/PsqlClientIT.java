package io.coilgun.pgwire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The real {@code psql} (PostgreSQL 15 client) against the server. With {@code -c}, psql sends the startup
 * message (after an SSLRequest answered 'N') and then only the given text as one Query: no catalog queries.
 */
class PsqlClientIT {
    private static final Path PSQL = Path.of("/usr/bin/psql");
    private static final FakeSessionFactory SESSIONS = new FakeSessionFactory();
    private static PgServer server;

    record Result(int exitCode, String stdout, String stderr) {
    }

    @BeforeAll
    static void start() throws IOException {
        assumeTrue(Files.isExecutable(PSQL), "psql is not installed");
        server = PgServer.builder(SESSIONS).port(0).build();
        server.start();
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void answersSslRequestWithNo() throws Exception {
        Result result = psql("SELECT 1", "PGSSLMODE", "require");
        assertEquals(2, result.exitCode());
        assertTrue(result.stderr().contains("server does not support SSL"), result.stderr());
    }

    private static Result psql(String command, String... env) throws IOException, InterruptedException {
        ProcessBuilder builder = new ProcessBuilder(PSQL.toString(), "-h", "127.0.0.1", "-p",
                Integer.toString(server.port()), "-U", "x", "-d", "db", "-X", "-A", "-t", "-c", command);
        builder.environment().keySet().removeIf(name -> name.startsWith("PG"));
        builder.environment().put("PGCONNECT_TIMEOUT", "5");
        for (int i = 0; i < env.length; i += 2) {
            builder.environment().put(env[i], env[i + 1]);
        }
        Process process = builder.start();
        process.getOutputStream().close();
        if (!process.waitFor(15, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("psql did not finish");
        }
        return new Result(process.exitValue(),
                new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8),
                new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8));
    }

    @Test
    void runsQueriesAndShowsRows() throws Exception {
        SESSIONS.executed.clear();
        Result one = psql("SELECT 1");
        assertEquals(0, one.exitCode(), one.stderr());
        assertEquals("1\n", one.stdout());
        assertEquals(List.of("SELECT 1"), List.copyOf(SESSIONS.executed), "psql -c sends nothing else");
        assertEquals("psql", SESSIONS.startups.peek().parameters().get("application_name"));

        Result many = psql("SELECT 1; SELECT many");
        assertEquals(0, many.exitCode(), many.stderr());
        assertEquals("1\n1|one|15.5|t|2026-01-01 10:00:00.5\n2||0.1|f|\n", many.stdout());
    }

    @Test
    void showsErrorsWithPosition() throws Exception {
        Result syntax = psql("SELECT syntax");
        assertEquals(1, syntax.exitCode());
        assertTrue(syntax.stderr().contains("ERROR:  syntax error at or near \"syntax\""), syntax.stderr());
        assertTrue(syntax.stderr().contains("LINE 1: SELECT syntax"), syntax.stderr());

        Result slow = psql("SLOW");
        assertEquals(0, slow.exitCode(), slow.stderr());
        assertEquals("slow\n", slow.stdout());
    }
}
