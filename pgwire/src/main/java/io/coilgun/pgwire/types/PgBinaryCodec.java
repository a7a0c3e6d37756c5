package io.coilgun.pgwire.types;

import io.coilgun.pgwire.spi.QueryResult;
import io.coilgun.pgwire.spi.SqlStates;
import io.coilgun.pgwire.spi.PgType;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.Arrays;
import java.util.List;

/**
 * Binary format (format code 1) of Java values, as Postgres' {@code *send}/{@code *recv} functions lay them
 * out: big-endian integers, IEEE floats, UTF-8 text, raw bytea, and for dates and times counts since
 * 2000-01-01 (days for date, microseconds for timestamp and timestamptz, whose value is UTC).
 *
 * <p>{@link #encode} accepts the Java types {@link PgTextEncoder} accepts for the same {@link PgType}, plus
 * {@link PgInterval}; {@link #decode} returns the types listed on {@link QueryResult},
 * plus {@link PgInterval} for interval. Infinite dates and timestamps map to {@code MAX}/{@code MIN} of the
 * java.time type ({@link LocalDate#MAX}, {@link LocalDateTime#MIN}, {@code LocalDateTime.MAX} at UTC for
 * timestamptz).
 *
 * <p>Numeric is Postgres' own layout, written and read by {@link PgNumericBinary}.
 */
public final class PgBinaryCodec {
    /** Days from 1970-01-01 (Java's epoch) to 2000-01-01 (Postgres'). */
    static final long PG_EPOCH_DAY = 10_957;
    static final long MICROS_PER_SECOND = 1_000_000;
    static final long MICROS_PER_DAY = 86_400 * MICROS_PER_SECOND;
    /** Valid dates, in days since 2000-01-01: 4714-11-24 BC (Julian day 0) up to, excluding, 5874898-01-01. */
    static final long MIN_DATE = -2_451_545;
    static final long END_DATE = 2_145_031_949;
    /** Valid timestamps, in microseconds since 2000-01-01: 4714-11-24 BC 00:00 up to, excluding, 294277-01-01. */
    static final long MIN_TIMESTAMP = MIN_DATE * MICROS_PER_DAY;
    static final long END_TIMESTAMP = 9_223_371_331_200_000_000L;
    /** Java values standing for Postgres' {@code infinity} and {@code -infinity} of timestamptz. */
    static final OffsetDateTime TIMESTAMPTZ_INFINITY = LocalDateTime.MAX.atOffset(ZoneOffset.UTC);
    static final OffsetDateTime TIMESTAMPTZ_NEGATIVE_INFINITY = LocalDateTime.MIN.atOffset(ZoneOffset.UTC);

    private PgBinaryCodec() {
    }

    /** The value's binary format, or {@code null} for SQL NULL (sent as length -1). */
    public static byte[] encode(PgType type, Object value) {
        if (value == null) {
            return null;
        }
        switch (type) {
            case BOOL:
                if (value instanceof Boolean) {
                    return new byte[] {(byte) ((Boolean) value ? 1 : 0)};
                }
                break;
            case INT2:
                if (isInteger(value)) {
                    return ByteBuffer.allocate(2).putShort((short) integer(value, Short.MIN_VALUE, Short.MAX_VALUE,
                            "smallint")).array();
                }
                break;
            case INT4:
                if (isInteger(value)) {
                    return ByteBuffer.allocate(4).putInt((int) integer(value, Integer.MIN_VALUE, Integer.MAX_VALUE,
                            "integer")).array();
                }
                break;
            case INT8:
                if (isInteger(value)) {
                    return ByteBuffer.allocate(8).putLong(integer(value, Long.MIN_VALUE, Long.MAX_VALUE,
                            "bigint")).array();
                }
                break;
            case FLOAT4:
                if (value instanceof Number) {
                    return ByteBuffer.allocate(4).putFloat(((Number) value).floatValue()).array();
                }
                break;
            case FLOAT8:
                if (value instanceof Number) {
                    return ByteBuffer.allocate(8).putDouble(((Number) value).doubleValue()).array();
                }
                break;
            case NUMERIC:
                if (value instanceof Number) {
                    return PgNumericBinary.encode((Number) value);
                }
                break;
            case TEXT:
            case VARCHAR:
                return value.toString().getBytes(StandardCharsets.UTF_8);
            case TEXT_ARRAY:
                if (value instanceof List<?> list) {
                    return textArray(list);
                }
                break;
            case BYTEA:
                if (value instanceof byte[]) {
                    return ((byte[]) value).clone();
                }
                break;
            case DATE:
                if (value instanceof LocalDate) {
                    return ByteBuffer.allocate(4).putInt(date((LocalDate) value)).array();
                }
                break;
            case TIMESTAMP:
                if (value instanceof LocalDateTime) {
                    return ByteBuffer.allocate(8).putLong(timestamp((LocalDateTime) value)).array();
                }
                if (value instanceof Long micros) { // since 1970-01-01 00:00
                    long pg = micros - PG_EPOCH_DAY * MICROS_PER_DAY;
                    if (micros < Long.MIN_VALUE + PG_EPOCH_DAY * MICROS_PER_DAY || pg < MIN_TIMESTAMP
                            || pg >= END_TIMESTAMP) {
                        throw new IllegalArgumentException("timestamp out of range: " + micros + " us");
                    }
                    return ByteBuffer.allocate(8).putLong(pg).array();
                }
                break;
            case TIMESTAMPTZ:
                Long micros = timestamptz(value);
                if (micros != null) {
                    return ByteBuffer.allocate(8).putLong(micros).array();
                }
                break;
            case INTERVAL:
                PgInterval interval = interval(value);
                if (interval != null) {
                    return ByteBuffer.allocate(16).putLong(interval.micros()).putInt(interval.days())
                            .putInt(interval.months()).array();
                }
                break;
            default:
                break;
        }
        throw new IllegalArgumentException(
                "cannot encode a " + value.getClass().getName() + " as " + type.name().toLowerCase());
    }

