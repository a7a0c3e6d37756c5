package io.coilgun.pgwire.types;

import io.coilgun.pgwire.spi.SqlStates;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * interval_in: Postgres' own format ({@code 1 year 2 mons 3 days 04:05:06.5}, {@code -1 days +02:00:00},
 * {@code @ 1 hour ago}, units spelled as Postgres accepts them, a lone number being seconds), the SQL
 * standard's {@code 1-2} (years-months) and {@code 3 4:05:06} (days and time), and ISO 8601 with
 * designators ({@code P1Y2M3DT4H5M6.5S}). Fractions spill into smaller fields as in Postgres: a month is
 * 30 days, a day 24 hours, and a fraction of a year rounds to whole months. One reader per value.
 */
final class PgIntervalInput {
    private static final long MICROS_PER_SECOND = PgBinaryCodec.MICROS_PER_SECOND;
    private static final long MICROS_PER_DAY = PgBinaryCodec.MICROS_PER_DAY;
    /** A [+-]h:m[:s[.f]] (or m:s.f) time in an interval. */
    private static final Pattern INTERVAL_TIME = Pattern.compile(
            "([+-]?)(\\d++):(\\d++)(?::(\\d++))?(?:\\.(\\d*+))?");
    private static final Pattern DECIMAL = Pattern.compile("[+-]?(?:\\d++(?:\\.\\d*+)?|\\.\\d++)");

    /** The fields, as bits: Postgres refuses one given twice. */
    private static final int YEAR = 1;
    private static final int MONTH = 2;
    private static final int WEEK = 4;
    private static final int DAY = 8;
    private static final int HOUR = 16;
    private static final int MINUTE = 32;
    private static final int SECOND = 64;
    private static final int MILLISECOND = 128;
    private static final int MICROSECOND = 256;
    private static final int DECADE = 512;
    private static final int CENTURY = 1024;
    private static final int MILLENNIUM = 2048;
    private static final int TIME = HOUR | MINUTE | SECOND | MILLISECOND | MICROSECOND;
    private static final Map<String, Integer> UNITS = new HashMap<>();

    static {
        unit(YEAR, "y", "yr", "yrs", "year", "years");
        unit(MONTH, "mon", "mons", "month", "months");
        unit(WEEK, "w", "week", "weeks");
        unit(DAY, "d", "day", "days");
        unit(HOUR, "h", "hr", "hrs", "hour", "hours");
        unit(MINUTE, "m", "min", "mins", "minute", "minutes");
        unit(SECOND, "s", "sec", "secs", "second", "seconds");
        unit(MILLISECOND, "ms", "msec", "msecs", "msecond", "mseconds", "millisecon", "millisecond",
                "milliseconds");
        unit(MICROSECOND, "us", "usec", "usecs", "usecond", "useconds", "microsecon", "microsecond",
                "microseconds");
        unit(DECADE, "dec", "decs", "decade", "decades");
        unit(CENTURY, "c", "cent", "century", "centuries");
        unit(MILLENNIUM, "mil", "mils", "millennium", "millennia");
    }

    private final String text;
    private BigDecimal months = BigDecimal.ZERO;
    private BigDecimal days = BigDecimal.ZERO;
    private BigDecimal micros = BigDecimal.ZERO;
    private int seen;

    PgIntervalInput(String text) {
        this.text = text;
    }

    private static void unit(int unit, String... names) {
        for (String name : names) {
            UNITS.put(name, unit);
        }
    }

    /** The interval the text holds; a reader reads once. */
    PgInterval read() {
        String s = InputSyntax.trim(text);
        switch (s.toLowerCase(Locale.ROOT)) {
            case "infinity":
            case "+infinity":
                return PgInterval.INFINITY;
            case "-infinity":
                return PgInterval.NEGATIVE_INFINITY;
            default:
                break;
        }
        if (s.startsWith("P")) {
            iso8601(s);
        } else {
            postgres(tokens(s));
        }
        return result();
    }

