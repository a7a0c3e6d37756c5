package io.coilgun.pgwire.types;

import io.coilgun.pgwire.spi.PgType;
import io.coilgun.pgwire.spi.SqlStates;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.DateTimeException;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.zone.ZoneOffsetTransition;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * date_in, timestamp_in and timestamptz_in for the ISO forms {@code YYYY-MM-DD[( |T)hh:mm[:ss[.f]]][zone][ BC]},
 * {@code infinity}, {@code -infinity} and {@code epoch}, with TimeZone {@code UTC}: a zone is a numeric offset or
 * a zone name, matched case-insensitively; a date ignores the time and the zone, a timestamp ignores the zone
 * (which must still be valid).
 */
final class PgDateTimeInput {
    private static final long MICROS_PER_SECOND = PgBinaryCodec.MICROS_PER_SECOND;
    private static final long MICROS_PER_DAY = PgBinaryCodec.MICROS_PER_DAY;

    /**
     * ISO date, optional time (space or T), optional zone (Z, numeric offset or a name) and era. Groups: 1
     * year, 2 month, 3 day, 4 hour, 5 minute, 6 second, 7 fraction, 8 zone offset, 9 zone name, 10 era.
     */
    private static final Pattern DATE_TIME = Pattern.compile(
            "(\\d{4,9})-(\\d{1,2})-(\\d{1,2})"
            + "(?:(?:[Tt]|\\s+)(\\d{1,2}):(\\d{2})(?::(\\d{2})(?:\\.(\\d*+))?)?)?"
            + "\\s*(?:([Zz]|[+-]\\d{1,2}(?::?\\d{2}(?::?\\d{2})?)?)|(?!(?i:bc|ad)\\b)([A-Za-z][A-Za-z0-9_/+-]*+))?"
            + "(?:\\s*((?i:bc|ad)))?");

    private PgDateTimeInput() {
    }

    /** The {@link LocalDate}, {@link LocalDateTime} or {@link OffsetDateTime} of {@code text}. */
    static Object read(PgType type, String text) {
        String typeName = type == PgType.DATE ? "date"
                : type == PgType.TIMESTAMP ? "timestamp" : "timestamp with time zone";
        String s = InputSyntax.trim(text);
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
            throw InputSyntax.syntax(SqlStates.INVALID_DATETIME_FORMAT, typeName, text);
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
    static long fractionMicros(String digits) {
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
}
