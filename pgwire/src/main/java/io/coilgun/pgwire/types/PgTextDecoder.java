package io.coilgun.pgwire.types;

import io.coilgun.pgwire.spi.SqlStates;
import io.coilgun.pgwire.spi.PgType;
import java.io.ByteArrayOutputStream;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.time.DateTimeException;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.zone.ZoneOffsetTransition;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Text format (format code 0) of parameter values read into the Java values {@link PgBinaryCodec#decode}
 * returns, accepting what Postgres' input functions accept with the session settings pgwire reports
 * (DateStyle {@code ISO, MDY}, TimeZone {@code UTC}, IntervalStyle {@code postgres}) — the common forms, not
 * every one: dates and timestamps must be ISO {@code YYYY-MM-DD[( |T)hh:mm[:ss[.f]]][zone][ BC]}.
 *
 * <p>Errors are {@link PgInputException}s worded and coded as Postgres words and codes them, e.g.
 * {@code invalid input syntax for type integer: "abc"} (22P02) or {@code value "99999999999" is out of range
 * for type integer} (22003).
 */
public final class PgTextDecoder {
    private static final long MICROS_PER_SECOND = PgBinaryCodec.MICROS_PER_SECOND;
    private static final long MICROS_PER_DAY = PgBinaryCodec.MICROS_PER_DAY;

    /** Postgres 16 integer syntax: decimal, 0x/0o/0b, with single underscores between digits. */
    private static final Pattern INTEGER = Pattern.compile(
            "([+-]?)(?:(\\d++(?:_\\d++)*+)|0[xX]((?:_?[0-9a-fA-F]++)++)|0[oO]((?:_?[0-7]++)++)|0[bB]((?:_?[01]++)++))");
    private static final Pattern FLOAT = Pattern.compile("[+-]?(?:\\d++(?:\\.\\d*+)?|\\.\\d++)(?:[eE][+-]?\\d++)?");
    private static final Pattern NUMERIC = Pattern.compile(
            "[+-]?(?:\\d++(?:_\\d++)*+(?:\\.(?:\\d++(?:_\\d++)*+)?)?|\\.\\d++(?:_\\d++)*+)(?:[eE][+-]?\\d++)?");
    /** Postgres' limits of numeric: digits before and after the decimal point. */
    private static final int NUMERIC_MAX_INTEGER_DIGITS = 131_072;
    private static final int NUMERIC_MAX_SCALE = 0x3FFF;
    /**
     * ISO date, optional time (space or T), optional zone (Z, numeric offset or a name) and era. Groups: 1
     * year, 2 month, 3 day, 4 hour, 5 minute, 6 second, 7 fraction, 8 zone offset, 9 zone name, 10 era.
     */
    private static final Pattern DATE_TIME = Pattern.compile(
            "(\\d{4,9})-(\\d{1,2})-(\\d{1,2})"
            + "(?:(?:[Tt]|\\s+)(\\d{1,2}):(\\d{2})(?::(\\d{2})(?:\\.(\\d*+))?)?)?"
            + "\\s*(?:([Zz]|[+-]\\d{1,2}(?::?\\d{2}(?::?\\d{2})?)?)|(?!(?i:bc|ad)\\b)([A-Za-z][A-Za-z0-9_/+-]*+))?"
            + "(?:\\s*((?i:bc|ad)))?");
    /** A [+-]h:m[:s[.f]] (or m:s.f) time in an interval. */
    private static final Pattern INTERVAL_TIME = Pattern.compile(
            "([+-]?)(\\d++):(\\d++)(?::(\\d++))?(?:\\.(\\d*+))?");
    private static final Pattern DECIMAL = Pattern.compile("[+-]?(?:\\d++(?:\\.\\d*+)?|\\.\\d++)");

    private PgTextDecoder() {
    }

    /**
     * The Java value of {@code text} read as {@code type}, or {@code null} for {@code null} (SQL NULL).
     *
     * @throws PgInputException when Postgres' input function would refuse the text too, or (SQLSTATE 0A000)
     *     for numeric NaN and ±Infinity, which {@link BigDecimal} cannot hold
     */
    public static Object decode(PgType type, String text) {
        if (text == null) {
            return null;
        }
        switch (type) {
            case BOOL:
                return bool(text);
            case INT2:
                return (short) integer(text, Short.MIN_VALUE, Short.MAX_VALUE, "smallint");
            case INT4:
                return (int) integer(text, Integer.MIN_VALUE, Integer.MAX_VALUE, "integer");
            case INT8:
                return integer(text, Long.MIN_VALUE, Long.MAX_VALUE, "bigint");
            case FLOAT4:
                return (float) floating(text, true);
            case FLOAT8:
                return floating(text, false);
            case NUMERIC:
                return numeric(text);
            case TEXT:
            case VARCHAR:
                return text;
            case BYTEA:
                return bytea(text);
            case DATE:
            case TIMESTAMP:
            case TIMESTAMPTZ:
                return dateTime(type, text);
            case INTERVAL:
                return new IntervalReader(text).read();
            default:
                throw new IllegalArgumentException("no text input for type " + type.name().toLowerCase());
        }
    }

    /** {@link #decode} of UTF-8 bytes, refusing malformed UTF-8 and NUL (22021) as Postgres does. */
    public static Object decodeUtf8(PgType type, byte[] bytes) {
        return bytes == null ? null : decode(type, PgBinaryCodec.utf8(bytes, 0, bytes.length));
    }

    // ---- errors

    private static PgInputException syntax(String typeName, String text) {
        return syntax(SqlStates.INVALID_TEXT_REPRESENTATION, typeName, text);
    }

    private static PgInputException syntax(String sqlState, String typeName, String text) {
        return new PgInputException(sqlState, "invalid input syntax for type " + typeName + ": \"" + text + "\"");
    }

    private static PgInputException outOfRange(String typeName, String text) {
        return new PgInputException(SqlStates.NUMERIC_VALUE_OUT_OF_RANGE,
                "value \"" + text + "\" is out of range for type " + typeName);
    }

    /** Strips what C's isspace() calls white space (Postgres' input functions do), not all controls. */
    private static String trim(String text) {
        int start = 0;
        int end = text.length();
        while (start < end && isSpace(text.charAt(start))) {
            start++;
        }
        while (end > start && isSpace(text.charAt(end - 1))) {
            end--;
        }
        return text.substring(start, end);
    }

    private static boolean isSpace(char c) {
        return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\u000B' || c == '\f';
    }

    // ---- bool, numbers, bytea

    /** boolin: any prefix of true/false/yes/no, at least "on"/"of" for on/off, or 1/0; case-insensitive. */
    private static Boolean bool(String text) {
        String s = trim(text).toLowerCase(Locale.ROOT);
        if (!s.isEmpty()) {
            if ("true".startsWith(s) || "yes".startsWith(s) || s.equals("1")
                    || (s.length() >= 2 && "on".startsWith(s))) {
                return Boolean.TRUE;
            }
            if ("false".startsWith(s) || "no".startsWith(s) || s.equals("0")
                    || (s.length() >= 2 && "off".startsWith(s))) {
                return Boolean.FALSE;
            }
        }
        throw syntax("boolean", text);
    }

    private static long integer(String text, long min, long max, String typeName) {
        BigInteger value = parseInteger(trim(text));
        if (value == null) {
            throw syntax(typeName, text);
        }
        if (value.bitLength() >= Long.SIZE || value.longValue() < min || value.longValue() > max) {
            throw outOfRange(typeName, text);
        }
        return value.longValue();
    }

    /** A Postgres 16 integer literal (sign, 0x/0o/0b prefix, underscores), or null when it is not one. */
    private static BigInteger parseInteger(String s) {
        Matcher m = INTEGER.matcher(s);
        if (!m.matches()) {
            return null;
        }
        int radix = m.group(2) != null ? 10 : m.group(3) != null ? 16 : m.group(4) != null ? 8 : 2;
        String digits = m.group(radix == 10 ? 2 : radix == 16 ? 3 : radix == 8 ? 4 : 5).replace("_", "");
        BigInteger value = new BigInteger(digits, radix);
        return m.group(1).equals("-") ? value.negate() : value;
    }

    /** float4in/float8in: decimal or NaN/Infinity/inf; overflow, and underflow to zero, are out of range. */
    private static double floating(String text, boolean float4) {
        String typeName = float4 ? "real" : "double precision";
        String s = trim(text);
        String special = s.toLowerCase(Locale.ROOT);
        boolean negative = special.startsWith("-");
        if (negative || special.startsWith("+")) {
            special = special.substring(1);
        }
        if (special.equals("nan")) {
            return Double.NaN;
        }
        if (special.equals("infinity") || special.equals("inf")) {
            return negative ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY;
        }
        if (!FLOAT.matcher(s).matches()) {
            throw syntax(typeName, text);
        }
        double value = float4 ? Float.parseFloat(s) : Double.parseDouble(s);
        if (Double.isInfinite(value) || (value == 0 && hasNonZeroMantissa(s))) {
            throw new PgInputException(SqlStates.NUMERIC_VALUE_OUT_OF_RANGE,
                    "\"" + s + "\" is out of range for type " + typeName);
        }
        return value;
    }

    private static boolean hasNonZeroMantissa(String number) {
        for (int i = 0; i < number.length() && Character.toLowerCase(number.charAt(i)) != 'e'; i++) {
            if (number.charAt(i) >= '1' && number.charAt(i) <= '9') {
                return true;
            }
        }
        return false;
    }

    /**
     * numeric_in: decimal with optional exponent and underscores, or a 0x/0o/0b integer. The scale is kept
     * ({@code 1.50} has scale 2), never negative ({@code 1e3} is {@code 1000}).
     */
    private static BigDecimal numeric(String text) {
        String s = trim(text);
        String special = s.toLowerCase(Locale.ROOT);
        if (special.equals("nan") || special.matches("[+-]?(inf|infinity)")) {
            throw new PgInputException(SqlStates.FEATURE_NOT_SUPPORTED,
                    "numeric \"" + s + "\" is not supported (no BigDecimal for NaN or infinity)");
        }
        BigDecimal value;
        if (NUMERIC.matcher(s).matches()) {
            try {
                value = new BigDecimal(s.replace("_", ""));
            } catch (NumberFormatException e) { // an exponent beyond int
                throw overflowsNumeric();
            }
        } else {
            BigInteger integer = parseInteger(s);
            if (integer == null) {
                throw syntax("numeric", text);
            }
            value = new BigDecimal(integer);
        }
        if (value.scale() > NUMERIC_MAX_SCALE
                || (long) value.precision() - value.scale() > NUMERIC_MAX_INTEGER_DIGITS) {
            throw overflowsNumeric();
        }
        return value.scale() < 0 ? value.setScale(0) : value;
    }

    private static PgInputException overflowsNumeric() {
        return new PgInputException(SqlStates.NUMERIC_VALUE_OUT_OF_RANGE, "value overflows numeric format");
    }

    /** byteain: hex format {@code \x0aff} (white space between bytes allowed), else the escape format. */
    private static byte[] bytea(String text) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(text.length());
        if (text.startsWith("\\x")) {
            int i = 2;
            while (i < text.length()) {
                char c = text.charAt(i);
                if (c == ' ' || c == '\n' || c == '\t' || c == '\r') {
                    i++;
                    continue;
                }
                int high = hexDigit(c);
                if (i + 1 >= text.length()) {
                    throw new PgInputException(SqlStates.INVALID_PARAMETER_VALUE,
                            "invalid hexadecimal data: odd number of digits");
                }
                out.write(high << 4 | hexDigit(text.charAt(i + 1)));
                i += 2;
            }
            return out.toByteArray();
        }
        // Escape format: bytes as they are, except \\ for a backslash and \ooo (octal, up to \377) for any byte.
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        for (int i = 0; i < bytes.length; i++) {
            if (bytes[i] != '\\') {
                out.write(bytes[i]);
            } else if (i + 1 < bytes.length && bytes[i + 1] == '\\') {
                out.write('\\');
                i++;
            } else if (i + 3 < bytes.length && isOctal(bytes[i + 1], '3') && isOctal(bytes[i + 2], '7')
                    && isOctal(bytes[i + 3], '7')) {
                out.write((bytes[i + 1] - '0') << 6 | (bytes[i + 2] - '0') << 3 | (bytes[i + 3] - '0'));
                i += 3;
            } else {
                throw syntax("bytea", text);
            }
        }
        return out.toByteArray();
    }

    private static boolean isOctal(byte b, char max) {
        return b >= '0' && b <= max;
    }

    private static int hexDigit(char c) {
        int digit = Character.digit(c, 16);
        if (digit < 0 || c > 'f') { // Character.digit also takes non-ASCII digits
            throw new PgInputException(SqlStates.INVALID_PARAMETER_VALUE,
                    "invalid hexadecimal digit: \"" + c + "\"");
        }
        return digit;
    }

    // ---- date, timestamp, timestamptz

    private static Object dateTime(PgType type, String text) {
        String typeName = type == PgType.DATE ? "date"
                : type == PgType.TIMESTAMP ? "timestamp" : "timestamp with time zone";
        String s = trim(text);
        switch (s.toLowerCase(Locale.ROOT)) {
            case "infinity":
            case "+infinity":
                return type == PgType.DATE ? LocalDate.MAX : type == PgType.TIMESTAMP ? LocalDateTime.MAX
                        : PgBinaryCodec.TIMESTAMPTZ_INFINITY;
            case "-infinity":
                return type == PgType.DATE ? LocalDate.MIN : type == PgType.TIMESTAMP ? LocalDateTime.MIN
                        : PgBinaryCodec.TIMESTAMPTZ_NEGATIVE_INFINITY;
            case "epoch":
                s = "1970-01-01 00:00:00+00";
                break;
            default:
                break;
        }
        Matcher m = DATE_TIME.matcher(s);
        if (!m.matches()) {
            throw syntax(SqlStates.INVALID_DATETIME_FORMAT, typeName, text);
        }
        int year = Integer.parseInt(m.group(1));
        int month = Integer.parseInt(m.group(2));
        int day = Integer.parseInt(m.group(3));
        int hour = m.group(4) == null ? 0 : Integer.parseInt(m.group(4));
        int minute = m.group(5) == null ? 0 : Integer.parseInt(m.group(5));
        int second = m.group(6) == null ? 0 : Integer.parseInt(m.group(6));
        long fraction = fractionMicros(m.group(7)); // may round up to a whole second
        boolean bc = m.group(10) != null && m.group(10).equalsIgnoreCase("bc");
        // Postgres has no year 0, takes 24:00:00 as the next midnight and :60 as a leap second.
        if (year == 0 || month < 1 || month > 12 || day < 1 || minute > 59 || second > 60 || hour > 24
                || (hour == 24 && (minute != 0 || second != 0 || fraction != 0))
                || day > LocalDate.of(bc ? 1 - year : year, month, 1).lengthOfMonth()) {
            throw new PgInputException(SqlStates.DATETIME_FIELD_OVERFLOW,
                    "date/time field value out of range: \"" + text + "\"");
        }
        long days = LocalDate.of(bc ? 1 - year : year, month, day).toEpochDay() - PgBinaryCodec.PG_EPOCH_DAY;
        if (type == PgType.DATE) { // date_in ignores the time and the zone
            if (days < PgBinaryCodec.MIN_DATE || days >= PgBinaryCodec.END_DATE) {
                throw dateTimeOutOfRange("date", text);
            }
            return PgBinaryCodec.date((int) days);
        }
        // A day to spare either side for the zone offset; the exact range is checked in microseconds.
        if (days < PgBinaryCodec.MIN_DATE - 1 || days > PgBinaryCodec.END_TIMESTAMP / MICROS_PER_DAY) {
            throw dateTimeOutOfRange("timestamp", text);
        }
        long micros = days * MICROS_PER_DAY + ((hour * 60L + minute) * 60 + second) * MICROS_PER_SECOND + fraction;
        ZoneOffset offset = offset(m.group(8), m.group(9), micros, text); // checked even when ignored
        if (type == PgType.TIMESTAMPTZ && offset != null) {
            micros -= offset.getTotalSeconds() * MICROS_PER_SECOND;
        }
        if (micros < PgBinaryCodec.MIN_TIMESTAMP || micros >= PgBinaryCodec.END_TIMESTAMP) {
            throw dateTimeOutOfRange("timestamp", text);
        }
        LocalDateTime timestamp = PgBinaryCodec.timestamp(micros);
        return type == PgType.TIMESTAMP ? timestamp : timestamp.atOffset(ZoneOffset.UTC);
    }

    private static PgInputException dateTimeOutOfRange(String what, String text) {
        return new PgInputException(SqlStates.DATETIME_FIELD_OVERFLOW,
                what + " out of range: \"" + text + "\"");
    }

    /** Microseconds of a fraction of a second's digits, rounded half to even like Postgres' rint(). */
    private static long fractionMicros(String digits) {
        if (digits == null || digits.isEmpty()) {
            return 0;
        }
        return new BigDecimal("0." + digits).movePointRight(6).setScale(0, RoundingMode.HALF_EVEN).longValueExact();
    }

    /**
     * The offset of a numeric zone ({@code Z}, {@code +02}, {@code -0530}, {@code +05:30:00}) or of a zone
     * name at that local time ({@code localMicros} since 2000-01-01), null when there is none. Like Postgres,
     * a local time skipped by a DST gap takes the offset before the gap and an ambiguous one the later offset.
     */
    private static ZoneOffset offset(String numeric, String name, long localMicros, String text) {
        if (numeric != null) {
            if (numeric.equalsIgnoreCase("z")) {
                return ZoneOffset.UTC;
            }
            String digits = numeric.substring(1).replace(":", "");
            if (digits.length() % 2 == 1) {
                digits = "0" + digits;
            }
            int hours = Integer.parseInt(digits.substring(0, 2));
            int minutes = digits.length() >= 4 ? Integer.parseInt(digits.substring(2, 4)) : 0;
            int seconds = digits.length() >= 6 ? Integer.parseInt(digits.substring(4, 6)) : 0;
            if (hours > 15 || minutes > 59 || seconds > 59) {
                throw new PgInputException(SqlStates.INVALID_TIME_ZONE_DISPLACEMENT_VALUE,
                        "time zone displacement out of range: \"" + text + "\"");
            }
            int total = (hours * 60 + minutes) * 60 + seconds;
            return ZoneOffset.ofTotalSeconds(numeric.charAt(0) == '-' ? -total : total);
        }
        if (name == null) {
            return null;
        }
        ZoneId zone = ZoneNames.find(name);
        if (zone == null) {
            throw new PgInputException(SqlStates.INVALID_PARAMETER_VALUE,
                    "time zone \"" + name + "\" not recognized");
        }
        LocalDateTime local = LocalDateTime.ofEpochSecond(
                Math.floorDiv(localMicros, MICROS_PER_SECOND) + PgBinaryCodec.PG_EPOCH_DAY * 86_400, 0, ZoneOffset.UTC);
        ZoneOffsetTransition transition = zone.getRules().getTransition(local);
        if (transition == null) {
            return zone.getRules().getOffset(local);
        }
        return transition.isGap() ? transition.getOffsetBefore() : transition.getOffsetAfter();
    }

    /** Zone names as Postgres matches them: case-insensitively. */
    private static final class ZoneNames {
        private static final Map<String, String> IDS = new HashMap<>();

        static {
            for (String id : ZoneId.getAvailableZoneIds()) {
                IDS.put(id.toLowerCase(Locale.ROOT), id);
            }
            IDS.put("utc", "UTC");
            IDS.put("gmt", "GMT");
        }

        static ZoneId find(String name) {
            String id = IDS.get(name.toLowerCase(Locale.ROOT));
            try {
                return id == null ? null : ZoneId.of(id);
            } catch (DateTimeException e) {
                return null;
            }
        }
    }

    // ---- interval

    /**
     * interval_in: Postgres' own format ({@code 1 year 2 mons 3 days 04:05:06.5}, {@code -1 days +02:00:00},
     * {@code @ 1 hour ago}, units spelled as Postgres accepts them, a lone number being seconds), the SQL
     * standard's {@code 1-2} (years-months) and {@code 3 4:05:06} (days and time), and ISO 8601 with
     * designators ({@code P1Y2M3DT4H5M6.5S}). Fractions spill into smaller fields as in Postgres: a month is
     * 30 days, a day 24 hours, and a fraction of a year rounds to whole months.
     */
    private static final class IntervalReader {
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

        IntervalReader(String text) {
            this.text = text;
        }

        private static void unit(int unit, String... names) {
            for (String name : names) {
                UNITS.put(name, unit);
            }
        }

        PgInterval read() {
            String s = trim(text);
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
                if (isSpace(c)) {
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
                    .add(BigDecimal.valueOf((minutes * 60 + seconds) * MICROS_PER_SECOND + fractionMicros(m.group(5))));
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
            return syntax(SqlStates.INVALID_DATETIME_FORMAT, "interval", text);
        }

        private static boolean isDigit(char c) {
            return c >= '0' && c <= '9';
        }
    }
}
