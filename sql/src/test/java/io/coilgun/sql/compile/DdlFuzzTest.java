package io.coilgun.sql.compile;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.coilgun.planner.error.CoilgunException;
import io.coilgun.sql.parser.CoilgunParser;
import io.coilgun.sql.parser.ParsedStatement;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Mutated DDL through the real parser and compiler (sinks, streams fed from topics, roles and grants among them):
 * whatever the text, it compiles or fails with a CoilgunException carrying a SQLSTATE, and a position inside the text
 * when it has one; nothing else escapes. Seeded; the seed is printed so a failure can be replayed with
 * {@code -Dcoilgun.seed=...}.
 */
class DdlFuzzTest {
    private static final List<String> VALID = List.of(
            "CREATE SINK card_out FROM card_5m INTO KAFKA TOPIC 'card_features' WITH (format = 'json')",
            "CREATE SINK IF NOT EXISTS p_out FROM payments INTO KAFKA TOPIC 'p.out'",
            "DROP SINK IF EXISTS card_out", "DROP SINK card_out", "SHOW SINKS",
            "CREATE STREAM fed (id BIGINT, ts TIMESTAMP, k TEXT) WITH (event_id = 'id', partition_by = 'k', "
                    + "kafka_topic = 'in', format = 'csv', bad_records = 'stop')",
            "CREATE METRIC m2 AS SELECT SUM(amount) AS total FROM payments GROUP BY card_id OVER SLIDING 5 MINUTES",
            "DROP METRIC card_5m", "DROP STREAM payments CASCADE",
            "CREATE ROLE analyst WITH LOGIN PASSWORD 'pw'", "CREATE USER bob NOSUPERUSER", "ALTER ROLE analyst "
                    + "PASSWORD NULL", "DROP ROLE IF EXISTS analyst, bob", "GRANT SELECT ON card_5m, coilgun.tasks "
                    + "TO analyst, public", "REVOKE ALL PRIVILEGES ON TABLE payments FROM analyst",
            "GRANT CREATE ON SCHEMA public TO analyst");
    private static final String[] NOISE = {"'", "\"", "(", ")", ",", ";", "=", "--", "/*", "*/", "$1", "\\", "\0",
        "é", "SINK", "KAFKA", "TOPIC", "FROM", "INTO", "WITH", "format", "'json'", "''", "NULL", "1e999", "-",
        " ", "\n", "CREATE", "DROP", "IF", "EXISTS", "coilgun.catalog", "'coilgun.x'", "'a b'", "ROLE", "USER",
        "GRANT", "REVOKE", "ON", "TO", "ALL", "SCHEMA", "LOGIN", "SUPERUSER", "PASSWORD", "public"};

    @Test
    void mutatedDdlCompilesOrFailsWithASqlState() {
        long seed = Long.getLong("coilgun.seed", System.nanoTime());
        System.out.println("DdlFuzzTest seed=" + seed);
        Random random = new Random(seed);
        int compiled = 0;
        for (int round = 0; round < 3000; round++) {
            String sql = mutate(VALID.get(random.nextInt(VALID.size())), random);
            StatementCompilerTest t = new StatementCompilerTest();
            t.payments();
            t.compile("CREATE METRIC card_5m AS SELECT SUM(amount) AS total FROM payments GROUP BY card_id "
                    + "OVER SLIDING 5 MINUTES");
            t.catalog.roles().put(new io.coilgun.planner.model.RoleDef("analyst", false, true, null));
            try {
                for (ParsedStatement p : CoilgunParser.parse(sql)) {
                    t.compiler.compile(sql, p.node(), p.text());
                    compiled++;
                }
            } catch (CoilgunException e) {
                assertTrue(e.state() != null, "no SQLSTATE for " + sql);
                assertTrue(e.position() <= sql.length() + 1, "position " + e.position() + " past " + sql
                        + " (seed " + seed + ")");
            } catch (RuntimeException | AssertionError | StackOverflowError e) {
                fail("seed " + seed + " round " + round + ": " + e + " for: " + sql, e);
            }
        }
        assertTrue(compiled > 0, "some mutations still compile");
    }

    private static String mutate(String sql, Random random) {
        List<String> tokens = new ArrayList<>(List.of(sql.split("(?<= )|(?= )|(?<=[(),=])|(?=[(),=])")));
        int edits = 1 + random.nextInt(3);
        for (int i = 0; i < edits && !tokens.isEmpty(); i++) {
            int at = random.nextInt(tokens.size());
            switch (random.nextInt(5)) {
                case 0 -> tokens.remove(at);
                case 1 -> tokens.add(at, tokens.get(random.nextInt(tokens.size())));
                case 2 -> tokens.set(at, NOISE[random.nextInt(NOISE.length)]);
                case 3 -> tokens.add(at, NOISE[random.nextInt(NOISE.length)]);
                default -> {
                    String t = tokens.get(at);
                    if (!t.isEmpty()) {
                        int c = random.nextInt(t.length());
                        tokens.set(at, t.substring(0, c) + (char) (32 + random.nextInt(95)) + t.substring(c + 1));
                    }
                }
            }
        }
        return String.join("", tokens);
    }
}
