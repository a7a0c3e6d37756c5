package io.coilgun.sql.query;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coilgun.planner.error.CoilgunException;
import io.coilgun.planner.error.SqlState;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Queries without streams or metrics (an empty catalog): values, casts and the catalog functions clients call. */
class QueryEngineTest {
    private static final QueryData EMPTY = new EmptyQueryData();

    static QueryEngine engine() {
        return new QueryEngine(EMPTY);
    }

    static QueryEngine.Rows run(String sql, Object... parameters) {
        return new QueryEngine(EMPTY).run(sql, List.of(), Arrays.asList(parameters), "coilgun", "coilgun");
    }

    static Object one(String sql) {
        return run(sql).rows().get(0)[0];
    }

    @Test
    void dateAndTimestampLiteralsKeepTheirValue() {
        assertEquals(LocalDate.of(2026, 1, 1), one("SELECT DATE '2026-01-01'"));
        assertEquals(LocalDateTime.of(2026, 1, 1, 10, 0, 0, 500_000_000),
                one("SELECT '2026-01-01 10:00:00.5'::timestamp"));
    }

    @Test
    void textCastsPrintAsPostgres() {
        QueryEngine.Rows r = run("SELECT true::text, CAST(false AS varchar), TIMESTAMP '2026-01-02 10:00:00.5'::text, "
                + "CAST(TIMESTAMP '2026-01-02 10:00:00' AS text), 1.50::text, CAST(NULL AS boolean)::text, "
                + "CAST(NULL AS timestamp)::text");
        assertEquals(java.util.Arrays.asList("true", "false", "2026-01-02 10:00:00.5", "2026-01-02 10:00:00", "1.50",
                null, null), java.util.Arrays.asList(r.rows().get(0)));
    }

    /** Every expression keeps a timestamp's microseconds, as Postgres does (EngineTimestamps). */
    @Test
    void timestampsKeepTheirMicrosecondsInEveryExpression() {
        String ts = "TIMESTAMP '2026-01-31 10:00:00.123456'";
        QueryEngine.Rows r = run("SELECT " + ts + ", " + ts + " + INTERVAL '1' SECOND, " + ts + " - INTERVAL '1' DAY, "
                + ts + " + INTERVAL '1' MONTH, " + ts + "::text, CAST('2026-01-01 10:00:00.000001' AS TIMESTAMP), "
                + "'2026-01-01 10:00:00.999999'::timestamp(3), " + ts + " > TIMESTAMP '2026-01-31 10:00:00.123455', "
                + ts + " = TIMESTAMP '2026-01-31 10:00:00.123', NULL, CAST(" + ts + " AS DATE), EXTRACT(HOUR FROM " + ts + "), (" + ts + " + INTERVAL '0.5' SECOND)::text");
        assertEquals(Arrays.asList(LocalDateTime.of(2026, 1, 31, 10, 0, 0, 123_456_000),
                LocalDateTime.of(2026, 1, 31, 10, 0, 1, 123_456_000), LocalDateTime.of(2026, 1, 30, 10, 0, 0, 123_456_000),
                LocalDateTime.of(2026, 2, 28, 10, 0, 0, 123_456_000), "2026-01-31 10:00:00.123456",
                LocalDateTime.of(2026, 1, 1, 10, 0, 0, 1000), LocalDateTime.of(2026, 1, 1, 10, 0, 1), true, false),
                Arrays.asList(r.rows().get(0)).subList(0, 9));
        assertEquals(Arrays.asList(LocalDate.of(2026, 1, 31), new java.math.BigDecimal("10"), "2026-01-31 10:00:00.623456"),
                Arrays.asList(r.rows().get(0)).subList(10, 13));
        // the largest of a column, a VALUES row's, a parameter's: to the microsecond
        assertEquals(LocalDateTime.of(2026, 1, 1, 0, 0, 0, 7000), one("SELECT max(t) FROM (VALUES "
                + "(TIMESTAMP '2026-01-01 00:00:00.000007'), (TIMESTAMP '2026-01-01 00:00:00.000006')) v(t)"));
        assertEquals(LocalDateTime.of(2026, 1, 1, 0, 0, 0, 8000), run("SELECT $1::timestamp + INTERVAL '1' SECOND "
                + "- INTERVAL '1' SECOND", LocalDateTime.of(2026, 1, 1, 0, 0, 0, 8000)).rows().get(0)[0]);
        assertEquals(true, run("SELECT $1::timestamp < TIMESTAMP '2026-01-01 00:00:00.000009'",
                LocalDateTime.of(2026, 1, 1, 0, 0, 0, 8000)).rows().get(0)[0]);
        // intervals are Postgres' intervals
        QueryEngine.Rows iv = run("SELECT INTERVAL '1.5' SECOND, (TIMESTAMP '2026-01-02 00:00:01.25' - TIMESTAMP "
                + "'2026-01-01 00:00:00') DAY TO SECOND, INTERVAL '14' MONTH");
        assertEquals(Arrays.asList(new IntervalValue(0, 0, 1_500_000), new IntervalValue(0, 1, 1_250_000),
                java.time.Period.of(1, 2, 0)), Arrays.asList(iv.rows().get(0)));
        assertEquals(List.of(PgTypes.INTERVAL, PgTypes.INTERVAL, PgTypes.INTERVAL), iv.typeOids());
        // a window frame of an interval over a timestamp
        QueryEngine.Rows w = run("SELECT count(*) OVER (ORDER BY t RANGE INTERVAL '1' SECOND PRECEDING) FROM (VALUES "
                + "(TIMESTAMP '2026-01-01 00:00:00'), (TIMESTAMP '2026-01-01 00:00:00.5'), "
                + "(TIMESTAMP '2026-01-01 00:00:02')) v(t) ORDER BY t");
        assertEquals(List.of(1L, 2L, 1L), w.rows().stream().map(row -> ((Number) row[0]).longValue()).toList());
    }

