package io.coilgun.sql.parser;

import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoField;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A timestamp's text as Postgres reads a {@code timestamp} (without time zone): a date, then optionally a time
 * after a space or a {@code T}, with a fraction of up to 9 digits; a zone at the end is ignored, as Postgres does
 * ({@code '2026-11-24T19:30:05.123456+01'::timestamp} is 19:30:05.123456). What drivers send: psycopg2 writes a
 * {@code datetime} as {@code '2026-11-24T19:30:05.123456'::timestamp}, node-postgres a {@code Date} with an offset.
 */
public final class TimestampText {
    /** Date, optional time (T or space), optional fraction; no zone. */
    public static final DateTimeFormatter FORMAT = new DateTimeFormatterBuilder()
            .appendPattern("uuuu-MM-dd")
            .optionalStart()
            .appendLiteral(' ').optionalEnd()
            .optionalStart().appendLiteral('T').optionalEnd()
            .optionalStart()
            .appendPattern("HH:mm")
            .optionalStart().appendPattern(":ss").optionalEnd()
            .optionalStart().appendFraction(ChronoField.NANO_OF_SECOND, 1, 9, true).optionalEnd()
            .optionalEnd()
            .parseDefaulting(ChronoField.HOUR_OF_DAY, 0)
            .parseDefaulting(ChronoField.MINUTE_OF_HOUR, 0)
            .parseDefaulting(ChronoField.SECOND_OF_MINUTE, 0)
            .toFormatter(Locale.ROOT);
    private static final Pattern TRAILING_ZONE = Pattern.compile("\\s*(Z|[+-]\\d{1,2}(:?\\d{2}(:?\\d{2})?)?)$");

    private TimestampText() {
    }

    /**
     * @throws DateTimeParseException when the text is not a timestamp
     * @throws java.time.DateTimeException when a field is out of range
     */
    public static LocalDateTime parse(String text) {
        String t = text.trim();
        Matcher zone = TRAILING_ZONE.matcher(t);
        if (t.length() > 10 && zone.find() && zone.start() > 10) {
            t = t.substring(0, zone.start());
        }
        return LocalDateTime.parse(t, FORMAT);
    }

    /** {@code 2026-11-24 19:30:05[.123456]}: the form Calcite's casts read. */
    public static String canonical(LocalDateTime t) {
        String s = String.format(Locale.ROOT, "%s %02d:%02d:%02d", t.toLocalDate(), t.getHour(), t.getMinute(),
                t.getSecond());
        return t.getNano() == 0 ? s : s + "." + String.format(Locale.ROOT, "%09d", t.getNano()).replaceAll("0+$", "");
    }
}
