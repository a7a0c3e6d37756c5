package io.coilgun.sql.parser;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coilgun.planner.error.CoilgunException;
import org.apache.calcite.sql.SqlBasicCall;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlSelect;
import org.junit.jupiter.api.Test;

class PgSyntaxTest {
    private static void rewrites(String in, String out) {
        String got = PgSyntax.normalize(in);
        assertEquals(out, got.stripTrailing());
        assertEquals(in.length(), got.length(), "every offset is kept");
    }

    @Test
    void psqlOperatorsCollationsAndEscapes() {
        rewrites("WHERE c.relname OPERATOR(pg_catalog.~) '^(x)$' COLLATE pg_catalog.default AND 1 = 1",
                "WHERE c.relname ~                      '^(x)$'                            AND 1 = 1");
        rewrites("SELECT array_to_string(d.datacl, E'\\n') AS a", "SELECT array_to_string(d.datacl, '\n'  ) AS a");
        rewrites("SELECT E'it''s \\'x\\''", "SELECT 'it''s ''x'''");
        rewrites("SELECT current_schema(), current_catalog, session_user",
                "SELECT pgcurschema()   , pgcurcatalog() , pgsessuser()");
    }

    @Test
    void castsToPostgresOnlyTypesBecomeDoubleColonCasts() {
        rewrites("SELECT CAST('payments' AS regclass)", "SELECT     ('payments' )::regclass");
        rewrites("SELECT cast(c.oid as pg_catalog.regclass), CAST(f(x, 1) AS int8[])",
                "SELECT     (c.oid )::pg_catalog.regclass ,     (f(x, 1) )::int8[]");
        rewrites("SELECT CAST(CAST(a AS text) AS regclass)", "SELECT     (    (a )::text  )::regclass");
        for (String sql : new String[] {"SELECT CAST(a AS integer)", "SELECT CAST(a AS varchar(10))",
            "SELECT CAST('x AS text' AS date)", "SELECT CAST(a AS \"regclass\")"}) {
            assertEquals(sql, PgSyntax.normalize(sql));
        }
    }

    @Test
    void literalsIdentifiersAndCommentsAreLeftAlone() {
        for (String sql : new String[] {"SELECT 'OPERATOR(pg_catalog.~)'", "SELECT \"COLLATE x\" FROM t",
            "SELECT 1 -- current_schema()", "SELECT 1 /* E'x' */", "SELECT a FROM t", "SELECT name FROM t"}) {
            assertEquals(sql, PgSyntax.normalize(sql));
        }
    }

    @Test
    void castsParseAsCastsOrCatalogFunctions() {
        SqlSelect s = (SqlSelect) CoilgunParser.parseStatements(
                "SELECT a::int8, 'pg_class'::regclass, c.oid::pg_catalog.regclass, x::text[] FROM t").get(0);
        SqlNode[] items = s.getSelectList().toArray(new SqlNode[0]);
        assertEquals(SqlKind.CAST, items[0].getKind());
        assertEquals("pg_regclass_oid", ((SqlBasicCall) items[1]).getOperator().getName());
        assertEquals("pg_regclass_name", ((SqlBasicCall) items[2]).getOperator().getName());
        assertEquals(SqlKind.CAST, items[3].getKind());
        CoilgunException e = assertThrows(CoilgunException.class,
                () -> CoilgunParser.parse("SELECT 1::nosuchtype"));
        assertEquals("42704", e.state().code());
        assertEquals(11, e.position());
    }

    @Test
    void regularExpressionOperators() {
        SqlSelect s = (SqlSelect) CoilgunParser.parseStatements("SELECT 1 FROM t WHERE a ~ 'x' AND b !~ '^pg_'")
                .get(0);
        assertInstanceOf(SqlBasicCall.class, s.getWhere());
    }

    @Test
    void aStatementEndingInAParameterKeepsItsDigits() {
        assertEquals("SELECT a FROM t WHERE b = $12",
                CoilgunParser.parse("SELECT a FROM t WHERE b = $12; SELECT 1").get(0).text());
    }

    @Test
    void grafanasSearchPathSubqueryIsTheFixedSearchPath() {
        String grafana = "SELECT quote_ident(table_name) FROM information_schema.tables WHERE \ntable_schema IN (\n"
                + "  SELECT\n    CASE WHEN trim(s[i]) = '\"$user\"' THEN user ELSE trim(s[i]) END\n  FROM\n"
                + "    generate_series(\n      array_lower(string_to_array(current_setting('search_path'),','),1),\n"
                + "      array_upper(string_to_array(current_setting('search_path'),','),1)\n    ) as i,\n"
                + "    string_to_array(current_setting('search_path'),',') s\n) ORDER BY table_name";
        String normalized = PgSyntax.normalize(grafana);
        assertEquals(grafana.length(), normalized.length(), "offsets are kept");
        assertTrue(normalized.contains("table_schema IN (\n  SELECT pgcuruser() UNION ALL SELECT 'public'"), normalized);
        assertTrue(normalized.endsWith(") ORDER BY table_name"));
    }
}
