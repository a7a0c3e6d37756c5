package io.coilgun.planner.model;

import java.math.BigDecimal;
import java.util.Locale;

/** Durations in microseconds, read and written the way users write window sizes ("5 MINUTES"). */
public final class Durations {
    public static final long MILLISECOND = 1_000L;
    public static final long SECOND = 1_000 * MILLISECOND;
    public static final long MINUTE = 60 * SECOND;
    public static final long HOUR = 60 * MINUTE;
    public static final long DAY = 24 * HOUR;
    public static final long WEEK = 7 * DAY;
    /** Window sizes are fixed lengths: a month is 30 days. */
    public static final long MONTH = 30 * DAY;
    /** Window sizes are fixed lengths: a year is 365 days. */
    public static final long YEAR = 365 * DAY;

    private static final long[] UNITS = {YEAR, WEEK, DAY, HOUR, MINUTE, SECOND, MILLISECOND, 1};
    private static final String[] NAMES = {"YEAR", "WEEK", "DAY", "HOUR", "MINUTE", "SECOND", "MILLISECOND", "MICROSECOND"};

    private Durations() {
    }

    /** The largest whole unit: 300_000_000 -> "5 MINUTES". */
    public static String format(long micros) {
        for (int i = 0; i < UNITS.length; i++) {
            if (micros != 0 && micros % UNITS[i] == 0) {
                long n = micros / UNITS[i];
                return n + " " + NAMES[i] + (n == 1 ? "" : "S");
            }
        }
        return "0 SECONDS";
    }

    /**
     * Parses "10 seconds", "1 minute", "500 ms", "2h", "1.5 seconds".
     *
     * @throws IllegalArgumentException when the text is not a duration
     */
    public static long parse(String text) {
        String s = text.trim().toLowerCase(Locale.ROOT);
        int i = 0;
        while (i < s.length() && (Character.isDigit(s.charAt(i)) || s.charAt(i) == '.')) {
            i++;
        }
        if (i == 0) {
            throw new IllegalArgumentException("not a duration: '" + text + "'");
        }
        BigDecimal n = new BigDecimal(s.substring(0, i));
        String unit = s.substring(i).trim();
        long scale = switch (unit) {
            case "us", "microsecond", "microseconds" -> 1;
            case "ms", "millisecond", "milliseconds" -> MILLISECOND;
            case "", "s", "sec", "secs", "second", "seconds" -> SECOND;
            case "m", "min", "mins", "minute", "minutes" -> MINUTE;
            case "h", "hour", "hours" -> HOUR;
            case "d", "day", "days" -> DAY;
            case "w", "week", "weeks" -> WEEK;
            case "month", "months" -> MONTH;
            case "y", "year", "years" -> YEAR;
            default -> throw new IllegalArgumentException("unknown time unit '" + unit + "' in '" + text + "'");
        };
        return n.multiply(BigDecimal.valueOf(scale)).longValueExact();
    }
}
