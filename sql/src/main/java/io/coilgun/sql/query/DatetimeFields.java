package io.coilgun.sql.query;

import io.coilgun.planner.error.CoilgunException;
import io.coilgun.planner.error.SqlState;
import java.math.BigDecimal;
import java.time.LocalDateTime;
import java.time.temporal.IsoFields;
import java.util.Locale;
import java.util.Map;

/**
 * The fields of a timestamp, a date and an interval as Postgres' {@code EXTRACT}, {@code date_part} and
 * {@code date_trunc} compute them, over the engine's values: a timestamp's microseconds, a date's days, a day-time
 * interval's microseconds ({@link EngineTimestamps}), a year-month interval's months.
 */
final class DatetimeFields {
    private static final long MICROS_PER_SECOND = 1_000_000L;
    private static final long MICROS_PER_MINUTE = 60 * MICROS_PER_SECOND;
    private static final long MICROS_PER_HOUR = 60 * MICROS_PER_MINUTE;
    static final long MICROS_PER_DAY = 24 * MICROS_PER_HOUR;
    private static final long SECONDS_PER_DAY = 86_400L;

    /** A field Postgres takes a value apart into. */
    enum Field {
        MICROSECOND, MILLISECOND, SECOND, MINUTE, HOUR, DAY, WEEK, MONTH, QUARTER, YEAR, DECADE, CENTURY, MILLENNIUM,
        DOW, ISODOW, DOY, ISOYEAR, EPOCH
    }

    /** Postgres' other spellings of the fields ({@code date_part('hours', …)}, {@code 'ms'}, {@code 'y'}). */
    private static final Map<String, Field> SPELLINGS = Map.ofEntries(
            Map.entry("microseconds", Field.MICROSECOND), Map.entry("us", Field.MICROSECOND),
            Map.entry("usec", Field.MICROSECOND), Map.entry("usecs", Field.MICROSECOND),
            Map.entry("milliseconds", Field.MILLISECOND), Map.entry("ms", Field.MILLISECOND),
            Map.entry("msec", Field.MILLISECOND), Map.entry("msecs", Field.MILLISECOND),
            Map.entry("seconds", Field.SECOND), Map.entry("s", Field.SECOND), Map.entry("sec", Field.SECOND),
            Map.entry("secs", Field.SECOND), Map.entry("minutes", Field.MINUTE), Map.entry("m", Field.MINUTE),
            Map.entry("min", Field.MINUTE), Map.entry("mins", Field.MINUTE), Map.entry("hours", Field.HOUR),
            Map.entry("h", Field.HOUR), Map.entry("hr", Field.HOUR), Map.entry("hrs", Field.HOUR),
            Map.entry("days", Field.DAY), Map.entry("d", Field.DAY), Map.entry("weeks", Field.WEEK),
            Map.entry("w", Field.WEEK), Map.entry("months", Field.MONTH), Map.entry("mon", Field.MONTH),
            Map.entry("mons", Field.MONTH), Map.entry("quarters", Field.QUARTER), Map.entry("qtr", Field.QUARTER),
            Map.entry("years", Field.YEAR), Map.entry("y", Field.YEAR), Map.entry("yr", Field.YEAR),
            Map.entry("yrs", Field.YEAR), Map.entry("decades", Field.DECADE), Map.entry("dec", Field.DECADE),
            Map.entry("decs", Field.DECADE), Map.entry("centuries", Field.CENTURY), Map.entry("c", Field.CENTURY),
            Map.entry("cent", Field.CENTURY), Map.entry("millennia", Field.MILLENNIUM),
            Map.entry("millenniums", Field.MILLENNIUM), Map.entry("mil", Field.MILLENNIUM),
            Map.entry("mils", Field.MILLENNIUM));

    private DatetimeFields() {
    }

