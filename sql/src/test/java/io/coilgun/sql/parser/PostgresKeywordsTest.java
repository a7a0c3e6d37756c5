package io.coilgun.sql.parser;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlOrderBy;
import org.apache.calcite.sql.SqlSelect;
import org.junit.jupiter.api.Test;

/**
 * Every word PostgreSQL 15 does not reserve (its {@code pg_get_keywords()}: unreserved, or unreserved but not a
 * function or type name; the list is in src/test/resources) is a name here too: a column, a qualified column and a
 * table, unquoted, in any case. Except the words Calcite's grammar cannot give up ({@link #RESERVED_HERE}), which
 * must be quoted; docs/sql.md lists them.
 */
class PostgresKeywordsTest {
    /** Postgres takes these as names; Calcite's grammar needs them as keywords (as its Babel parser does). */
    static final Set<String> RESERVED_HERE = Set.of("CALL", "CURRENT", "CURSOR", "DELETE", "DROP", "ESCAPE",
            "EXISTS", "EXPLAIN", "GROUPING", "INSERT", "INTERVAL", "MATCH", "MERGE", "NEW", "NEXT", "OVER", "PARTITION", "RANGE", "ROLLUP", "ROW",
            "ROWS", "SET", "SKIP", "TIME", "TIMESTAMP", "UNKNOWN", "UPDATE", "VALUES");

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
            if (!name || RESERVED_HERE.contains(word.toUpperCase(Locale.ROOT))) {
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
