package io.coilgun.pgwire.types;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.Period;
import java.time.ZoneOffset;

/**
 * Date/time output as Postgres prints it with DateStyle {@code ISO}, TimeZone {@code UTC} and IntervalStyle
 * {@code postgres}: {@code 2026-01-01 10:00:00.5}, {@code 2026-01-01 10:00:00+00}, {@code 1 day 02:00:00}.
 * Fractions are microseconds (nanoseconds are truncated), printed without trailing zeros; years before
 * 1 AD get the {@code BC} suffix.
 */
final class PgDateTimeText {
    private static final long SECONDS_PER_DAY = 86_400;
    private static final long MICROS_PER_DAY = SECONDS_PER_DAY * 1_000_000;
    /** 0001-01-01 and 9999-12-31 as days since 1970-01-01: the years with four digits and no era. */
    private static final long FIRST_FAST_DAY = LocalDate.of(1, 1, 1).toEpochDay();
    private static final long LAST_FAST_DAY = LocalDate.of(9999, 12, 31).toEpochDay();

    private PgDateTimeText() {
    }

    static String date(LocalDate date) {
        TextBuffer out = new TextBuffer(16);
        appendDate(out, date);
        return appendEra(out, date.getYear()).string(0);
    }

    static String timestamp(LocalDateTime timestamp) {
        TextBuffer out = new TextBuffer(32);
        timestamp(timestamp, out);
        return out.string(0);
    }

    /** {@link #timestamp(LocalDateTime)} written into {@code out}. */
    static void timestamp(LocalDateTime timestamp, TextBuffer out) {
        appendDate(out, timestamp.toLocalDate());
        out.put((byte) ' ');
        appendTime(out, timestamp.getHour(), timestamp.getMinute(), timestamp.getSecond(), timestamp.getNano());
        appendEra(out, timestamp.getYear());
    }

    /** A timestamp given as microseconds since 1970-01-01 00:00, written into {@code out}. */
    static void timestamp(long micros, TextBuffer out) {
        long days = Math.floorDiv(micros, MICROS_PER_DAY);
        long microOfDay = Math.floorMod(micros, MICROS_PER_DAY);
        if (days < FIRST_FAST_DAY || days > LAST_FAST_DAY) {
            timestamp(LocalDateTime.ofEpochSecond(Math.floorDiv(micros, 1_000_000L),
                    (int) Math.floorMod(micros, 1_000_000L) * 1000, ZoneOffset.UTC), out);
            return;
        }
        // the civil date of a day number (H. Hinnant, "chrono-compatible low-level date algorithms"), years 1-9999
        long z = days + 719_468;
        long era = Math.floorDiv(z, 146_097);
        long dayOfEra = z - era * 146_097;
        long yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365;
        long dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100);
        long mp = (5 * dayOfYear + 2) / 153;
        long day = dayOfYear - (153 * mp + 2) / 5 + 1;
        long month = mp < 10 ? mp + 3 : mp - 9;
        long year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
        pad(out, year, 4);
        out.put((byte) '-');
        pad(out, month, 2);
        out.put((byte) '-');
        pad(out, day, 2);
        out.put((byte) ' ');
        long seconds = microOfDay / 1_000_000;
        appendTime(out, seconds / 3600, (seconds / 60) % 60, seconds % 60, (int) (microOfDay % 1_000_000) * 1000);
    }

    static String timestampUtc(Instant instant) {
        LocalDateTime utc = LocalDateTime.ofInstant(instant, ZoneOffset.UTC);
        TextBuffer out = new TextBuffer(32);
        appendDate(out, utc.toLocalDate());
        out.put((byte) ' ');
        appendTime(out, utc.getHour(), utc.getMinute(), utc.getSecond(), utc.getNano());
        out.utf8("+00");
        return appendEra(out, utc.getYear()).string(0);
    }

    /** A duration as days and a time of day, e.g. {@code 7 days}, {@code -1 days -02:00:00}, {@code 00:00:01.5}. */
    static String interval(Duration duration) {
        long seconds = duration.getSeconds();
        int nanos = duration.getNano();
        boolean negative = duration.isNegative();
        if (negative && nanos > 0) { // getSeconds() is floored; make both parts carry the sign
            seconds += 1;
            nanos = 1_000_000_000 - nanos;
        }
        long days = seconds / SECONDS_PER_DAY;
        long rest = Math.abs(seconds % SECONDS_PER_DAY);
        TextBuffer out = new TextBuffer(24);
        if (days != 0) {
            out.decimal(days).utf8(days == 1 ? " day" : " days");
        }
        if (rest != 0 || nanos != 0 || days == 0) {
            if (days != 0) {
                out.put((byte) ' ');
            }
            if (negative) {
                out.put((byte) '-');
            }
            appendTime(out, rest / 3600, (rest / 60) % 60, rest % 60, nanos);
        }
        return out.string(0);
    }

    /** A period as years, months and days, e.g. {@code 1 year 2 mons 3 days}; zero is {@code 00:00:00}. */
    static String interval(Period period) {
        TextBuffer out = new TextBuffer(24);
        appendUnit(out, period.getYears(), "year", "years");
        appendUnit(out, period.getMonths(), "mon", "mons");
        appendUnit(out, period.getDays(), "day", "days");
        return out.length() == 0 ? "00:00:00" : out.string(0);
    }

    private static void appendUnit(TextBuffer out, long amount, String singular, String plural) {
        if (amount != 0) {
            if (out.length() > 0) {
                out.put((byte) ' ');
            }
            out.decimal(amount).put((byte) ' ').utf8(amount == 1 ? singular : plural);
        }
    }

    private static void appendDate(TextBuffer out, LocalDate date) {
        int year = date.getYear();
        pad(out, year > 0 ? year : 1 - year, 4);
        out.put((byte) '-');
        pad(out, date.getMonthValue(), 2);
        out.put((byte) '-');
        pad(out, date.getDayOfMonth(), 2);
    }

    private static void appendTime(TextBuffer out, long hours, long minutes, long seconds, int nanos) {
        pad(out, hours, 2);
        out.put((byte) ':');
        pad(out, minutes, 2);
        out.put((byte) ':');
        pad(out, seconds, 2);
        int micros = nanos / 1000;
        if (micros != 0) {
            int length = out.length();
            out.put((byte) '.');
            pad(out, micros, 6);
            int end = out.length();
            while (out.array()[end - 1] == '0') {
                end--;
            }
            out.truncate(Math.max(end, length + 2));
        }
    }

    private static TextBuffer appendEra(TextBuffer out, int year) {
        return year > 0 ? out : out.utf8(" BC");
    }

    /** {@code value} (not negative) with zeros in front to {@code width} digits. */
    private static void pad(TextBuffer out, long value, int width) {
        for (long limit = 10, i = 1; i < width; i++, limit *= 10) {
            if (value < limit) {
                out.put((byte) '0');
            }
        }
        out.decimal(value);
    }
}
