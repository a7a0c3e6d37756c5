package io.coilgun.sql.parser;

import io.coilgun.planner.error.CoilgunException;
import io.coilgun.planner.error.SqlState;
import org.apache.calcite.avatica.util.TimeUnit;
import org.apache.calcite.rel.type.RelDataTypeSystem;
import org.apache.calcite.runtime.CalciteContextException;
import org.apache.calcite.sql.SqlIntervalLiteral;
import org.apache.calcite.sql.SqlIntervalQualifier;

/**
 * Interval literals as fixed durations, for window sizes and delays.
 *
 * <p>Windows have a fixed length, so calendar units are given fixed lengths:
 * a MONTH is 30 days, a QUARTER 90 days, a YEAR 365 days (so {@code INTERVAL '1-6' YEAR TO MONTH}
 * is 545 days); a WEEK is 7 days. Resolution is one microsecond.
 */
public final class Intervals {
    public static final long MICROS_PER_SECOND = 1_000_000L;
    public static final long MICROS_PER_DAY = 86_400L * MICROS_PER_SECOND;
    public static final long DAYS_PER_MONTH = 30;
    public static final long DAYS_PER_YEAR = 365;

    private Intervals() {}

    /**
     * The duration of {@code literal} in microseconds, always positive.
     *
     * @throws CoilgunException INVALID_PARAMETER_VALUE (22023) if the interval is zero or negative, finer
     *     than a microsecond, too large for a {@code long}, or uses a unit with no fixed length. The
     *     exception's position is 0 here, since a literal does not know the SQL text it came from: use
     *     {@link #toMicros(String, SqlIntervalLiteral)}, or
     *     {@code e.withPositionIfAbsent(CoilgunParser.offsetOf(sql, literal.getParserPosition()))}.
     *     (Window sizes and delays produced by {@link CoilgunParser} are already checked, with positions.)
     */
    public static long toMicros(SqlIntervalLiteral literal) {
        SqlIntervalLiteral.IntervalValue value = literal.getValueAs(SqlIntervalLiteral.IntervalValue.class);
        SqlIntervalQualifier qualifier = value.getIntervalQualifier();
        String text = value.getIntervalLiteral();
        int[] fields = fields(literal, "has no fixed length");
        long sign = (long) value.getSign() * fields[0];
        long micros;
        try {
            if (fields.length == 3) {
                // year-month (YEAR, QUARTER, MONTH, YEAR TO MONTH): [sign, years, months]
                long days = Math.addExact(Math.multiplyExact(fields[1], DAYS_PER_YEAR),
                    Math.multiplyExact(fields[2], DAYS_PER_MONTH));
                micros = Math.multiplyExact(days, MICROS_PER_DAY);
            } else if (fields.length == 6) {
                // day-time (WEEK, DAY ... SECOND): [sign, days, hours, minutes, seconds, milliseconds]
                long seconds = Math.addExact(Math.addExact(Math.addExact(
                    Math.multiplyExact(fields[1], 86_400L),
                    Math.multiplyExact(fields[2], 3_600L)),
                    Math.multiplyExact(fields[3], 60L)),
                    fields[4]);
                micros = Math.addExact(Math.multiplyExact(seconds, MICROS_PER_SECOND),
                    fractionMicros(qualifier, text, fields[5], literal));
            } else {
                throw invalid("unsupported interval " + literal);
            }
        } catch (ArithmeticException e) {
            throw invalid("interval " + literal + " is too large");
        }
        if (sign <= 0 || micros == 0) {
            throw invalid("interval must be positive: " + literal);
        }
        return micros;
    }

    /**
     * An interval literal as a value, signed, with calendar months apart ({@code INTERVAL '1' MONTH} added to a
     * timestamp moves it by a month, as in Postgres): {@code {months, micros}}.
     *
     * @throws CoilgunException 22023 when the literal's text does not fit its qualifier
     */
    public static long[] monthsAndMicros(SqlIntervalLiteral literal) {
        SqlIntervalLiteral.IntervalValue value = literal.getValueAs(SqlIntervalLiteral.IntervalValue.class);
        SqlIntervalQualifier qualifier = value.getIntervalQualifier();
        String text = value.getIntervalLiteral();
        int[] fields = fields(literal, "is not supported");
        long sign = (long) value.getSign() * fields[0];
        if (fields.length == 3) {
            return new long[] {sign * (fields[1] * 12L + fields[2]), 0};
        }
        long seconds = fields[1] * 86_400L + fields[2] * 3_600L + fields[3] * 60L + fields[4];
        return new long[] {0, sign * (seconds * MICROS_PER_SECOND + fractionMicros(qualifier, text, fields[5],
                literal))};
    }

    /**
     * The literal's fields as Calcite evaluates them: {@code [sign, years, months]} or {@code [sign, days, hours,
     * minutes, seconds, milliseconds]}; 22023 for a unit such as ISOYEAR ({@code why} it is refused) or a text that
     * does not fit the qualifier.
     */
    private static int[] fields(SqlIntervalLiteral literal, String why) {
        SqlIntervalLiteral.IntervalValue value = literal.getValueAs(SqlIntervalLiteral.IntervalValue.class);
        SqlIntervalQualifier qualifier = value.getIntervalQualifier();
        if (qualifier.timeFrameName != null) {
            throw invalid("interval unit " + qualifier.timeFrameName + " " + why);
        }
        try {
            return qualifier.evaluateIntervalLiteral(value.getIntervalLiteral(), literal.getParserPosition(),
                    RelDataTypeSystem.DEFAULT);
        } catch (CalciteContextException e) {
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            throw new CoilgunException(SqlState.INVALID_PARAMETER_VALUE, cause.getMessage(), 0, e);
        }
    }

    /** {@link #toMicros(SqlIntervalLiteral)} with the error position taken from {@code sql}. */
    public static long toMicros(String sql, SqlIntervalLiteral literal) {
        try {
            return toMicros(literal);
        } catch (CoilgunException e) {
            throw e.withPositionIfAbsent(CoilgunParser.offsetOf(sql, literal.getParserPosition()));
        }
    }

    /**
     * The fractional seconds in microseconds. Calcite evaluates them to milliseconds only, so when the
     * qualifier ends in SECOND the digits are read from the literal text.
     */
    private static long fractionMicros(SqlIntervalQualifier qualifier, String text, int millis,
                                       SqlIntervalLiteral literal) {
        TimeUnit last = qualifier.getEndUnit() != null ? qualifier.getEndUnit() : qualifier.getStartUnit();
        int dot = text.lastIndexOf('.');
        if (last != TimeUnit.SECOND || dot < 0) {
            return millis * 1_000L;
        }
        String digits = text.substring(dot + 1).trim();
        if (digits.isEmpty() || !digits.chars().allMatch(Character::isDigit)) {
            return millis * 1_000L;
        }
        if (digits.length() > 6) {
            if (digits.substring(6).chars().anyMatch(c -> c != '0')) {
                throw invalid("interval " + literal + " is finer than a microsecond");
            }
            digits = digits.substring(0, 6);
        }
        StringBuilder padded = new StringBuilder(digits);
        while (padded.length() < 6) {
            padded.append('0');
        }
        return Long.parseLong(padded.toString());
    }

    private static CoilgunException invalid(String message) {
        return new CoilgunException(SqlState.INVALID_PARAMETER_VALUE, message);
    }
}
