package io.coilgun.sql.parser;

import static io.coilgun.sql.parser.ParserTestSupport.assertSyntaxError;
import static io.coilgun.sql.parser.ParserTestSupport.parseError;
import static io.coilgun.sql.parser.ParserTestSupport.roundTrip;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coilgun.planner.error.CoilgunException;
import io.coilgun.planner.error.SqlState;
import org.apache.calcite.sql.SqlBasicCall;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlSelect;
import org.junit.jupiter.api.Test;

class CreateMetricTest {
    private static final String CARD_5M =
        "CREATE METRIC IF NOT EXISTS card_5m AS SELECT SUM(amount) AS total, COUNT(*) AS n\n"
            + "  FROM payments WHERE amount > 100 GROUP BY card_id OVER SLIDING INTERVAL '5' MINUTE"
            + " DELAYED BY INTERVAL '10' MINUTE WITH (backfill = '30 days')";

    @Test
    void fullForm() {
        SqlCreateMetric m = roundTrip(CARD_5M, SqlCreateMetric.class);
        assertEquals("card_5m", m.name().getSimple());
        assertTrue(m.ifNotExists());
        assertEquals(SqlKind.OTHER_DDL, m.getKind());

        SqlSelect q = m.query();
        assertEquals(2, q.getSelectList().size());
        assertEquals("payments", ((SqlIdentifier) q.getFrom()).getSimple());
        assertEquals(SqlKind.GREATER_THAN, q.getWhere().getKind());
        assertEquals("card_id", ((SqlIdentifier) q.getGroup().get(0)).getSimple());
        // Function names are folded like other unquoted identifiers: COUNT(*) is an unresolved "count".
        SqlBasicCall count = ((SqlBasicCall) q.getSelectList().get(1)).operand(0);
        assertEquals("count", count.getOperator().getName());
        assertTrue(((SqlIdentifier) count.operand(0)).isStar());

        SqlWindowSpec w = m.window();
        assertEquals(SqlWindowSpec.Kind.SLIDING, w.kind());
        assertEquals(300_000_000L, Intervals.toMicros(w.size()));
        assertEquals(600_000_000L, Intervals.toMicros(w.delay()));

        assertEquals(1, m.options().size());
        assertEquals("backfill", m.options().get(0).keyName());
        assertEquals("30 days", m.options().get(0).valueAsString());
    }

    @Test
    void minimalForm() {
        SqlCreateMetric m = roundTrip("CREATE METRIC m AS SELECT COUNT(*) FROM p GROUP BY k OVER TUMBLING 1 HOUR",
            SqlCreateMetric.class);
        assertFalse(m.ifNotExists());
        assertTrue(m.options().isEmpty());
        assertEquals(SqlWindowSpec.Kind.TUMBLING, m.window().kind());
        assertNull(m.window().delay());
        assertEquals(3_600_000_000L, Intervals.toMicros(m.window().size()));
        assertNull(m.query().getWhere());
    }

    @Test
    void infiniteWindow() {
        SqlCreateMetric m = roundTrip("CREATE METRIC m AS SELECT COUNT(*) AS n FROM p OVER INFINITE", SqlCreateMetric.class);
        assertEquals(SqlWindowSpec.Kind.INFINITE, m.window().kind());
        assertNull(m.window().size());
        assertNull(m.window().delay());
        assertNull(m.query().getGroup());

        m = roundTrip("CREATE METRIC m AS SELECT COUNT(*) FROM p GROUP BY k OVER INFINITE DELAYED BY 2 WEEKS"
            + " WITH (backfill = '1 day')", SqlCreateMetric.class);
        assertNull(m.window().size());
        assertEquals(14 * Intervals.MICROS_PER_DAY, Intervals.toMicros(m.window().delay()));
        assertEquals(1, m.options().size());
    }

    @Test
    void shortIntervalForms() {
        assertSize("5 MINUTES", 300_000_000L, "INTERVAL '5' MINUTE");
        assertSize("5 minute", 300_000_000L, "INTERVAL '5' MINUTE");
        assertSize("INTERVAL '5' MINUTE", 300_000_000L, "INTERVAL '5' MINUTE");
        assertSize("1 HOUR", 3_600_000_000L, "INTERVAL '1' HOUR");
        assertSize("10 SECONDS", 10_000_000L, "INTERVAL '10' SECOND");
        assertSize("1.5 SECONDS", 1_500_000L, "INTERVAL '1.5' SECOND");
        assertSize("500 MILLISECONDS", 500_000L, "INTERVAL '0.5' SECOND");
        assertSize("1 MILLISECOND", 1_000L, "INTERVAL '0.001' SECOND");
        assertSize("2500 MILLISECONDS", 2_500_000L, "INTERVAL '2.5' SECOND");
        assertSize("30 DAYS", 30 * Intervals.MICROS_PER_DAY, "INTERVAL '30' DAY");
        assertSize("2 WEEKS", 14 * Intervals.MICROS_PER_DAY, "INTERVAL '2' WEEK");
        assertSize("1 MONTH", 30 * Intervals.MICROS_PER_DAY, "INTERVAL '1' MONTH");
        assertSize("1 YEAR", 365 * Intervals.MICROS_PER_DAY, "INTERVAL '1' YEAR");
        assertSize("3 YEARS", 3 * 365 * Intervals.MICROS_PER_DAY, "INTERVAL '3' YEAR");
        assertSize("INTERVAL '1:30' HOUR TO MINUTE", 5_400_000_000L, "INTERVAL '1:30' HOUR TO MINUTE");
    }