    @Test
    void standardCastToTimestampKeepsTheFraction() {
        assertEquals(LocalDateTime.of(2026, 1, 1, 10, 0, 0, 250_000_000),
                one("SELECT CAST('2026-01-01 10:00:00.25' AS TIMESTAMP)"));
    }

    @Test
    void catalogFunctionsAsClientsCallThem() {
        assertEquals(List.of("public"), one("SELECT current_schemas(false)"));
        // user and current_role are the session's user, as current_user (Calcite's own are "sa" and "")
        assertEquals(List.of("coilgun", "coilgun", "coilgun"),
                Arrays.asList(run("SELECT user, current_role, current_user").rows().get(0)));
        assertEquals(1009, run("SELECT current_schemas(true)").typeOids().get(0));
        assertEquals("pg_class", one("SELECT 'pg_class'::regclass::text"));
        assertEquals("pg_class", one("SELECT CAST('pg_class' AS regclass)::varchar"));
        assertEquals(23, one("SELECT to_regtype('int4')"));
        assertEquals(null, one("SELECT to_regtype('hstore')"));
        assertEquals(null, one("SELECT pg_get_serial_sequence('pg_class', 'oid')"));
        // one function with an optional argument, so $n is typed (an overload would leave it untyped)
        assertEquals(null, run("SELECT pg_get_constraintdef(1, $1)", true).rows().get(0)[0]);
        assertEquals(null, one("SELECT pg_get_constraintdef(1)"));
        assertEquals(null, run("SELECT pg_catalog.pg_get_constraintdef(1, $1)", true).rows().get(0)[0]);
        assertEquals(null, run("SELECT CASE WHEN 1 = 2 THEN pg_catalog.pg_get_constraintdef(1, $1) END", true)
                .rows().get(0)[0]);
        assertEquals("{\"a\" : 1, \"b\" : null}", run("SELECT json_build_object($1, 1, 'b', NULL)", "a").rows().get(0)[0]);
        assertEquals(null, one("SELECT obj_description(1, 'pg_class')"));
        assertEquals(null, one("SELECT obj_description(1)"));
        assertEquals(null, one("SELECT current_setting('no.such', true)"));
        assertEquals(null, run("SELECT to_regtype($1)", "hstore").rows().get(0)[0]);
        assertEquals(true, run("SELECT CAST($1 AS REGCLASS) = 'pg_catalog.pg_class'::regclass", "pg_class")
                .rows().get(0)[0]);
    }

