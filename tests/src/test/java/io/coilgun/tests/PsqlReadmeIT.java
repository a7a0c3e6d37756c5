package io.coilgun.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Drives the real psql binary through the SQL example in README.md (taken from the README itself, so the two
 * cannot drift apart) and checks what psql prints; then restarts the node and checks that the stream, the
 * metric and the window state are still there.
 */
@Tag("integration")
@Timeout(300)
@SecondNodeLane
class PsqlReadmeIT {
    @TempDir
    Path dir;

    @Test
    void readmeExampleThroughPsql() throws Exception {
        String example = readmeExample();
        Path script = dir.resolve("example.sql");
        Files.writeString(script, example);
        try (TestNode node = new TestNode(dir.resolve("data"))) {
            List<String> out = psql(node.port(), "-f", script.toString());
            assertEquals(List.of("1|10|1", "2|15|2", "3|6|2"), out);

            node.restart();
            out = psql(node.port(), "-c", "INSERT INTO payments VALUES (4, TIMESTAMP '2026-01-01 10:05:01', 'c1', "
                    + "'m3', 4.0) RETURNING *");
            assertEquals(List.of("4|10|3"), out, "after a restart the window still holds events 2 and 3");

            Path csv = dir.resolve("more.csv");
            Files.writeString(csv, "id,ts,card_id,merchant_id,amount\n5,2026-01-01 10:05:02,c1,m4,1.0\n"
                    + "6,2026-01-01 10:05:03,c1,m4,2.0\n");
            psql(node.port(), "-c", "\\copy payments from '" + csv + "' csv header");
            out = psql(node.port(), "-c", "INSERT INTO payments VALUES (7, TIMESTAMP '2026-01-01 10:05:04', 'c1', "
                    + "'m3', 1.0) RETURNING *");
            assertEquals(List.of("7|14|6"), out, "events 2 to 7 are in the window, 5 and 6 from \\copy");
        }
    }

    /** The ```sql block between the example markers of README.md. */
    static String readmeExample() throws Exception {
        String readme = Files.readString(Path.of("..", "README.md"));
        int start = readme.indexOf("<!-- example:start -->");
        int end = readme.indexOf("<!-- example:end -->");
        assertTrue(start >= 0 && end > start, "README.md has the example markers");
        String block = readme.substring(start, end);
        return block.substring(block.indexOf("```sql") + 6, block.lastIndexOf("```")).trim();
    }

    static List<String> psql(int port, String... args) throws Exception {
        List<String> cmd = new java.util.ArrayList<>(List.of("psql", "-h", "127.0.0.1", "-p", String.valueOf(port),
                "-U", "coilgun", "-d", "coilgun", "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1"));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().put("PGCONNECT_TIMEOUT", "10");
        Process p = pb.start();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "psql finished");
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.exitValue(), "psql failed: " + output);
        return output.lines().filter(l -> !l.isBlank()).toList();
    }
}
