package io.coilgun.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real Postgres clients (psycopg 3, psycopg2, SQLAlchemy on each, pandas, node-postgres, pgx, pgjdbc), each at its
 * defaults, through ordinary operations (tests/clients/conformance.py and .js, {@link PgjdbcConformance}) against a Coilgun node and against a real
 * PostgreSQL 15 holding the same data, in one run; tests/clients/compare.py compares the answers. Every difference
 * must be listed with its reason in tests/clients/differences.tsv, and the table it renders must be the one in
 * docs/clients.md, so the page says what the clients really do.
 */
@Tag("integration")
@Timeout(900)
class ClientConformanceIT {
    static final Path CLIENTS = Path.of("clients").toAbsolutePath();
    static final Path ENV = Path.of("target", "clients").toAbsolutePath();

    @TempDir
    Path dir;

    /** One PostgreSQL 15 and one Coilgun node for both tests, holding the same data. */
    private static Postgres15 postgres;
    private static TestNode node;

    @TempDir
    static Path shared;

    @BeforeAll
    static void start() throws Exception {
        postgres = new Postgres15();
        node = new TestNode(shared.resolve("data"));
        System.out.println("reference: " + postgres.version());
        fixture(postgres.port(), "CREATE TABLE payments (id BIGINT, ts TIMESTAMP, card_id VARCHAR, "
                + "merchant_id VARCHAR, amount DOUBLE PRECISION)", "CREATE TABLE card_5m (card_id VARCHAR, "
                + "total DOUBLE PRECISION, n BIGINT, stream_time TIMESTAMP)", "CREATE TABLE prices (id BIGINT, "
                + "ts TIMESTAMP, k VARCHAR, price NUMERIC(10, 2), rate NUMERIC)");
        // a lateness of a day: the operations insert events in any order of event time
        fixture(node.port(), "CREATE STREAM payments (id BIGINT, ts TIMESTAMP, card_id VARCHAR, "
                + "merchant_id VARCHAR, amount DOUBLE) WITH (event_time = 'ts', event_id = 'id', "
                + "partition_by = 'card_id', partitions = 4, lateness = '1 day')", "CREATE METRIC card_5m AS "
                + "SELECT SUM(amount) AS total, COUNT(*) AS n FROM payments GROUP BY card_id "
                + "OVER SLIDING INTERVAL '5' MINUTE", "CREATE STREAM prices (id BIGINT, ts TIMESTAMP, k VARCHAR, "
                + "price NUMERIC(10, 2), rate NUMERIC) WITH (event_time = 'ts', event_id = 'id', "
                + "partition_by = 'k', lateness = '1 day')");
    }

    @AfterAll
    static void stop() throws Exception {
        try (Postgres15 p = postgres; TestNode n = node) {
            // closed
        }
    }

    @Test
    void clientsAnswerAsPostgresDoes() throws Exception {
        run(List.of("bash", CLIENTS.resolve("setup.sh").toString()), 900);
        Path expected = answers("postgres", postgres.port());
        Path got = answers("coilgun", node.port());
        Path table = Path.of("target", "clients-table.md").toAbsolutePath();
        String report = run(List.of(ENV.resolve("venv/bin/python").toString(),
                CLIENTS.resolve("compare.py").toString(), expected.toString(), got.toString(),
                CLIENTS.resolve("differences.tsv").toString(), table.toString()), 60, true);
        System.out.println(report);
        assertTrue(!report.contains("PROBLEM"), report);
        String doc = Files.readString(Path.of("..", "docs", "clients.md"));
        String start = "<!-- conformance:start -->\n";
        String end = "<!-- conformance:end -->";
        int from = doc.indexOf(start);
        int to = doc.indexOf(end);
        assertTrue(from >= 0 && to > from, "docs/clients.md has the conformance markers");
        assertEquals(Files.readString(table), doc.substring(from + start.length(), to),
                "docs/clients.md's table is what the clients do now: "
                        + "python3 tests/clients/update-doc-table.py copies " + table + " between its markers");
    }