    private static void assertSize(String size, long micros, String unparsed) {
        for (String kind : new String[] {"SLIDING", "TUMBLING"}) {
            SqlCreateMetric m = roundTrip("CREATE METRIC m AS SELECT COUNT(*) FROM p GROUP BY k OVER " + kind + " " + size
                + " DELAYED BY " + size, SqlCreateMetric.class);
            assertEquals(micros, Intervals.toMicros(m.window().size()), size);
            assertEquals(micros, Intervals.toMicros(m.window().delay()), size);
            assertEquals(kind + " " + unparsed + " DELAYED BY " + unparsed, CoilgunParser.toSql(m.window()));
        }
    }

    @Test
    void selectEndingInFunctionCallBeforeOver() {
        // Calcite's function-call production reads "lower(x) OVER sliding" as a named-window reference;
        // the grammar takes the window keyword back.
        SqlCreateMetric m = roundTrip("CREATE METRIC m AS SELECT COUNT(*) FROM p GROUP BY k, lower(merchant_id)"
            + " OVER SLIDING 5 MINUTES DELAYED BY 1 SECOND", SqlCreateMetric.class);
        assertEquals(SqlWindowSpec.Kind.SLIDING, m.window().kind());
        assertEquals(SqlKind.OTHER_FUNCTION, m.query().getGroup().get(1).getKind());
        assertEquals(1_000_000L, Intervals.toMicros(m.window().delay()));

        m = roundTrip("CREATE METRIC m AS SELECT COUNT(*) FROM p WHERE a > 1 AND starts_with(c, 'x')"
            + " OVER INFINITE WITH (a = 1)", SqlCreateMetric.class);
        assertEquals(SqlWindowSpec.Kind.INFINITE, m.window().kind());
        SqlBasicCall and = (SqlBasicCall) m.query().getWhere();
        assertEquals(SqlKind.AND, and.getKind());
        assertEquals(SqlKind.OTHER_FUNCTION, and.operand(1).getKind());
        assertEquals(1, m.options().size());

        m = roundTrip("CREATE METRIC m AS SELECT COUNT(*) FROM p GROUP BY k HAVING 10 < SUM(x)"
            + " OVER TUMBLING INTERVAL '1' DAY", SqlCreateMetric.class);
        assertEquals(SqlWindowSpec.Kind.TUMBLING, m.window().kind());
        SqlBasicCall sum = ((SqlBasicCall) m.query().getHaving()).operand(1);
        assertEquals("sum", sum.getOperator().getName());
    }

    @Test
    void invalidSizes() {
        String prefix = "CREATE METRIC m AS SELECT COUNT(*) FROM p OVER SLIDING ";
        assertInvalidSize(prefix + "0 MINUTES", prefix.length() + 1);
        assertInvalidSize(prefix + "INTERVAL -'5' MINUTE", prefix.length() + 1);
        assertInvalidSize(prefix + "1.5 HOURS", prefix.length() + 1);
        assertInvalidSize(prefix + "INTERVAL '5x' MINUTE", prefix.length() + 1);
        assertInvalidSize(prefix + "1 MINUTE DELAYED BY 0 SECONDS", prefix.length() + 21);
    }

    private static void assertInvalidSize(String sql, int position) {
        CoilgunException e = parseError(sql);
        assertEquals(SqlState.INVALID_PARAMETER_VALUE, e.state(), e::getMessage);
        assertEquals(position, e.position(), e::getMessage);
    }

    @Test
    void syntaxErrors() {
        String prefix = "CREATE METRIC m AS SELECT COUNT(*) FROM p ";
        assertSyntaxError(prefix + "OVER SLIDING", prefix.length() + 13, "syntax error at end of input");
        assertSyntaxError(prefix + "OVER SLIDING 5", prefix.length() + 15, "syntax error at end of input");
        assertSyntaxError(prefix + "OVER SLIDING 5 FORTNIGHTS", prefix.length() + 16,
            "syntax error at or near \"FORTNIGHTS\"");
        assertSyntaxError(prefix + "OVER INFINITE 5 MINUTES", prefix.length() + 15, "syntax error at or near \"5\"");
        assertSyntaxError(prefix + "OVER HOPPING 5 MINUTES", prefix.length() + 6, "syntax error at or near \"HOPPING\"");
        assertSyntaxError(prefix + "GROUP BY k", prefix.length() + 11, "syntax error at end of input");
        assertSyntaxError(prefix + "ORDER BY k OVER INFINITE", prefix.length() + 1, "syntax error at or near \"ORDER\"");
        assertSyntaxError("CREATE METRIC m AS SELECT COUNT(*) FROMM p OVER INFINITE", 42, "syntax error at or near \"p\"");
    }
}