    /** {@link #decode(PgType, byte[], int, int)} of the whole array; {@code null} stays {@code null}. */
    public static Object decode(PgType type, byte[] bytes) {
        return bytes == null ? null : decode(type, bytes, 0, bytes.length);
    }

    /**
     * The Java value of {@code length} bytes of binary format at {@code offset}.
     *
     * @throws PgInputException with SQLSTATE 22P03 when the bytes are not the type's binary format (wrong
     *     length, bad numeric header), 22008 for dates and timestamps outside Postgres' range, 22021 for text
     *     that is not UTF-8 and 0A000 for numeric NaN and ±Infinity, which {@link BigDecimal} cannot hold
     */
    public static Object decode(PgType type, byte[] bytes, int offset, int length) {
        ByteBuffer in = ByteBuffer.wrap(bytes, offset, length);
        switch (type) {
            case BOOL:
                checkLength(type, length, 1);
                return in.get() != 0; // boolrecv: any non-zero byte is true
            case INT2:
                checkLength(type, length, 2);
                return in.getShort();
            case INT4:
                checkLength(type, length, 4);
                return in.getInt();
            case INT8:
                checkLength(type, length, 8);
                return in.getLong();
            case FLOAT4:
                checkLength(type, length, 4);
                return in.getFloat();
            case FLOAT8:
                checkLength(type, length, 8);
                return in.getDouble();
            case NUMERIC:
                return PgNumericBinary.decode(in);
            case TEXT:
            case VARCHAR:
                return utf8(bytes, offset, length);
            case BYTEA:
                return Arrays.copyOfRange(bytes, offset, offset + length);
            case DATE:
                checkLength(type, length, 4);
                return date(in.getInt());
            case TIMESTAMP:
                checkLength(type, length, 8);
                return timestamp(in.getLong());
            case TIMESTAMPTZ:
                checkLength(type, length, 8);
                LocalDateTime utc = timestamp(in.getLong());
                return utc.atOffset(ZoneOffset.UTC);
            case INTERVAL:
                checkLength(type, length, 16);
                long micros = in.getLong();
                int days = in.getInt();
                return new PgInterval(in.getInt(), days, micros);
            default:
                throw new IllegalArgumentException("no binary format for type " + type.name().toLowerCase());
        }
    }

    /**
     * A one-dimensional {@code text[]} in array_send's layout: dimensions, has-nulls flag, element type, then per
     * dimension its length and lower bound (1), then each element as length and bytes (-1 for NULL).
     */
    private static byte[] textArray(List<?> values) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        DataOutputStream data = new DataOutputStream(out);
        try {
            data.writeInt(values.isEmpty() ? 0 : 1);
            data.writeInt(values.contains(null) ? 1 : 0);
            data.writeInt(PgType.TEXT.oid());
            if (!values.isEmpty()) {
                data.writeInt(values.size());
                data.writeInt(1);
            }
            for (Object v : values) {
                if (v == null) {
                    data.writeInt(-1);
                } else {
                    byte[] e = v.toString().getBytes(StandardCharsets.UTF_8);
                    data.writeInt(e.length);
                    data.write(e);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e); // not from a byte array
        }
        return out.toByteArray();
    }