    /** The field a name gives ({@code 'Hour'}, {@code 'hours'}, {@code EXTRACT}'s {@code MICROSECOND}). */
    static Field field(String name, String typeName) {
        String n = name.trim().toLowerCase(Locale.ROOT);
        Field f = SPELLINGS.get(n);
        if (f != null) {
            return f;
        }
        for (Field candidate : Field.values()) {
            if (candidate.name().equalsIgnoreCase(n)) {
                return candidate;
            }
        }
        throw new CoilgunException(SqlState.INVALID_PARAMETER_VALUE, "unit \"" + name
                + "\" not recognized for type " + typeName, 0);
    }

    private static CoilgunException unsupported(Field f, String typeName) {
        return new CoilgunException(SqlState.FEATURE_NOT_SUPPORTED, "unit \"" + f.name().toLowerCase(Locale.ROOT)
                + "\" not supported for type " + typeName, 0);
    }

    /** {@code EXTRACT(field FROM timestamp)}: the timestamp's microseconds since the epoch. */
    static BigDecimal ofTimestamp(Field f, long micros) {
        LocalDateTime t = EngineTimestamps.toLocal(micros);
        long ofMinute = t.getSecond() * MICROS_PER_SECOND + t.getNano() / 1000;
        return switch (f) {
            case MICROSECOND -> BigDecimal.valueOf(ofMinute);
            case MILLISECOND -> BigDecimal.valueOf(ofMinute, 3);
            case SECOND -> BigDecimal.valueOf(ofMinute, 6);
            case MINUTE -> BigDecimal.valueOf(t.getMinute());
            case HOUR -> BigDecimal.valueOf(t.getHour());
            case EPOCH -> BigDecimal.valueOf(micros, 6);
            default -> ofDate(f, t, "timestamp without time zone");
        };
    }

    /** {@code EXTRACT(field FROM date)}: the date's days since the epoch. */
    static BigDecimal ofDate(Field f, int days) {
        if (f == Field.EPOCH) {
            return BigDecimal.valueOf(days * SECONDS_PER_DAY);
        }
        return switch (f) {
            case MICROSECOND, MILLISECOND, SECOND, MINUTE, HOUR -> throw unsupported(f, "date");
            default -> ofDate(f, EngineTimestamps.toLocal(days * MICROS_PER_DAY), "date");
        };
    }

    private static BigDecimal ofDate(Field f, LocalDateTime t, String typeName) {
        int year = t.getYear() > 0 ? t.getYear() : t.getYear() - 1; // Postgres' years have no year 0: 1 BC is -1
        long value = switch (f) {
            case DAY -> t.getDayOfMonth();
            case WEEK -> t.get(IsoFields.WEEK_OF_WEEK_BASED_YEAR);
            case MONTH -> t.getMonthValue();
            case QUARTER -> (t.getMonthValue() - 1) / 3 + 1;
            case YEAR -> year;
            case DECADE -> Math.floorDiv(t.getYear(), 10);
            case CENTURY -> year > 0 ? (year + 99) / 100 : -((99 - (year + 1)) / 100);
            case MILLENNIUM -> year > 0 ? (year + 999) / 1000 : -((999 - (year + 1)) / 1000);
            case DOW -> t.getDayOfWeek().getValue() % 7;
            case ISODOW -> t.getDayOfWeek().getValue();
            case DOY -> t.getDayOfYear();
            case ISOYEAR -> t.get(IsoFields.WEEK_BASED_YEAR);
            default -> throw unsupported(f, typeName);
        };
        return BigDecimal.valueOf(value);
    }

