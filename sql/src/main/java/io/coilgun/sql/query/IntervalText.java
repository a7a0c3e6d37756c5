package io.coilgun.sql.query;

/**
 * An interval as Postgres prints it (IntervalStyle {@code postgres}): a day-time interval as days and a time of day
 * when its type has a day field ({@code 1 day 02:00:00.5}, {@code -00:00:01}), as a time when not
 * ({@code 25:00:00}), a year-month interval as years and months ({@code 1 year 2 mons}), zero as {@code 00:00:00}.
 */
final class IntervalText {
    private static final long MICROS_PER_SECOND = 1_000_000L;

    private IntervalText() {
    }

    /** A day-time interval of the engine; {@code withDays}: see {@link IntervalValue#ofMicros}. */
    static String ofMicros(long micros, boolean withDays) {
        IntervalValue v = IntervalValue.ofMicros(micros, withDays);
        return of(v.months(), v.days(), v.micros());
    }

    /**
     * Postgres' interval of months, days and microseconds ({@code EncodeInterval}): {@code 1 year 2 mons 3 days
     * 04:05:06.5}, {@code 1 day -00:00:01}, {@code 00:00:00} for zero; a field right after a negative one gets an
     * explicit {@code +} when positive.
     */
    static String of(int months, int days, long micros) {
        StringBuilder out = new StringBuilder(32);
        boolean afterNegative = unit(out, months / 12, "year", "years", false);
        afterNegative = unit(out, months % 12, "mon", "mons", afterNegative);
        afterNegative = unit(out, days, "day", "days", afterNegative);
        if (micros != 0 || out.length() == 0) {
            if (out.length() > 0) {
                out.append(' ');
            }
            out.append(micros < 0 ? "-" : afterNegative ? "+" : "");
            long t = Math.abs(micros);
            long seconds = t / MICROS_PER_SECOND;
            out.append(String.format("%02d:%02d:%02d", seconds / 3600, seconds / 60 % 60, seconds % 60));
            long fraction = t % MICROS_PER_SECOND;
            if (fraction != 0) {
                String digits = String.format(".%06d", fraction);
                int end = digits.length();
                while (digits.charAt(end - 1) == '0') {
                    end--;
                }
                out.append(digits, 0, end);
            }
        }
        return out.toString();
    }

    static String ofMonths(int months) {
        return of(months, 0, 0);
    }

    /** Appends {@code "<amount> <unit>"} unless zero; returns whether the next field follows a negative one. */
    private static boolean unit(StringBuilder out, long amount, String singular, String plural,
            boolean afterNegative) {
        if (amount == 0) {
            return afterNegative;
        }
        if (out.length() > 0) {
            out.append(' ');
        }
        out.append(afterNegative && amount > 0 ? "+" : "").append(amount).append(' ')
                .append(amount == 1 ? singular : plural);
        return amount < 0;
    }
}