    /**
     * Every function Coilgun registers that Postgres has, called with untyped parameters (a Parse of type 0), answers
     * as PostgreSQL 15 does (the same value, or an error of the same SQLSTATE), but for the differences {@link
     * FunctionSweep#DIFFERENCES} gives with their reasons; never "Illegal use of dynamic parameter".
     */
    @Test
    void everyFunctionTakesUntypedParametersAsPostgresDoes() throws Exception {
        Map<String, FunctionSweep.Call> calls = FunctionSweep.calls(postgres.port());
        Map<String, String> expected = FunctionSweep.answers(postgres.port(), calls);
        Map<String, String> got = FunctionSweep.answers(node.port(), calls);
        List<String> problems = new ArrayList<>();
        for (Map.Entry<String, FunctionSweep.Call> call : calls.entrySet()) {
            String name = call.getKey();
            String pg = expected.get(name);
            String cg = got.get(name);
            boolean same = pg.startsWith("=") ? pg.equals(cg) : cg.startsWith("!") && cg.substring(0, 7)
                    .equals(pg.substring(0, 7));
            String reason = FunctionSweep.DIFFERENCES.get(name);
            if (cg.contains("Illegal use of dynamic parameter")) {
                problems.add(name + ": " + cg);
            } else if (!same && reason == null) {
                problems.add(call.getValue().sql() + " " + call.getValue().args() + ": postgres " + pg + ", coilgun "
                        + cg);
            } else if (same && reason != null) {
                problems.add(name + ": answers as Postgres now; remove it from FunctionSweep.DIFFERENCES");
            }
        }
        System.out.println(calls.size() + " functions called with untyped parameters; " + problems.size()
                + " problems");
        assertTrue(calls.size() > 100, "the sweep calls the functions: " + calls.keySet());
        assertTrue(problems.isEmpty(), String.join("\n", problems));
    }

    /** 400 payments over 20 minutes of event time, the same in both. */
    static void fixture(int port, String... ddl) throws Exception {
        try (Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + port + "/coilgun",
                "coilgun", "")) {
            try (Statement s = c.createStatement()) {
                for (String d : ddl) {
                    s.execute(d);
                }
            }
            LocalDateTime base = LocalDateTime.of(2026, 1, 2, 7, 30);
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO payments VALUES (?, ?, ?, ?, ?)")) {
                for (int i = 1; i <= 400; i++) {
                    ps.setLong(1, i);
                    ps.setTimestamp(2, Timestamp.valueOf(base.plusSeconds(3L * i)));
                    ps.setString(3, "c" + (i % 20));
                    ps.setString(4, "m" + (i % 7));
                    ps.setDouble(5, (i % 50) + 0.25);
                    ps.addBatch();
                }
                ps.executeBatch();
            }
        }
    }

    /** Every client's answers from the server on {@code port}, as JSON lines. */
    Path answers(String target, int port) throws Exception {
        String python = run(List.of(ENV.resolve("venv/bin/python").toString(),
                CLIENTS.resolve("conformance.py").toString(), "--port", String.valueOf(port)), 300);
        String node = run(List.of("node", CLIENTS.resolve("conformance.js").toString(), "--port=" + port), 300);
        String pgx = run(List.of(ENV.resolve("pgx-conformance").toString(), "--port", String.valueOf(port)), 300);
        String answers = python + node + pgx + PgjdbcConformance.run(port);
        Path out = dir.resolve(target + ".jsonl");
        Files.writeString(out, answers);
        Files.writeString(Path.of("target", "clients-" + target + ".jsonl"), answers);
        return out;
    }

    static String run(List<String> command, int timeoutSeconds) throws Exception {
        return run(command, timeoutSeconds, false);
    }

    /** Runs {@code command}; its standard output (error output goes to the test's log). */
    static String run(List<String> command, int timeoutSeconds, boolean anyExit) throws Exception {
        // the output goes to a file, so that a client that hangs is stopped by the timeout, not waited for
        Path out = Files.createTempFile("coilgun-client-", ".out");
        ProcessBuilder pb = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT)
                .redirectOutput(out.toFile());
        pb.environment().put("TZ", "UTC");
        pb.environment().put("NODE_PATH", ENV.resolve("node_modules").toString());
        pb.environment().put("PYTHONIOENCODING", "utf-8");
        Process p = pb.start();
        if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            fail("timed out: " + command);
        }
        String text = Files.readString(out, StandardCharsets.UTF_8);
        Files.delete(out);
        if (!anyExit && p.exitValue() != 0) {
            fail("exit " + p.exitValue() + ": " + command + "\n" + text);
        }
        return text;
    }
}