    /**
     * {@code EXTRACT(field FROM interval)} of a day-time interval's microseconds. {@code withDays}: the interval's
     * type has a day field, so whole days are its days and the rest its time (Postgres' {@code 1 day 01:00:00});
     * without, all of it is time ({@code INTERVAL '25' HOUR} is {@code 25:00:00}).
     */
    static BigDecimal ofInterval(Field f, long micros, boolean withDays) {
        long days = withDays ? micros / MICROS_PER_DAY : 0;
        long time = withDays ? micros % MICROS_PER_DAY : micros;
        return switch (f) {
            case MICROSECOND -> BigDecimal.valueOf(time % MICROS_PER_MINUTE);
            case MILLISECOND -> BigDecimal.valueOf(time % MICROS_PER_MINUTE, 3);
            case SECOND -> BigDecimal.valueOf(time % MICROS_PER_MINUTE, 6);
            case MINUTE -> BigDecimal.valueOf(time / MICROS_PER_MINUTE % 60);
            case HOUR -> BigDecimal.valueOf(time / MICROS_PER_HOUR);
            case DAY -> BigDecimal.valueOf(days);
            case EPOCH -> BigDecimal.valueOf(micros, 6);
            case MONTH, YEAR, DECADE, CENTURY, MILLENNIUM -> BigDecimal.ZERO;
            case QUARTER -> BigDecimal.ONE;
            default -> throw unsupported(f, "interval");
        };
    }

    /** {@code EXTRACT(field FROM interval)} of a year-month interval's months. */
    static BigDecimal ofMonths(Field f, int months) {
        int years = months / 12;
        return switch (f) {
            case MICROSECOND, MINUTE, HOUR, DAY -> BigDecimal.ZERO;
            case MILLISECOND -> BigDecimal.valueOf(0, 3);
            case SECOND -> BigDecimal.valueOf(0, 6);
            case MONTH -> BigDecimal.valueOf(months % 12);
            case QUARTER -> BigDecimal.valueOf((months % 12) / 3 + 1);
            case YEAR -> BigDecimal.valueOf(years);
            case DECADE -> BigDecimal.valueOf(years / 10);
            case CENTURY -> BigDecimal.valueOf(years / 100);
            case MILLENNIUM -> BigDecimal.valueOf(years / 1000);
            // Postgres' year of 365.25 days and month of 30
            case EPOCH -> BigDecimal.valueOf(years * 36525L * SECONDS_PER_DAY / 100
                    + (months % 12) * 30L * SECONDS_PER_DAY).setScale(6);
            default -> throw unsupported(f, "interval");
        };
    }

    /** {@code date_trunc(field, timestamp)}: the timestamp's microseconds, down to the start of its field. */
    static long truncate(Field f, long micros) {
        if (f == Field.MICROSECOND) {
            return micros;
        }
        if (f == Field.MILLISECOND) {
            return Math.floorDiv(micros, 1000L) * 1000L;
        }
        LocalDateTime t = EngineTimestamps.toLocal(micros);
        LocalDateTime day = t.toLocalDate().atStartOfDay();
        LocalDateTime truncated = switch (f) {
            case SECOND -> t.withNano(0);
            case MINUTE -> t.withSecond(0).withNano(0);
            case HOUR -> t.withMinute(0).withSecond(0).withNano(0);
            case DAY -> day;
            case WEEK -> day.minusDays(t.getDayOfWeek().getValue() - 1);
            case MONTH -> day.withDayOfMonth(1);
            case QUARTER -> day.withDayOfMonth(1).withMonth((t.getMonthValue() - 1) / 3 * 3 + 1);
            case YEAR -> day.withDayOfYear(1);
            case DECADE -> day.withDayOfYear(1).withYear(Math.floorDiv(t.getYear(), 10) * 10);
            case CENTURY -> day.withDayOfYear(1).withYear(Math.floorDiv(t.getYear() - 1, 100) * 100 + 1);
            case MILLENNIUM -> day.withDayOfYear(1).withYear(Math.floorDiv(t.getYear() - 1, 1000) * 1000 + 1);
            default -> throw new CoilgunException(SqlState.FEATURE_NOT_SUPPORTED, "unit \""
                    + f.name().toLowerCase(Locale.ROOT) + "\" not supported for type timestamp without time zone", 0);
        };
        return EngineTimestamps.fromLocal(truncated);
    }
}
