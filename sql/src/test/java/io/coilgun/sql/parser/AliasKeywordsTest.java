package io.coilgun.sql.parser;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.StringReader;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.calcite.sql.SqlBasicCall;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlSelect;
import org.apache.calcite.sql.parser.SqlAbstractParserImpl;
import org.junit.jupiter.api.Test;

/**
 * After AS Postgres takes any word as a column label ({@code SELECT 1 AS one}, {@code AS table}, {@code AS year}):
 * so does Coilgun, for every keyword of its parser, reserved or not, with Postgres' lower-case label.
 */
class AliasKeywordsTest {
    @Test
    void everyKeywordIsAnAliasAfterAs() {
        SqlAbstractParserImpl.Metadata m = CoilgunSqlParserImpl.FACTORY.getParser(new StringReader("")).getMetadata();
        List<String> failed = new ArrayList<>();
        int tried = 0;
        for (String token : m.getTokens()) {
            if (!m.isKeyword(token) || !token.matches("[A-Z_][A-Z0-9_]*")) {
                continue;
            }
            tried++;
            String word = token.toLowerCase(Locale.ROOT);
            try {
                SqlSelect s = (SqlSelect) CoilgunParser.parseStatements(
                        "SELECT 1 AS " + word + ", x AS " + token + " FROM t").get(0);
                for (SqlNode item : s.getSelectList()) {
                    SqlIdentifier alias = (SqlIdentifier) ((SqlBasicCall) item).operand(1);
                    if (!alias.getSimple().equals(word)) {
                        failed.add(token + " -> " + alias.getSimple());
                    }
                }
            } catch (RuntimeException e) {
                failed.add(token);
            }
        }
        assertTrue(tried > 300, "keywords tried: " + tried);
        assertEquals(List.of(), failed);
    }

    @Test
    void typesStatementsAndCastsKeepTheirAs() {
        for (String sql : new String[] {"SELECT CAST(a AS date), CAST(b AS varchar(3)) FROM t",
            "SELECT CAST(CAST(a AS integer) AS double) AS value FROM t",
            "WITH w AS (SELECT 1 AS year) SELECT * FROM w"}) {
            CoilgunParser.parseStatements(sql);
        }
        assertEquals("SELECT 1 \"table\" , 2 \"one\"  FROM t",
                PgSyntax.normalize("SELECT 1 AS table, 2 AS One FROM t"));
        assertEquals("SELECT 1 AS year FROM t", PgSyntax.normalize("SELECT 1 AS year FROM t"), "year is a name here");
        // Metabase's privileges query names columns select, insert, update, delete
        assertEquals("SELECT 1 \"select\" , 2 \"insert\" \nFROM t",
                PgSyntax.normalize("SELECT 1 AS select, 2 AS insert\nFROM t"));
        CoilgunParser.parseStatements("WITH p AS (SELECT 1 AS select, 2 AS update FROM t) SELECT p.* FROM p");
    }

    @Test
    void statementWordsAreLabelsWhereTheSelectItemEnds() {
        assertEquals("SELECT 1 \"select\" ;", PgSyntax.normalize("SELECT 1 AS select;"));
        assertEquals("SELECT 1 \"returning\" ", PgSyntax.normalize("SELECT 1 AS returning"));
        assertEquals("SELECT a \"with\"  WHERE a > 1", PgSyntax.normalize("SELECT a AS with WHERE a > 1"));
        assertEquals("SELECT 1 \"values\"  ORDER BY 1", PgSyntax.normalize("SELECT 1 AS values ORDER BY 1"));
        // where they start a statement they stay keywords
        for (String sql : new String[] {"CREATE METRIC m AS SELECT SUM(x) AS total FROM s GROUP BY k "
                + "OVER SLIDING INTERVAL '5' MINUTE", "CREATE METRIC m AS SELECT * FROM s",
            "WITH w AS (SELECT 1 AS x) SELECT * FROM w"}) {
            assertEquals(sql, PgSyntax.normalize(sql));
        }
    }

    @Test
    void aReservedWordAfterAQualifiersDotIsAColumn() {
        assertEquals("SELECT p.\"user\", p.\"order\" FROM payments p",
                PgSyntax.normalize("SELECT p.user, p.ORDER FROM payments p"));
        SqlSelect s = (SqlSelect) CoilgunParser.parseStatements("SELECT p.user FROM payments p WHERE p.select > 1")
                .get(0);
        assertEquals("user", ((SqlIdentifier) s.getSelectList().get(0)).names.get(1));
        // a function after a schema's dot keeps its name
        assertEquals("SELECT pg_catalog.substring('abc', 1, 2)",
                PgSyntax.normalize("SELECT pg_catalog.substring('abc', 1, 2)"));
        // and a type of Postgres' catalog keeps its name
        assertEquals("SELECT 'a'::pg_catalog.varchar", PgSyntax.normalize("SELECT 'a'::pg_catalog.varchar"));
        CoilgunParser.parseStatements("SELECT 'a'::pg_catalog.varchar, CAST(1 AS pg_catalog.int4)");
    }
}