    /** The text of UTF-8 bytes; malformed UTF-8 and NUL are refused as Postgres refuses them. */
    static String utf8(byte[] bytes, int offset, int length) {
        for (int i = offset; i < offset + length; i++) {
            if (bytes[i] == 0) {
                throw invalidUtf8("0x00");
            }
        }
        try {
            return StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes, offset, length))
                    .toString();
        } catch (CharacterCodingException e) {
            throw invalidUtf8(e.getMessage());
        }
    }

    private static PgInputException invalidUtf8(String detail) {
        return new PgInputException(SqlStates.CHARACTER_NOT_IN_REPERTOIRE,
                "invalid byte sequence for encoding \"UTF8\": " + detail);
    }

    private static void checkLength(PgType type, int length, int expected) {
        if (length != expected) {
            throw binaryError(type.name().toLowerCase() + " needs " + expected + " bytes, got " + length);
        }
    }

    /** 22P03: bytes that are not the type's binary format. */
    static PgInputException binaryError(String message) {
        return new PgInputException(SqlStates.INVALID_BINARY_REPRESENTATION, message);
    }

    // ---- integers

    private static boolean isInteger(Object value) {
        return value instanceof Long || value instanceof Integer || value instanceof Short
                || value instanceof Byte || value instanceof BigInteger;
    }

    private static long integer(Object value, long min, long max, String typeName) {
        if (value instanceof BigInteger) {
            BigInteger big = (BigInteger) value;
            if (big.bitLength() < Long.SIZE && big.longValue() >= min && big.longValue() <= max) {
                return big.longValue();
            }
        } else {
            long v = ((Number) value).longValue();
            if (v >= min && v <= max) {
                return v;
            }
        }
        throw new IllegalArgumentException("value " + value + " is out of range for type " + typeName);
    }

    // ---- dates and times

    private static int date(LocalDate date) {
        if (date.equals(LocalDate.MAX)) {
            return Integer.MAX_VALUE;
        }
        if (date.equals(LocalDate.MIN)) {
            return Integer.MIN_VALUE;
        }
        long days = date.toEpochDay() - PG_EPOCH_DAY;
        if (days < MIN_DATE || days >= END_DATE) {
            throw new IllegalArgumentException("date out of range: " + date);
        }
        return (int) days;
    }

    /** The date {@code days} after 2000-01-01; ±infinity as MAX/MIN; 22008 outside the range. */
    static LocalDate date(int days) {
        if (days == Integer.MAX_VALUE) {
            return LocalDate.MAX;
        }
        if (days == Integer.MIN_VALUE) {
            return LocalDate.MIN;
        }
        if (days < MIN_DATE || days >= END_DATE) {
            throw new PgInputException(SqlStates.DATETIME_FIELD_OVERFLOW, "date out of range");
        }
        return LocalDate.ofEpochDay(days + PG_EPOCH_DAY);
    }

    /** Microseconds since 2000-01-01 00:00 (sub-microseconds truncated), or ±infinity for MAX/MIN. */
    static long timestamp(LocalDateTime timestamp) {
        if (timestamp.equals(LocalDateTime.MAX)) {
            return Long.MAX_VALUE;
        }
        if (timestamp.equals(LocalDateTime.MIN)) {
            return Long.MIN_VALUE;
        }
        long days = timestamp.toLocalDate().toEpochDay() - PG_EPOCH_DAY;
        if (days >= MIN_DATE && days < END_TIMESTAMP / MICROS_PER_DAY + 1) {
            long micros = days * MICROS_PER_DAY + timestamp.toLocalTime().toNanoOfDay() / 1000;
            if (micros >= MIN_TIMESTAMP && micros < END_TIMESTAMP) {
                return micros;
            }
        }
        throw new IllegalArgumentException("timestamp out of range: " + timestamp);
    }

    /** The timestamp {@code micros} after 2000-01-01 00:00; ±infinity as MAX/MIN; 22008 outside the range. */
    static LocalDateTime timestamp(long micros) {
        if (micros == Long.MAX_VALUE) {
            return LocalDateTime.MAX;
        }
        if (micros == Long.MIN_VALUE) {
            return LocalDateTime.MIN;
        }
        if (micros < MIN_TIMESTAMP || micros >= END_TIMESTAMP) {
            throw new PgInputException(SqlStates.DATETIME_FIELD_OVERFLOW, "timestamp out of range");
        }
        return LocalDateTime.ofEpochSecond(Math.floorDiv(micros, MICROS_PER_SECOND) + PG_EPOCH_DAY * 86_400,
                (int) Math.floorMod(micros, MICROS_PER_SECOND) * 1000, ZoneOffset.UTC);
    }

    /** timestamptz microseconds of the types {@link PgTextEncoder} takes for it, or null for another type. */
    private static Long timestamptz(Object value) {
        LocalDateTime utc;
        if (value instanceof OffsetDateTime || value instanceof ZonedDateTime) {
            OffsetDateTime odt = value instanceof OffsetDateTime ? (OffsetDateTime) value
                    : ((ZonedDateTime) value).toOffsetDateTime();
            LocalDateTime local = odt.toLocalDateTime();
            if (local.equals(LocalDateTime.MAX) || local.equals(LocalDateTime.MIN)) {
                return timestamp(local); // OffsetDateTime.MAX/MIN or TIMESTAMPTZ_(NEGATIVE_)INFINITY
            }
            utc = odt.withOffsetSameInstant(ZoneOffset.UTC).toLocalDateTime();
        } else if (value instanceof Instant) {
            Instant instant = (Instant) value;
            if (instant.equals(Instant.MAX) || instant.equals(Instant.MIN)) {
                return instant.equals(Instant.MAX) ? Long.MAX_VALUE : Long.MIN_VALUE;
            }
            utc = LocalDateTime.ofInstant(instant, ZoneOffset.UTC);
        } else if (value instanceof LocalDateTime) {
            utc = (LocalDateTime) value; // taken as UTC, the session time zone
        } else {
            return null;
        }
        return timestamp(utc);
    }

    private static PgInterval interval(Object value) {
        return PgInterval.of(value);
    }
}
