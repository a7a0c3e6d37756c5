package io.coilgun.sql.query;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.coilgun.planner.error.CoilgunException;
import java.math.BigDecimal;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Numeric values and arithmetic as Postgres 15 computes them: each expected value is what PostgreSQL 15.15 printed
 * for the same query (psql), digit for digit.
 */
class NumericQueryTest {
    /** Expression and the value PostgreSQL 15.15 printed for it, in pairs: asked for in one query. */
    private static final List<String> EXPRESSIONS = List.of(
            "1.5::numeric * 3", "4.5",
            "CAST('12.25' AS numeric)", "12.25",
            "'1.50'::numeric", "1.50",
            "'  1e3 '::numeric", "1000",
            "12345678901234567890.123456789", "12345678901234567890.123456789",
            "12345678901234567890.123456789::numeric * 2", "24691357802469135780.246913578",
            "100000000000000000000000::numeric + 1", "100000000000000000000001",
            "1::numeric / 3", "0.33333333333333333333",
            "10::numeric / 4", "2.5000000000000000",
            "-7.5::numeric / 2", "-3.7500000000000000",
            "0.001::numeric / 7", "0.00014285714285714286",
            "123456789::numeric / 0.0001", "1234567890000.00000000",
            "2.5::numeric(1,0)", "3",
            "-2.5::numeric(1,0)", "-3",
            "123.456::numeric(5,2)", "123.46",
            "5.0::numeric(3,1)", "5.0",
            "0.1::float8::numeric", "0.1",
            "(1.0/3)::float8::numeric", "0.333333333333333",
            "1e20::float8::numeric", "100000000000000000000",
            "CASE WHEN true THEN 1.5::numeric ELSE 2 END", "1.5",
            "round(2.567::numeric, 1)", "2.6",
            "1.5::numeric + 1", "2.5",
            "7::numeric", "7",
            "10 % 3.5", "3.0",
            "2.0 ^ 3", "8.0000000000000000",
            "2::numeric ^ 0.5", "1.4142135623730950",
            "0.05 ^ 3", "0.0001250000000000",
            "2.0 ^ -2", "0.2500000000000000",
            "10.0 ^ 20", "100000000000000000000.0000000000000000",
            "0.0 ^ 0", "1.0000000000000000",
            "(-2.0) ^ 3", "-8.0000000000000000",
            "123.456 ^ 1.5", "1371.7289437796434",
            "0.001 ^ 1.5", "0.00003162277660168379",
            "0.00001 ^ 2.5", "0.0000000000003162277660168379",
            "2.0 ^ 100", "1267650600228229401496703205376.0000000000000000",
            "1.000001 ^ 1000000", "2.7182804693193769",
            "0.9 ^ 200", "0.0000000007055079",
            "3.00 ^ 2.000", "9.0000000000000000");

