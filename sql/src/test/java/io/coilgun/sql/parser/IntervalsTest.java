package io.coilgun.sql.parser;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.coilgun.planner.error.CoilgunException;
import io.coilgun.planner.error.SqlState;
import org.apache.calcite.sql.SqlIntervalLiteral;
import org.apache.calcite.sql.SqlSelect;
import org.junit.jupiter.api.Test;

class IntervalsTest {
    private static final long SECOND = 1_000_000L;
    private static final long DAY = 86_400L * SECOND;

    /** An interval literal parsed from {@code SELECT <literal>} (no window checks). */
    private static SqlIntervalLiteral literal(String text) {
        SqlSelect select = (SqlSelect) CoilgunParser.parseStatements("SELECT " + text).get(0);
        return (SqlIntervalLiteral) select.getSelectList().get(0);
    }

    @Test
    void dayTimeIntervals() {
        assertEquals(300 * SECOND, Intervals.toMicros(literal("INTERVAL '5' MINUTE")));
        assertEquals(3_600 * SECOND, Intervals.toMicros(literal("INTERVAL '3600' SECOND")));
        assertEquals(90 * 60 * SECOND, Intervals.toMicros(literal("INTERVAL '1:30' HOUR TO MINUTE")));
        assertEquals(DAY + (2 * 3600 + 3 * 60 + 4) * SECOND + 500_000,
            Intervals.toMicros(literal("INTERVAL '1 02:03:04.5' DAY TO SECOND")));
        assertEquals(7 * DAY, Intervals.toMicros(literal("INTERVAL '1' WEEK")));
        assertEquals(1_000 * DAY, Intervals.toMicros(literal("INTERVAL '1000' DAY")));
    }

    @Test
    void subMillisecondFractionsAreKept() {
        assertEquals(500_000L, Intervals.toMicros(literal("INTERVAL '0.5' SECOND")));
        assertEquals(1_500L, Intervals.toMicros(literal("INTERVAL '0.0015' SECOND")));
        assertEquals(1L, Intervals.toMicros(literal("INTERVAL '0.000001' SECOND")));
        assertEquals(60 * SECOND + 250, Intervals.toMicros(literal("INTERVAL '1:00.00025' MINUTE TO SECOND")));
    }

    @Test
    void calendarUnitsHaveFixedLengths() {
        assertEquals(30 * DAY, Intervals.toMicros(literal("INTERVAL '1' MONTH")));
        assertEquals(90 * DAY, Intervals.toMicros(literal("INTERVAL '1' QUARTER")));
        assertEquals(365 * DAY, Intervals.toMicros(literal("INTERVAL '1' YEAR")));
        assertEquals((365 + 6 * 30) * DAY, Intervals.toMicros(literal("INTERVAL '1-6' YEAR TO MONTH")));
    }

    @Test
    void rejectsNonPositiveAndOddValues() {
        assertInvalid("INTERVAL '0' MINUTE");
        assertInvalid("INTERVAL -'5' MINUTE");
        assertInvalid("INTERVAL '-5' MINUTE");
        assertInvalid("INTERVAL '0.0000001' SECOND");
        assertInvalid("INTERVAL '5x' MINUTE");
        assertInvalid("INTERVAL '999999999' YEAR");
    }

    private static void assertInvalid(String text) {
        CoilgunException e = assertThrows(CoilgunException.class, () -> Intervals.toMicros(literal(text)), text);
        assertEquals(SqlState.INVALID_PARAMETER_VALUE, e.state());
        assertEquals(0, e.position());

        String sql = "SELECT 1,\n  " + text;
        SqlSelect select = (SqlSelect) CoilgunParser.parseStatements(sql).get(0);
        e = assertThrows(CoilgunException.class,
            () -> Intervals.toMicros(sql, (SqlIntervalLiteral) select.getSelectList().get(1)));
        assertEquals(SqlState.INVALID_PARAMETER_VALUE, e.state());
        assertEquals(sql.indexOf("INTERVAL") + 1, e.position());
    }

    @Test
    void shortFormIsAnEquivalentLiteral() {
        String sql = "CREATE METRIC m AS SELECT COUNT(*) FROM p OVER SLIDING 5 MINUTES DELAYED BY INTERVAL '5' MINUTE";
        SqlWindowSpec w = ((SqlCreateMetric) CoilgunParser.parseStatements(sql).get(0)).window();
        assertEquals(300_000_000L, Intervals.toMicros(w.size()));
        assertEquals(Intervals.toMicros(w.size()), Intervals.toMicros(w.delay()));
        assertEquals(w.delay().getValueAs(SqlIntervalLiteral.IntervalValue.class),
            w.size().getValueAs(SqlIntervalLiteral.IntervalValue.class));
        assertEquals(sql.indexOf("5 MINUTES") + 1, CoilgunParser.offsetOf(sql, w.size().getParserPosition()));
    }
}
