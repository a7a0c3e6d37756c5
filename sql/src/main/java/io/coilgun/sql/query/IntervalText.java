package io.coilgun.sql.query;

/**
 * An interval as Postgres prints it (IntervalStyle {@code postgres}): a day-time interval as days and a time of day
 * ({@code 1 day 02:00:00.5}, {@code -00:00:01}), a year-month interval as years and months ({@code 1 year 2 mons}),
 * zero as {@code 00:00:00}.
 */
final class IntervalText {
    private static final long MICROS_PER_SECOND = 1_000_000L;
    private static final long MICROS_PER_DAY = 86_400L * MICROS_PER_SECOND;

    private IntervalText() {
    }

    static String ofMicros(long micros) {
        long days = micros / MICROS_PER_DAY;
        long time = micros % MICROS_PER_DAY;
        StringBuilder out = new StringBuilder(24);
        unit(out, days, "day", "days");
        if (time != 0 || days == 0) {
            if (days != 0) {
                out.append(' ');
            }
            out.append(time < 0 ? "-" : days < 0 ? "+" : "");
            long t = Math.abs(time);
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
        StringBuilder out = new StringBuilder(16);
        unit(out, months / 12, "year", "years");
        unit(out, months % 12, "mon", "mons");
        return out.length() == 0 ? "00:00:00" : out.toString();
    }

    private static void unit(StringBuilder out, long amount, String singular, String plural) {
        if (amount != 0) {
            if (out.length() > 0) {
                out.append(' ');
            }
            out.append(amount).append(' ').append(amount == 1 ? singular : plural);
        }
    }
}
