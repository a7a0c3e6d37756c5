package io.coilgun.pgwire.types;

import java.time.Duration;
import java.time.Period;
import java.time.temporal.ChronoUnit;
import java.time.temporal.TemporalAmount;
import java.time.temporal.TemporalUnit;

/**
 * A Postgres {@code interval} as Postgres keeps it: months, days and microseconds, each with its own sign and
 * never carried into the next (a month is not 30 days, a day is not 24 hours, and {@code 36:00:00} stays 36
 * hours). {@link Duration} and {@link Period} each hold only part of that, hence this record.
 *
 * <p>Postgres 17's infinite intervals are {@link #INFINITY} and {@link #NEGATIVE_INFINITY}: all three fields
 * at their maximum, or all at their minimum.
 */
public record PgInterval(int months, int days, long micros) {
    public static final PgInterval ZERO = new PgInterval(0, 0, 0);
    public static final PgInterval INFINITY = new PgInterval(Integer.MAX_VALUE, Integer.MAX_VALUE, Long.MAX_VALUE);
    public static final PgInterval NEGATIVE_INFINITY =
            new PgInterval(Integer.MIN_VALUE, Integer.MIN_VALUE, Long.MIN_VALUE);

    private static final long MICROS_PER_SECOND = 1_000_000;
    private static final long MICROS_PER_MINUTE = 60 * MICROS_PER_SECOND;
    private static final long MICROS_PER_HOUR = 60 * MICROS_PER_MINUTE;
    private static final long MICROS_PER_DAY = 24 * MICROS_PER_HOUR;

    /**
     * A duration as whole days and microseconds, each with the duration's sign (as its text is printed, and as
     * Postgres gives the difference of two timestamps), sub-microseconds truncated toward zero.
     */
    public static PgInterval of(Duration duration) {
        try {
            long micros = duration.dividedBy(ChronoUnit.MICROS.getDuration());
            return new PgInterval(0, Math.toIntExact(micros / MICROS_PER_DAY), micros % MICROS_PER_DAY);
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException("interval out of range: " + duration, e);
        }
    }

    /**
     * Any interval a value may be: this record, a {@link Duration} or {@link Period} (as {@link #of(Duration)}
     * and {@link #of(Period)}), or another {@link TemporalAmount} of months, days and a length of time (the units
     * {@link ChronoUnit#MONTHS}, {@link ChronoUnit#DAYS} and any of micros' length or more, each taken apart, as
     * the sql layer's intervals are); null for anything else.
     */
    public static PgInterval of(Object value) {
        if (value instanceof PgInterval interval) {
            return interval;
        }
        if (value instanceof Duration duration) {
            return of(duration);
        }
        if (value instanceof Period period) {
            return of(period);
        }
        if (!(value instanceof TemporalAmount amount)) {
            return null;
        }
        try {
            long months = 0;
            long days = 0;
            long micros = 0;
            for (TemporalUnit unit : amount.getUnits()) {
                long n = amount.get(unit);
                if (unit == ChronoUnit.MONTHS) {
                    months = Math.addExact(months, n);
                } else if (unit == ChronoUnit.YEARS) {
                    months = Math.addExact(months, Math.multiplyExact(n, 12));
                } else if (unit == ChronoUnit.DAYS) {
                    days = Math.addExact(days, n);
                } else if (unit.isTimeBased()) {
                    micros = Math.addExact(micros, unit.getDuration().multipliedBy(n)
                            .dividedBy(ChronoUnit.MICROS.getDuration()));
                } else {
                    return null;
                }
            }
            return new PgInterval(Math.toIntExact(months), Math.toIntExact(days), micros);
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException("interval out of range: " + value, e);
        }
    }

    /** A period as months (years times 12 plus months) and days. */
    public static PgInterval of(Period period) {
        try {
            return new PgInterval(Math.toIntExact(period.toTotalMonths()), period.getDays(), 0);
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException("interval out of range: " + period, e);
        }
    }

    /**
     * The interval as Postgres prints it with IntervalStyle {@code postgres} ({@code EncodeInterval}):
     * {@code 1 year 2 mons 3 days 04:05:06.5}, {@code -1 days +02:00:00}, {@code 00:00:00} for zero. A field
     * right after a negative one gets an explicit {@code +} when positive.
     */
    public String toPostgresString() {
        if (equals(INFINITY)) {
            return "infinity";
        }
        if (equals(NEGATIVE_INFINITY)) {
            return "-infinity";
        }
        StringBuilder out = new StringBuilder(32);
        boolean afterNegative = appendField(out, months / 12, "year", false);
        afterNegative = appendField(out, months % 12, "mon", afterNegative);
        afterNegative = appendField(out, days, "day", afterNegative);
        long hours = micros / MICROS_PER_HOUR;
        long minutes = micros % MICROS_PER_HOUR / MICROS_PER_MINUTE;
        long seconds = micros % MICROS_PER_MINUTE / MICROS_PER_SECOND;
        long fraction = micros % MICROS_PER_SECOND;
        if (out.length() == 0 || micros != 0) {
            if (out.length() > 0) {
                out.append(' ');
            }
            out.append(micros < 0 ? "-" : afterNegative ? "+" : "");
            pad(out, Math.abs(hours), 2).append(':');
            pad(out, Math.abs(minutes), 2).append(':');
            pad(out, Math.abs(seconds), 2);
            if (fraction != 0) {
                int start = out.append('.').length();
                pad(out, Math.abs(fraction), 6);
                int end = out.length();
                while (end > start && out.charAt(end - 1) == '0') {
                    end--;
                }
                out.setLength(end);
            }
        }
        return out.toString();
    }

    /** Appends {@code "<amount> <unit>[s]"} unless zero; returns whether the next field follows a negative one. */
    private static boolean appendField(StringBuilder out, int amount, String unit, boolean afterNegative) {
        if (amount == 0) {
            return afterNegative;
        }
        if (out.length() > 0) {
            out.append(' ');
        }
        out.append(afterNegative && amount > 0 ? "+" : "").append(amount).append(' ').append(unit);
        if (amount != 1) {
            out.append('s');
        }
        return amount < 0;
    }

    private static StringBuilder pad(StringBuilder out, long value, int width) {
        String digits = Long.toString(value);
        for (int i = digits.length(); i < width; i++) {
            out.append('0');
        }
        return out.append(digits);
    }
}