    /** Numbers (with their sign, and colons or a year-month dash), words and "@". */
    private List<String> tokens(String s) {
        List<String> tokens = new ArrayList<>();
        int i = 0;
        while (i < s.length()) {
            char c = s.charAt(i);
            int start = i;
            if (InputSyntax.isSpace(c)) {
                i++;
                continue;
            } else if (c == '@') {
                i++;
            } else if (Character.isLetter(c)) {
                while (i < s.length() && Character.isLetter(s.charAt(i))) {
                    i++;
                }
            } else if (c == '+' || c == '-' || c == '.' || isDigit(c)) {
                i++;
                while (i < s.length() && (isDigit(s.charAt(i)) || s.charAt(i) == '.' || s.charAt(i) == ':'
                        || (s.charAt(i) == '-' && i + 1 < s.length() && isDigit(s.charAt(i + 1))))) {
                    i++;
                }
            } else {
                throw syntaxError();
            }
            tokens.add(s.substring(start, i));
        }
        return tokens;
    }

    private void postgres(List<String> tokens) {
        int n = tokens.size();
        int first = n > 0 && tokens.get(0).equals("@") ? 1 : 0;
        boolean ago = n > first && tokens.get(n - 1).equalsIgnoreCase("ago");
        int end = ago ? n - 1 : n;
        if (first >= end) {
            throw syntaxError();
        }
        for (int i = first; i < end; i++) {
            String token = tokens.get(i);
            String next = i + 1 < end ? tokens.get(i + 1) : null;
            if (token.indexOf(':') >= 0) {
                time(token);
            } else if (token.indexOf('-', 1) > 0) {
                yearMonth(token);
            } else if (DECIMAL.matcher(token).matches()) {
                Integer unit = next == null ? null : UNITS.get(next.toLowerCase(Locale.ROOT));
                if (unit != null) {
                    add(unit, new BigDecimal(token));
                    i++;
                } else if (next == null) {
                    add(SECOND, new BigDecimal(token)); // a lone trailing number is seconds
                } else if (next.indexOf(':') >= 0) {
                    add(DAY, new BigDecimal(token)); // SQL standard "3 4:05:06"
                } else {
                    throw syntaxError();
                }
            } else {
                throw syntaxError();
            }
        }
        if (ago) {
            months = months.negate();
            days = days.negate();
            micros = micros.negate();
        }
    }

    /** {@code [+-]h:m}, {@code [+-]h:m:s[.f]} or {@code [+-]m:s.f}; every field takes the sign. */
    private void time(String token) {
        Matcher m = INTERVAL_TIME.matcher(token);
        if (!m.matches()) {
            throw syntaxError();
        }
        mark(TIME);
        boolean minutesSeconds = m.group(4) == null && m.group(5) != null;
        BigDecimal hours = minutesSeconds ? BigDecimal.ZERO : new BigDecimal(m.group(2));
        long minutes = Long.parseLong(minutesSeconds ? m.group(2) : m.group(3));
        long seconds = minutesSeconds ? Long.parseLong(m.group(3))
                : m.group(4) == null ? 0 : Long.parseLong(m.group(4));
        if (minutes > 59 || seconds > 60) {
            throw new PgInputException(SqlStates.INTERVAL_FIELD_OVERFLOW,
                    "interval field value out of range: \"" + text + "\"");
        }
        BigDecimal value = hours.multiply(BigDecimal.valueOf(3_600 * MICROS_PER_SECOND))
                .add(BigDecimal.valueOf((minutes * 60 + seconds) * MICROS_PER_SECOND + PgDateTimeInput.fractionMicros(m.group(5))));
        micros = micros.add(m.group(1).equals("-") ? value.negate() : value);
    }

    /** SQL standard {@code [+-]Y-M}, years and months. */
    private void yearMonth(String token) {
        Matcher m = Pattern.compile("([+-]?)(\\d++)-(\\d++)").matcher(token);
        if (!m.matches()) {
            throw syntaxError();
        }
        mark(YEAR | MONTH);
        BigDecimal value = new BigDecimal(m.group(2)).multiply(BigDecimal.valueOf(12))
                .add(new BigDecimal(m.group(3)));
        months = months.add(m.group(1).equals("-") ? value.negate() : value);
    }

