package io.coilgun.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs every {@code sql} example of docs/sql.md through the real psql binary, each against a fresh fixture: the
 * stream {@code payments} of the first example (unless the example creates a stream) with the metric {@code card_5m}
 * (unless it creates metrics) and three earlier events. Each must run without an error; a SUBSCRIBE never ends, so
 * it runs on its own and must be running (not failed) when psql is interrupted.
 */
@Tag("integration")
@Timeout(600)
@SecondNodeLane
class DocsExamplesIT {
    private static final String STREAM = "CREATE STREAM payments (id BIGINT, ts TIMESTAMP, card_id VARCHAR, "
            + "merchant_id VARCHAR, amount DOUBLE) WITH (event_time = 'ts', event_id = 'id', partition_by = 'card_id', "
            + "partitions = 2);\n";
    private static final String METRIC = "CREATE METRIC card_5m AS SELECT SUM(amount) AS total, COUNT(*) AS n "
            + "FROM payments GROUP BY card_id OVER SLIDING INTERVAL '5' MINUTE;\n";
    private static final String EVENTS = "INSERT INTO payments VALUES (1001, TIMESTAMP '2026-01-01 09:59:55', 'c1', "
            + "'m1', 1.0), (1002, TIMESTAMP '2026-01-01 09:59:56', 'c2', 'm2', 2.0), "
            + "(1003, TIMESTAMP '2026-01-01 09:59:57', 'c1', 'm2', 3.0);\n";

    @TempDir
    Path dir;

    @Test
    void everySqlExampleRuns() throws Exception {
        List<String> examples = sqlBlocks(Files.readString(Path.of("..", "docs", "sql.md")));
        assertTrue(examples.size() >= 15, "docs/sql.md has its examples: " + examples.size());
        try (TestNode node = new TestNode(dir.resolve("data"))) {
            int n = 0;
            for (String example : examples) {
                n++;
                System.out.println("docs/sql.md example " + n + ": " + example.lines().findFirst().orElse(""));
                String fixture = "DROP STREAM IF EXISTS payments CASCADE;\n";
                if (!example.contains("CREATE STREAM")) {
                    fixture += STREAM + (example.contains("CREATE METRIC") ? "" : METRIC) + EVENTS;
                }
                PsqlReadmeIT.psql(node.port(), "-c", "SELECT 1"); // the node answers
                run(node.port(), n, fixture, true);
                if (example.contains("SUBSCRIBE")) {
                    for (String statement : example.split(";\\s*(--[^\\n]*)?\\n")) {
                        if (!statement.isBlank()) {
                            run(node.port(), n, statement + ";\n", !statement.contains("SUBSCRIBE"));
                        }
                    }
                } else {
                    run(node.port(), n, example, true);
                }
            }
        }
    }

    /**
     * Runs a script with psql; when {@code ends} is false the script must still be running after 3 s, and is then
     * interrupted as Ctrl-C would (psql cancels the statement).
     */
    private void run(int port, int example, String script, boolean ends) throws Exception {
        Path file = dir.resolve("example-" + example + ".sql");
        Files.writeString(file, script);
        List<String> cmd = List.of("psql", "-h", "127.0.0.1", "-p", String.valueOf(port), "-U", "coilgun", "-d",
                "coilgun", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-f", file.toString());
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().put("PGCONNECT_TIMEOUT", "10");
        Process p = pb.start();
        if (ends) {
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), "psql finished example " + example);
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertEquals(0, p.exitValue(), "example " + example + " failed:\n" + script + "\n" + out);
            assertFalse(out.contains("ERROR:"), "example " + example + ":\n" + script + "\n" + out);
        } else {
            boolean exited = p.waitFor(3, TimeUnit.SECONDS);
            if (exited) {
                fail("example " + example + " should run until stopped:\n" + script + "\n"
                        + new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
            }
            new ProcessBuilder("kill", "-INT", String.valueOf(p.pid())).start().waitFor();
            assertTrue(p.waitFor(30, TimeUnit.SECONDS), "psql stopped on Ctrl-C");
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(out.contains("canceling statement due to user request"), "example " + example + ":\n"
                    + script + "\n" + out);
        }
    }

    /** The contents of every ```sql block, in order. */
    static List<String> sqlBlocks(String markdown) {
        List<String> blocks = new ArrayList<>();
        int at = 0;
        while ((at = markdown.indexOf("```sql\n", at)) >= 0) {
            int end = markdown.indexOf("\n```", at + 7);
            blocks.add(markdown.substring(at + 7, end + 1));
            at = end + 4;
        }
        return blocks;
    }
}
