package io.coilgun.pgwire.types;

import io.coilgun.pgwire.spi.PgType;
import io.coilgun.pgwire.spi.QueryResult;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.Period;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.List;

/**
 * Text format (format code 0) of Java values, as Postgres prints them with the session settings pgwire
 * reports at startup: DateStyle {@code ISO, MDY}, TimeZone {@code UTC}, IntervalStyle {@code postgres},
 * {@code extra_float_digits} 1 and {@code bytea_output} hex.
 *
 * <p>Entry point: {@link #encode(PgType, Object)}. The Java types per {@link PgType} are those listed on
 * {@link QueryResult}; a few close relatives are accepted too (any {@link Number}
 * for numeric types, {@link Instant}/{@link ZonedDateTime} for timestamptz, {@link Duration}, {@link Period} and
 * any {@link java.time.temporal.TemporalAmount} of months, days and time for interval, as
 * {@link PgInterval#of(Object)} reads them). Anything else throws {@link IllegalArgumentException}.
 */
public final class PgTextEncoder {
    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private PgTextEncoder() {
    }

    /** The value's text, or {@code null} for SQL NULL (sent as length -1). */
    public static String encode(PgType type, Object value) {
        if (value == null) {
            return null;
        }
        switch (type) {
            case BOOL:
                if (value instanceof Boolean) {
                    return (Boolean) value ? "t" : "f";
                }
                break;
            case INT2:
            case INT4:
            case INT8:
                if (value instanceof Long || value instanceof Integer || value instanceof Short
                        || value instanceof Byte || value instanceof BigInteger) {
                    return value.toString();
                }
                break;
            case FLOAT4:
                if (value instanceof Number) {
                    return PgFloatText.float4(((Number) value).floatValue());
                }
                break;
            case FLOAT8:
                if (value instanceof Float) {
                    return PgFloatText.float4((Float) value); // widening would print the binary noise
                }
                if (value instanceof Number) {
                    return PgFloatText.float8(((Number) value).doubleValue());
                }
                break;
            case NUMERIC:
                return numeric(value);
            case TEXT:
            case VARCHAR:
                return value.toString();
            case BYTEA:
                if (value instanceof byte[]) {
                    return bytea((byte[]) value);
                }
                break;
            case TEXT_ARRAY:
                if (value instanceof List<?> list) {
                    return textArray(list);
                }
                break;
            case DATE:
                if (value instanceof LocalDate) {
                    return PgDateTimeText.date((LocalDate) value);
                }
                break;
            case TIMESTAMP:
                if (value instanceof LocalDateTime) {
                    return PgDateTimeText.timestamp((LocalDateTime) value);
                }
                if (value instanceof Long micros) {
                    TextBuffer out = new TextBuffer(32);
                    PgDateTimeText.timestamp(micros, out);
                    return out.string(0);
                }
                break;
            case TIMESTAMPTZ:
                Instant instant = instant(value);
                if (instant != null) {
                    return PgDateTimeText.timestampUtc(instant);
                }
                break;
            case INTERVAL:
                if (value instanceof Duration) {
                    return PgDateTimeText.interval((Duration) value);
                }
                if (value instanceof Period) {
                    return PgDateTimeText.interval((Period) value);
                }
                PgInterval interval = PgInterval.of(value); // PgInterval or another TemporalAmount
                if (interval != null) {
                    return interval.toPostgresString();
                }
                break;
            default:
                break;
        }
        throw new IllegalArgumentException(
                "cannot encode a " + value.getClass().getName() + " as " + type.name().toLowerCase());
    }

    /**
     * {@link #encode(PgType, Object)} written into {@code out} as UTF-8 (nothing for SQL NULL): integers, doubles,
     * strings and timestamps with no String in between, the other types through their text.
     */
    public static void encode(PgType type, Object value, TextBuffer out) {
        if (value == null) {
            return;
        }
        switch (type) {
            case INT2, INT4, INT8 -> {
                if (value instanceof Long || value instanceof Integer || value instanceof Short) {
                    out.decimal(((Number) value).longValue());
                    return;
                }
            }
            case FLOAT8 -> {
                if (value instanceof Double d) {
                    PgFloatText.float8(d, out);
                    return;
                }
            }
            case TEXT, VARCHAR -> {
                if (value instanceof CharSequence text) {
                    out.utf8(text);
                    return;
                }
            }
            case TIMESTAMP -> {
                if (value instanceof LocalDateTime t) {
                    PgDateTimeText.timestamp(t, out);
                    return;
                }
                if (value instanceof Long micros) {
                    PgDateTimeText.timestamp(micros, out);
                    return;
                }
            }
            default -> {
            }
        }
        out.utf8(encode(type, value));
    }

    /**
     * A one-dimensional array as Postgres prints it: {@code {a,"b c",NULL}}; an element is quoted when it is empty,
     * is the word NULL, or holds a brace, comma, quote, backslash or white space.
     */
    static String textArray(List<?> values) {
        StringBuilder b = new StringBuilder("{");
        for (int i = 0; i < values.size(); i++) {
            Object v = values.get(i);
            b.append(i == 0 ? "" : ",");
            if (v == null) {
                b.append("NULL");
                continue;
            }
            String e = v.toString();
            boolean quote = e.isEmpty() || e.equalsIgnoreCase("NULL");
            for (int k = 0; k < e.length() && !quote; k++) {
                char c = e.charAt(k);
                quote = c == '{' || c == '}' || c == ',' || c == '"' || c == '\\' || Character.isWhitespace(c);
            }
            if (!quote) {
                b.append(e);
                continue;
            }
            b.append('"');
            for (int k = 0; k < e.length(); k++) {
                char c = e.charAt(k);
                b.append(c == '"' || c == '\\' ? "\\" + c : String.valueOf(c));
            }
            b.append('"');
        }
        return b.append('}').toString();
    }

    /** {@link #encode} as UTF-8 bytes, or {@code null} for SQL NULL. */
    public static byte[] encodeUtf8(PgType type, Object value) {
        String text = encode(type, value);
        return text == null ? null : text.getBytes(StandardCharsets.UTF_8);
    }

    private static String numeric(Object value) {
        if (value instanceof BigDecimal) {
            return ((BigDecimal) value).toPlainString();
        }
        if (value instanceof Double || value instanceof Float) {
            double d = ((Number) value).doubleValue();
            if (Double.isNaN(d)) {
                return "NaN";
            }
            if (Double.isInfinite(d)) {
                return d > 0 ? "Infinity" : "-Infinity";
            }
            return new BigDecimal(value.toString()).toPlainString();
        }
        if (value instanceof Number) {
            return value.toString();
        }
        throw new IllegalArgumentException("cannot encode a " + value.getClass().getName() + " as numeric");
    }

    private static String bytea(byte[] bytes) {
        StringBuilder out = new StringBuilder(2 + bytes.length * 2).append("\\x");
        for (byte b : bytes) {
            out.append(HEX[(b >> 4) & 0xF]).append(HEX[b & 0xF]);
        }
        return out.toString();
    }

    private static Instant instant(Object value) {
        if (value instanceof OffsetDateTime) {
            return ((OffsetDateTime) value).toInstant();
        }
        if (value instanceof Instant) {
            return (Instant) value;
        }
        if (value instanceof ZonedDateTime) {
            return ((ZonedDateTime) value).toInstant();
        }
        if (value instanceof LocalDateTime) {
            return ((LocalDateTime) value).toInstant(ZoneOffset.UTC);
        }
        return null;
    }
}