    @Test
    void pgSleepSleepsUntilCanceled() {
        long start = System.nanoTime();
        assertEquals(null, one("SELECT pg_sleep(0.2)"));
        assertEquals(null, one("SELECT pg_sleep(0)"));
        assertEquals(null, run("SELECT pg_sleep($1)", 0.01).rows().get(0)[0]);
        assertTrue(System.nanoTime() - start >= 200_000_000L);
        QueryEngine.Cancel cancel = new QueryEngine.Cancel();
        new Thread(() -> {
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                return;
            }
            cancel.cancel();
        }).start();
        start = System.nanoTime();
        CoilgunException e = assertThrows(CoilgunException.class, () -> new QueryEngine(EMPTY).run(
                "SELECT pg_sleep(10)", List.of(), List.of(), "coilgun", "coilgun", cancel));
        assertEquals(SqlState.QUERY_CANCELED, e.state());
        assertTrue(System.nanoTime() - start < 5_000_000_000L);
    }

    /** A cancel that comes while the query is still planned (a busy machine) says so too, not a syntax error. */
    @Test
    void aQueryCanceledBeforeItRunsIsCanceled() {
        QueryEngine.Cancel cancel = new QueryEngine.Cancel();
        cancel.cancel();
        CoilgunException e = assertThrows(CoilgunException.class, () -> new QueryEngine(EMPTY).run(
                "SELECT pg_sleep(10)", List.of(), List.of(), "coilgun", "coilgun", cancel));
        assertEquals(SqlState.QUERY_CANCELED, e.state());
    }

    @Test
    void arraysAndNamesAsGrafanaAndMetabaseUseThem() {
        assertEquals(List.of("\"$user\"", " public"), one("SELECT string_to_array('\"$user\", public', ',')"));
        assertEquals(" public", one("SELECT (string_to_array('a, public', ','))[2]"));
        assertEquals(1, one("SELECT array_lower(string_to_array('a,b', ','), 1)"));
        assertEquals(2, one("SELECT array_length(string_to_array('a,b', ','), 1)"));
        assertEquals(List.of("public", "Payments"), one("SELECT parse_ident('Public.\"Payments\"')"));
        assertEquals(true, one("SELECT CAST(CAST(format('%I.%I', 'pg_catalog', 'pg_class') AS REGCLASS) AS OID) "
                + "= 'pg_class'::regclass"));
        assertEquals(0L, ((Number) one("SELECT count(*) FROM pg_depend")).longValue());
    }

    /** The oids a Parse of untyped parameters is told, as Postgres 15 resolves them (issue 58). */
    static List<Integer> types(String sql, int count) {
        return Arrays.stream(engine().parameterTypes(sql, count, "coilgun", "coilgun")).boxed().toList();
    }

    @Test
    void untypedParametersTakeTheTypesPostgresGivesThem() {
        assertEquals(List.of(PgTypes.TEXT, PgTypes.TEXT), types("SELECT has_table_privilege($1, $2, 'SELECT')", 2));
        assertEquals(List.of(PgTypes.TEXT), types("SELECT has_table_privilege($1, 'SELECT')", 1));
        assertEquals(List.of(PgTypes.FLOAT8), types("SELECT round($1)", 1)); // round(double precision)
        assertEquals(List.of(PgTypes.NUMERIC), types("SELECT round($1, 2)", 1));
        assertEquals(List.of(PgTypes.TEXT), types("SELECT upper(lower($1))", 1));
        assertEquals(List.of(PgTypes.TEXT), types("SELECT length($1)", 1));
        assertEquals(List.of(PgTypes.TEXT, PgTypes.TEXT), types("SELECT $1 = $2", 2));
        assertEquals(List.of(PgTypes.TEXT), types("SELECT coalesce($1, 'a')", 1));
        assertEquals(List.of(PgTypes.INT4), types("SELECT coalesce($1, 2) + 1", 1));
        assertEquals(List.of(PgTypes.INT4), types("SELECT coalesce($1, 2)", 1));
        assertEquals(List.of(PgTypes.TEXT), types("SELECT $1", 1));
        assertEquals(List.of(PgTypes.FLOAT8, PgTypes.FLOAT8), types("SELECT power($1, $2)", 2));
        // where Postgres cannot choose, its error
        CoilgunException e = assertThrows(CoilgunException.class, () -> types("SELECT date_trunc($1, $2)", 2));
        assertEquals(SqlState.AMBIGUOUS_FUNCTION, e.state());
        e = assertThrows(CoilgunException.class, () -> types("SELECT $1 + $2", 2));
        assertEquals(SqlState.AMBIGUOUS_FUNCTION, e.state());
        // and the values are read as those types
        assertEquals(true, run("SELECT has_table_privilege($1, $2, 'SELECT')", "coilgun", "pg_class").rows()
                .get(0)[0]);
        assertEquals("ABC", run("SELECT upper($1)", "abc").rows().get(0)[0]);
        assertEquals(3, run("SELECT length($1)", "abc").rows().get(0)[0]);
        // coalesce repeats $1 in its CASE: still one parameter, and the next one after it
        assertEquals(4, run("SELECT coalesce($1, 2) + 1", 3).rows().get(0)[0]);
        assertEquals(Arrays.asList("x", "y", 2), Arrays.asList(run("SELECT coalesce($1, 'a'), $2, coalesce($3, 2)",
                "x", "y", null).rows().get(0)));
        assertEquals(List.of(PgTypes.TEXT, PgTypes.INT4), types("SELECT coalesce($1, 'a'), coalesce($2, 2)", 2));
        // a regclass argument: the text is the relation's name, as Postgres' regclassin reads it
        assertEquals(List.of(PgTypes.TEXT), types("SELECT pg_relation_size($1)", 1));
        assertEquals(0L, ((Number) run("SELECT pg_relation_size($1)", "pg_catalog.PG_CLASS").rows().get(0)[0])
                .longValue());
        CoilgunException missing = assertThrows(CoilgunException.class,
                () -> run("SELECT pg_total_relation_size($1)", "nope"));
        assertEquals(SqlState.UNDEFINED_TABLE, missing.state());
    }

    /** round, acosh and atanh of a double precision as Postgres computes them (issue 58's function sweep). */
    @Test
    void doublePrecisionFunctionsAsPostgres() {
        // round(double precision) rounds half to even (rint); round(numeric) half away from zero
        assertEquals(Arrays.asList(2.0, 4.0, -2.0, new java.math.BigDecimal("3")),
                Arrays.asList(run("SELECT round(2.5::float8), round(3.5::float8), round(-2.5::float8), round(2.5)")
                        .rows().get(0)));
        assertEquals(2.0, run("SELECT round($1)", 2.5).rows().get(0)[0]);
        CoilgunException e = assertThrows(CoilgunException.class, () -> one("SELECT acosh(0.5::float8)"));
        assertEquals(SqlState.NUMERIC_VALUE_OUT_OF_RANGE, e.state());
        assertEquals("input is out of range", e.getMessage());
        e = assertThrows(CoilgunException.class, () -> one("SELECT atanh(2::float8)"));
        assertEquals(SqlState.NUMERIC_VALUE_OUT_OF_RANGE, e.state());
        assertEquals(Arrays.asList(0.0, Double.POSITIVE_INFINITY),
                Arrays.asList(run("SELECT acosh(1::float8), atanh(1::float8)").rows().get(0)));
        // the degree functions as Postgres' float.c computes them (exact at 30, 45, 60 degrees), log10 the C
        // library's: PostgreSQL 15's values
        assertEquals(Arrays.asList(0.008726535498373936, 30.0, 60.0, 26.565051177077986, 0.008726867790758791,
                -0.3010299956639812, 0.5, 1.0, 45.5729959991943, -44.4270040008057, -1.0, 0.34202014332566877, 0.5,
                3.0, 0.5493061443340548, -1.4722194895832204), Arrays.asList(run("SELECT sind(0.5::float8), asind(0.5::float8), acosd(0.5::float8), "
                        + "atand(0.5::float8), tand(0.5::float8), log10(0.5::float8), sind(30::float8), "
                        + "tand(45::float8), acosd(0.7::float8), asind(-0.7::float8), tand(135::float8), "
                        + "sind(-200::float8), cosd(60::float8), log10(1000::float8), atanh(0.5::float8), atanh(-0.9::float8)")
                .rows().get(0)));
        e = assertThrows(CoilgunException.class, () -> one("SELECT asind(2::float8)"));
        assertEquals(SqlState.NUMERIC_VALUE_OUT_OF_RANGE, e.state());
        e = assertThrows(CoilgunException.class, () -> one("SELECT log10(0::float8)"));
        assertEquals(SqlState.INVALID_ARGUMENT_FOR_LOG, e.state());
    }

    /** A relation's name in text is read as Postgres reads it: quoted parts, qualification, case folding. */
    @Test
    void relationNamesInTextAreParsedAsPostgresParsesThem() {
        assertEquals(true, one("SELECT has_table_privilege(current_user, '\"coilgun\".\"streams\"', 'select')"));
        assertEquals(true, one("SELECT has_table_privilege('PG_CATALOG.Pg_Class', 'select')"));
        assertEquals(true, one("SELECT to_regclass('\"coilgun\".\"streams\"') IS NOT NULL"));
        assertEquals(null, one("SELECT to_regclass('\"Pg_class\"')"));
        assertEquals(true, one("SELECT '\"pg_class\"'::regclass = 'pg_catalog.PG_CLASS'::regclass"));
        CoilgunException e = assertThrows(CoilgunException.class,
                () -> one("SELECT has_table_privilege('\"coilgun\".\"nope\"', 'select')"));
        assertEquals(SqlState.UNDEFINED_TABLE, e.state());
    }

    /** pgjdbc's simple mode inlines parameters: LIMIT ('10'::int4), which Postgres takes (a constant expression). */
    @Test
    void limitAndOffsetTakeConstantExpressions() {
        String values = "SELECT x FROM (VALUES (1), (2), (3), (4)) t(x) WHERE x >= ('-9223372036854775807'::int8) ";
        assertEquals(2, run(values + "ORDER BY x LIMIT ('2'::int4)").rows().size());
        assertEquals(List.of(2, 3), run(values + "ORDER BY x LIMIT '2' OFFSET (1)").rows().stream()
                .map(r -> r[0]).toList());
        assertEquals(4, run(values + "LIMIT NULL OFFSET NULL").rows().size());
        assertEquals(3, run(values + "LIMIT 2.5").rows().size()); // rounded, as Postgres does
    }

    /** A reserved word as a column label without AS, as Postgres 15 takes most of them. */
    @Test
    void reservedWordsAreBareColumnLabels() {
        QueryEngine.Rows r = run("SELECT 1 select, 2 table, x and FROM (VALUES (3)) t(x)");
        assertEquals(List.of("select", "table", "and"), r.names());
        assertEquals(Arrays.asList(1, 2, 3), Arrays.asList(r.rows().get(0)));
    }
}