    @Test
    void numericAsPostgres() {
        StringBuilder select = new StringBuilder("SELECT ");
        for (int i = 0; i < EXPRESSIONS.size(); i += 2) {
            select.append(i == 0 ? "" : ", ").append(EXPRESSIONS.get(i));
        }
        QueryEngine.Rows r = QueryEngineTest.run(select.toString());
        for (int i = 0; i < EXPRESSIONS.size(); i += 2) {
            String expression = EXPRESSIONS.get(i);
            assertEquals(EXPRESSIONS.get(i + 1), ((BigDecimal) r.rows().get(0)[i / 2]).toPlainString(), expression);
            assertEquals(PgTypes.NUMERIC, r.typeOids().get(i / 2), expression);
        }
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            SELECT sum(x) FROM (VALUES (1.5::numeric), (2.25::numeric)) t(x) | 3.75
            SELECT avg(x) FROM (VALUES (1.5::numeric), (2.25::numeric)) t(x) | 1.8750000000000000
            SELECT avg(x) FROM (VALUES (1), (2)) t(x) | 1.5000000000000000
            SELECT avg(x) FROM (VALUES (CAST(1 AS bigint)), (2), (2)) t(x) | 1.6666666666666667
            SELECT sum(x) FROM (VALUES (9223372036854775807), (9223372036854775807)) t(x) | 18446744073709551614
            SELECT sum(x) FILTER (WHERE x > 1) FROM (VALUES (CAST(1 AS bigint)), (2), (3)) t(x) | 5
            SELECT sum(x) + count(*) FROM (VALUES (CAST(1 AS bigint)), (2)) t(x) | 5
            SELECT max(s) FROM (SELECT y, sum(x) AS s FROM (VALUES (CAST(1 AS bigint), 'a'), (2, 'a'), (5, 'b')) t(x, y) GROUP BY y) u | 5
            SELECT sum(x) OVER () FROM (VALUES (CAST(7 AS bigint))) t(x) | 7
            """)
    void aggregatesOfNumericsAsPostgres(String query, String expected) {
        QueryEngine.Rows r = QueryEngineTest.run(query);
        assertEquals(expected, ((BigDecimal) r.rows().get(0)[0]).toPlainString(), query);
        assertEquals(PgTypes.NUMERIC, r.typeOids().get(0), query);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            SELECT 2 ^ 3                | 8.0
            SELECT 2 ^ 3 ^ 2            | 64.0
            SELECT 2 * 3 ^ 2            | 18.0
            SELECT -2 ^ 2               | 4.0
            SELECT 2 + 3 ^ 2 - 1        | 10.0
            SELECT 3 ^ -1               | 0.3333333333333333
            SELECT 2::float8 ^ 0.5      | 1.4142135623730951
            """)
    void powerOfIntegersOrFloatsIsDoublePrecision(String query, double expected) {
        assertEquals(expected, QueryEngineTest.one(query), query);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            SELECT 1234.5::numeric(4,1)     | 22003 | numeric field overflow
            SELECT 'abc'::numeric           | 22P02 | invalid input syntax for type numeric: "abc"
            SELECT 1::numeric / 0           | 22012 | division by zero
            SELECT 0.0 ^ -1                 | 2201F | zero raised to a negative power is undefined
            SELECT (-2.0) ^ 0.5             | 2201F | a negative number raised to a non-integer power yields a complex result
            SELECT 10.0 ^ 200000            | 22003 | value overflows numeric format
            SELECT CAST(1 AS numeric(1001)) | 22023 | NUMERIC precision 1001 must be between 1 and 1000
            """)
    void errorsAsPostgres(String query, String state, String message) {
        CoilgunException e = assertThrows(CoilgunException.class, () -> QueryEngineTest.run(query));
        assertEquals(state, e.state().code(), query);
        assertEquals(message, e.getMessage(), query);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            SELECT sum(x) FROM (VALUES (1), (2)) t(x)                 | 20
            SELECT avg(x) FROM (VALUES (1.5::float8), (2)) t(x)       | 701
            SELECT 1.5::numeric = 1.50                                | 16
            """)
    void resultTypesAsPostgres(String query, int oid) {
        assertEquals(oid, QueryEngineTest.run(query).typeOids().get(0), query);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            12345678901234567890.123456789 | 12345678901234567890.123456789
            1.50                           | 1.50
            -0.000001                      | -0.000001
            """)
    void numericParametersKeepTheirDigits(String parameter, String expected) {
        Object value = QueryEngineTest.run("SELECT $1::numeric", new BigDecimal(parameter)).rows().get(0)[0];
        assertEquals(expected, ((BigDecimal) value).toPlainString());
    }

    @Test
    void aParameterSentAsNumericIsNumericWhereverItStands() {
        BigDecimal d = new BigDecimal("12345678901234567890.123456789");
        Object[] row = QueryEngineTest.run("SELECT $1 / 3, $1 * 2, $2 + 1", d, new BigDecimal("0.5")).rows().get(0);
        assertEquals("4115226300411522630.041152263", ((BigDecimal) row[0]).toPlainString());
        assertEquals("24691357802469135780.246913578", ((BigDecimal) row[1]).toPlainString());
        assertEquals("1.5", ((BigDecimal) row[2]).toPlainString());
    }
}
