package io.coilgun.sql.parser;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coilgun.planner.error.CoilgunException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlOrderBy;
import org.apache.calcite.sql.SqlSelect;
import org.junit.jupiter.api.Test;

/**
 * Every word PostgreSQL 15 does not reserve (its {@code pg_get_keywords()}: unreserved, or unreserved but not a
 * function or type name; the list is in src/test/resources) is a name here too: a column, a qualified column and a
 * table, unquoted, in any case. The words Calcite's grammar cannot give up ({@link KeywordNames#WORDS}) are quoted
 * before parsing where they are names; their syntax as keywords is left alone.
 */
class PostgresKeywordsTest {
    static List<String[]> postgresKeywords() throws IOException {
        List<String[]> words = new ArrayList<>();
        try (InputStream in = PostgresKeywordsTest.class.getResourceAsStream("/postgres15-keywords.tsv")) {
            for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                if (!line.isBlank() && !line.startsWith("#")) {
                    words.add(line.split("\t"));
                }
            }
        }
        return words;
    }

    @Test
    void everyWordPostgresDoesNotReserveIsAName() throws IOException {
        List<String> failed = new ArrayList<>();
        int tried = 0;
        for (String[] k : postgresKeywords()) {
            String word = k[0];
            boolean name = k[1].equals("U") || k[1].equals("C");
            if (!name) {
                continue;
            }
            tried++;
            for (String sql : new String[] {"SELECT " + word + " FROM t", "SELECT t." + word + ", x FROM t",
                "SELECT x FROM t WHERE " + word + " = 1 ORDER BY " + word, "SELECT x FROM " + word,
                "SELECT " + word.toUpperCase(Locale.ROOT) + " FROM t"}) {
                try {
                    SqlNode parsed = CoilgunParser.parseStatements(sql).get(0);
                    SqlSelect s = (SqlSelect) (parsed instanceof SqlOrderBy o ? o.query : parsed);
                    SqlNode first = sql.endsWith(" FROM " + word) ? s.getFrom()
                            : sql.contains(" WHERE ") ? ((org.apache.calcite.sql.SqlCall) s.getWhere()).operand(0)
                            : s.getSelectList().get(0);
                    if (!(first instanceof SqlIdentifier id) || !id.names.get(id.names.size() - 1).equals(word)) {
                        failed.add(sql + " -> " + first);
                    }
                } catch (RuntimeException e) {
                    failed.add(sql + " -> " + e.getMessage().lines().findFirst().orElse(""));
                }
            }
        }
        assertTrue(tried > 300, "words tried: " + tried);
        assertEquals(List.of(), failed);
    }

    /** Calcite's keywords among them are names wherever a name can only stand: they are quoted for the parser. */
    @Test
    void calciteKeywordsAreNamesWhereOnlyANameFits() {
        for (String w : KeywordNames.WORDS) {
            String word = w.toLowerCase(Locale.ROOT);
            String q = '"' + word + '"';
            for (String[] c : new String[][] {
                {"CREATE STREAM s (id BIGINT, " + w + " TIMESTAMP, x TIME, " + word + " BOOLEAN)",
                    "CREATE STREAM s (id BIGINT, " + q + " TIMESTAMP, x TIME, " + q + " BOOLEAN)"},
                {"CREATE STREAM " + word + " (" + word + " VARCHAR)", "CREATE STREAM " + q + " (" + q + " VARCHAR)"},
                {"INSERT INTO " + word + " (id, " + word + ") VALUES (1, 'a')",
                    "INSERT INTO " + q + " (id, " + q + ") VALUES (1, 'a')"},
                {"SELECT " + word + ", s." + word + ", f(" + word + ") FROM s WHERE " + word + " > 1 AND "
                    + word + " BETWEEN 1 AND 2 GROUP BY " + word + " ORDER BY " + word + " DESC",
                    "SELECT " + q + ", s." + q + ", f(" + q + ") FROM s WHERE " + q + " > 1 AND " + q
                    + " BETWEEN 1 AND 2 GROUP BY " + q + " ORDER BY " + q + " DESC"},
                {"SELECT " + word + "::text, CAST(" + word + " AS BIGINT) FROM " + word + " JOIN " + word + " AS x ON x."
                    + word + " = " + word + "." + word, "SELECT " + q + "::text, CAST(" + q + " AS BIGINT) FROM " + q
                    + " JOIN " + q + " AS x ON x." + q + " = " + q + "." + q},
                {"CREATE METRIC m AS SELECT SUM(amount) FROM s GROUP BY card_id, " + word + " OVER SLIDING 5 MINUTES",
                    "CREATE METRIC m AS SELECT SUM(amount) FROM s GROUP BY card_id, " + q + " OVER SLIDING 5 MINUTES"}}) {
                assertEquals(c[1], PgSyntax.normalize(c[0]), c[0]);
                CoilgunParser.parse(c[0]);
            }
        }
    }

    /** Their syntax as keywords is left as it is. */
    @Test
    void theirKeywordSyntaxIsLeftAlone() {
        for (String sql : new String[] {
            "SELECT SUM(x) OVER (PARTITION BY y ORDER BY ts ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM t",
            "SELECT SUM(x) OVER (ORDER BY ts RANGE BETWEEN INTERVAL '1' HOUR PRECEDING AND CURRENT ROW) FROM t",
            "SELECT SUM(x) OVER (ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW), SUM(y) OVER w FROM t",
            "SELECT SUM(x) OVER (RANGE BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING), INTERVAL -'5' MINUTE FROM t",
            "SELECT x FROM t WHERE (a > 1) IS NOT UNKNOWN AND b IS UNKNOWN", "FETCH NEXT FROM c", "MOVE NEXT IN c",
            "SELECT x FROM t ORDER BY x OFFSET 5 ROWS FETCH NEXT 10 ROWS ONLY",
            "SELECT TIMESTAMP '2026-01-01 00:00:00', TIME '10:00', INTERVAL '1' DAY, x::timestamp, x::time FROM t",
            "SELECT CAST(x AS TIMESTAMP), CAST(x AS TIME), CAST(x AS INTERVAL DAY) FROM t",
            "SELECT x AT TIME ZONE 'UTC', CAST(x AS TIMESTAMP WITH TIME ZONE) FROM t",
            "SELECT x FROM t WHERE EXISTS (SELECT 1) AND NOT EXISTS (VALUES (1))",
            "SELECT x FROM t WHERE x LIKE 'a!%' ESCAPE '!'", "SELECT GROUPING(x) FROM t GROUP BY ROLLUP(x, y)",
            "SELECT ROW(1, 2) FROM t", "DECLARE c CURSOR FOR SELECT 1", "DECLARE c NO SCROLL CURSOR WITH HOLD FOR SELECT 1",
            "SET statement_timeout = '1s'", "SET TIME ZONE 'UTC'", "EXPLAIN STREAM s", "DROP STREAM IF EXISTS s",
            "CREATE STREAM IF NOT EXISTS s (id BIGINT, ts TIMESTAMP, t TIME, i INTERVAL) WITH (event_time = 'ts')",
            "ALTER STREAM s SET (replicas = 3)", "INSERT INTO s VALUES (1, TIMESTAMP '2026-01-01 00:00:00')",
            "INSERT INTO s (a, b) VALUES (1, 2)", "DELETE FROM s", "SELECT * FROM (VALUES (1, 2)) AS v (a, b)",
            "CREATE METRIC m AS SELECT COUNT(*) FROM s GROUP BY card_id OVER SLIDING INTERVAL '5' MINUTE"}) {
            assertEquals(sql, PgSyntax.normalize(sql), sql);
        }
    }

    /** An error's position is in the client's text, before the quotes were added. */
    @Test
    void errorPositionsAreInTheClientsText() {
        CoilgunException e = assertThrows(CoilgunException.class,
                () -> CoilgunParser.parse("SELECT time, s.values FROM s WHERE a = = 1"));
        assertEquals(38, e.position());
        assertEquals("syntax error at or near \"=\"", e.getMessage());
    }

    /** The syntax those words take part in still parses, now that they are names too. */
    @Test
    void theirSyntaxStillParses() {
        for (String sql : new String[] {"SELECT CAST(x AS DOUBLE PRECISION), CAST(y AS CHARACTER VARYING(3)) FROM t",
            "SELECT TRIM(BOTH ' ' FROM x), TRIM(LEADING FROM y), SUBSTRING(x FROM 1 FOR 2), POSITION('a' IN x) FROM t",
            "SELECT x FROM t WHERE x BETWEEN 1 AND 2 AND y NOT BETWEEN SYMMETRIC 3 AND 1",
            "SELECT INTERVAL '1' DAY, INTERVAL '2' HOUR TO SECOND, EXTRACT(YEAR FROM ts), EXTRACT(MONTH FROM ts) FROM t",
            "SELECT COUNT(*) FILTER (WHERE x > 1), PERCENTILE_CONT(0.5) WITHIN GROUP (ORDER BY x) FROM t",
            "SELECT SUM(x) OVER (PARTITION BY y ORDER BY ts ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM t",
            "SELECT COALESCE(x, 1), NULLIF(x, 2), OVERLAY(x PLACING 'a' FROM 1) FROM t",
            "SELECT CAST(x AS BIGINT), CAST(x AS SMALLINT), CAST(x AS INTEGER), CAST(x AS NUMERIC(10, 2)), "
                + "CAST(x AS DECIMAL), CAST(x AS REAL), CAST(x AS FLOAT), CAST(x AS BOOLEAN), CAST(x AS VARCHAR) FROM t",
            "SELECT x FROM t GROUP BY CUBE(x, y)", "SELECT x FROM t ORDER BY x DESC NULLS LAST",
            "CREATE METRIC m AS SELECT SUM(amount) AS total FROM payments GROUP BY card_id "
                + "OVER SLIDING INTERVAL '5' MINUTE DELAYED BY 10 SECONDS"}) {
            CoilgunParser.parseStatements(sql);
        }
    }
}