    /** {@code P[nY][nM][nW][nD][T[nH][nM][nS]]}, each n signed and possibly fractional. */
    private void iso8601(String s) {
        Matcher number = DECIMAL.matcher(s);
        boolean inTime = false;
        int i = 1;
        int parts = 0;
        while (i < s.length()) {
            if (s.charAt(i) == 'T' && !inTime) {
                inTime = true;
                i++;
                continue;
            }
            number.region(i, s.length());
            if (!number.lookingAt() || number.end() >= s.length()) {
                throw syntaxError();
            }
            BigDecimal value = new BigDecimal(number.group());
            char designator = s.charAt(number.end());
            int unit = inTime ? (designator == 'H' ? HOUR : designator == 'M' ? MINUTE : designator == 'S' ? SECOND : 0)
                    : (designator == 'Y' ? YEAR : designator == 'M' ? MONTH : designator == 'W' ? WEEK
                            : designator == 'D' ? DAY : 0);
            if (unit == 0) {
                throw syntaxError();
            }
            add(unit, value);
            parts++;
            i = number.end() + 1;
        }
        if (parts == 0) {
            throw syntaxError();
        }
    }

    /** Adds {@code value} of a unit, spilling its fraction into smaller fields the way Postgres does. */
    private void add(int unit, BigDecimal value) {
        mark(unit);
        BigDecimal whole = new BigDecimal(value.toBigInteger());
        BigDecimal fraction = value.subtract(whole);
        switch (unit) {
            case MILLENNIUM:
            case CENTURY:
            case DECADE:
            case YEAR:
                BigDecimal perUnit = BigDecimal.valueOf(unit == YEAR ? 12 : unit == DECADE ? 120
                        : unit == CENTURY ? 1_200 : 12_000);
                months = months.add(whole.multiply(perUnit))
                        .add(fraction.multiply(perUnit).setScale(0, RoundingMode.HALF_EVEN));
                break;
            case MONTH:
                months = months.add(whole);
                addDays(fraction.multiply(BigDecimal.valueOf(30)));
                break;
            case WEEK:
                addDays(value.multiply(BigDecimal.valueOf(7)));
                break;
            case DAY:
                addDays(value);
                break;
            default:
                long perUnitMicros = unit == HOUR ? 3_600 * MICROS_PER_SECOND : unit == MINUTE ? 60 * MICROS_PER_SECOND
                        : unit == SECOND ? MICROS_PER_SECOND : unit == MILLISECOND ? 1_000 : 1;
                micros = micros.add(value.multiply(BigDecimal.valueOf(perUnitMicros))
                        .setScale(0, RoundingMode.HALF_EVEN));
                break;
        }
    }

    /** Whole days to days, the rest to microseconds. */
    private void addDays(BigDecimal value) {
        BigDecimal whole = new BigDecimal(value.toBigInteger());
        days = days.add(whole);
        micros = micros.add(value.subtract(whole).multiply(BigDecimal.valueOf(MICROS_PER_DAY))
                .setScale(0, RoundingMode.HALF_EVEN));
    }

    /** Postgres refuses a field given twice, e.g. {@code 1 day 2 days}. */
    private void mark(int units) {
        if ((seen & units) != 0) {
            throw syntaxError();
        }
        seen |= units;
    }

    private PgInterval result() {
        try {
            return new PgInterval(months.intValueExact(), days.intValueExact(), micros.longValueExact());
        } catch (ArithmeticException e) {
            throw new PgInputException(SqlStates.DATETIME_FIELD_OVERFLOW, "interval out of range");
        }
    }

    private PgInputException syntaxError() {
        return InputSyntax.syntax(SqlStates.INVALID_DATETIME_FORMAT, "interval", text);
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }
}
