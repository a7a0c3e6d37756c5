package io.coilgun.pgwire.types;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.coilgun.pgwire.spi.PgType;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.Period;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.time.temporal.Temporal;
import java.time.temporal.TemporalAmount;
import java.time.temporal.TemporalUnit;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.postgresql.util.ByteConverter;

class PgBinaryCodecTest {

    private static Object roundTrip(PgType type, Object value) {
        byte[] bytes = PgBinaryCodec.encode(type, value);
        if (type.size() > 0) {
            assertEquals(type.size(), bytes.length, type + " size");
        }
        return PgBinaryCodec.decode(type, bytes);
    }

    private static String hex(byte[] bytes) {
        return HexFormat.of().formatHex(bytes);
    }

    @Test
    void nullStaysNull() {
        assertNull(PgBinaryCodec.encode(PgType.INT4, null));
        assertNull(PgBinaryCodec.decode(PgType.INT4, null));
    }

    @Test
    void booleans() {
        assertEquals("01", hex(PgBinaryCodec.encode(PgType.BOOL, true)));
        assertEquals("00", hex(PgBinaryCodec.encode(PgType.BOOL, false)));
        assertEquals(true, PgBinaryCodec.decode(PgType.BOOL, new byte[] {7})); // boolrecv: non-zero is true
        assertEquals(false, roundTrip(PgType.BOOL, false));
    }

    @Test
    void integers() {
        for (short v : new short[] {Short.MIN_VALUE, -1, 0, 1, Short.MAX_VALUE}) {
            assertEquals(v, roundTrip(PgType.INT2, v));
        }
        for (int v : new int[] {Integer.MIN_VALUE, -1, 0, 1, Integer.MAX_VALUE}) {
            assertEquals(v, roundTrip(PgType.INT4, v));
        }
        for (long v : new long[] {Long.MIN_VALUE, -1, 0, 1, Long.MAX_VALUE}) {
            assertEquals(v, roundTrip(PgType.INT8, v));
        }
        assertEquals("fffffffe", hex(PgBinaryCodec.encode(PgType.INT4, -2)));
        assertEquals("0102", hex(PgBinaryCodec.encode(PgType.INT2, 258)));
        assertEquals(7L, roundTrip(PgType.INT8, (byte) 7));
        assertEquals(5, roundTrip(PgType.INT4, 5L));
        assertEquals(Long.MAX_VALUE, roundTrip(PgType.INT8, BigInteger.valueOf(Long.MAX_VALUE)));
    }

    @Test
    void integersOutOfRangeAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> PgBinaryCodec.encode(PgType.INT4, 1L << 31));
        assertThrows(IllegalArgumentException.class, () -> PgBinaryCodec.encode(PgType.INT2, 32768));
        assertThrows(IllegalArgumentException.class, () -> PgBinaryCodec.encode(PgType.INT2, -32769));
        assertThrows(IllegalArgumentException.class,
                () -> PgBinaryCodec.encode(PgType.INT8, BigInteger.ONE.shiftLeft(63)));
        assertThrows(IllegalArgumentException.class, () -> PgBinaryCodec.encode(PgType.INT4, 1.0));
        assertThrows(IllegalArgumentException.class, () -> PgBinaryCodec.encode(PgType.INT4, "1"));
    }

    @Test
    void floats() {
        for (float v : new float[] {0f, -0f, 1.5f, Float.MIN_VALUE, Float.MAX_VALUE, Float.NaN,
                Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY}) {
            assertEquals(v, roundTrip(PgType.FLOAT4, v));
        }
        for (double v : new double[] {0, -0.0, 0.1, Double.MIN_VALUE, Double.MAX_VALUE, Double.NaN,
                Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY}) {
            assertEquals(v, roundTrip(PgType.FLOAT8, v));
        }
        assertEquals("3fc00000", hex(PgBinaryCodec.encode(PgType.FLOAT4, 1.5f)));
        assertEquals("3ff8000000000000", hex(PgBinaryCodec.encode(PgType.FLOAT8, 1.5)));
        assertEquals(2.0, roundTrip(PgType.FLOAT8, 2)); // any Number
    }

    @Test
    void numericKnownBytes() {
        // ndigits 3, weight 1, sign +, dscale 3, digits 1 2345 6780
        assertEquals("0003" + "0001" + "0000" + "0003" + "0001" + "0929" + "1a7c",
                hex(PgBinaryCodec.encode(PgType.NUMERIC, new BigDecimal("12345.678"))));
        assertEquals("0000" + "0000" + "0000" + "0002", hex(PgBinaryCodec.encode(PgType.NUMERIC,
                new BigDecimal("-0.00"))));
        assertEquals("0001" + "0000" + "4000" + "0000" + "0001",
                hex(PgBinaryCodec.encode(PgType.NUMERIC, BigDecimal.ONE.negate())));
        assertEquals("0001" + "fff8" + "0000" + "001e" + "0064", // 100 * 10000^-8
                hex(PgBinaryCodec.encode(PgType.NUMERIC, new BigDecimal("1e-30"))));
        assertEquals("0001" + "0005" + "0000" + "0000" + "0001", // 1 * 10000^5, scale -20 sent as 0
                hex(PgBinaryCodec.encode(PgType.NUMERIC, new BigDecimal("1E+20"))));
        assertEquals("0001" + "ffff" + "0000" + "0004" + "0001",
                hex(PgBinaryCodec.encode(PgType.NUMERIC, new BigDecimal("0.0001"))));
        assertEquals("0002" + "0000" + "0000" + "0001" + "000a" + "1388", // 10.5
                hex(PgBinaryCodec.encode(PgType.NUMERIC, new BigDecimal("10.5"))));
        assertEquals("0000" + "0000" + "c000" + "0000", hex(PgBinaryCodec.encode(PgType.NUMERIC, Double.NaN)));
        assertEquals("0000" + "0000" + "d000" + "0000",
                hex(PgBinaryCodec.encode(PgType.NUMERIC, Double.POSITIVE_INFINITY)));
        assertEquals("0000" + "0000" + "f000" + "0000",
                hex(PgBinaryCodec.encode(PgType.NUMERIC, Float.NEGATIVE_INFINITY)));
    }

    @ParameterizedTest
    @ValueSource(strings = {"0", "0.00", "-0.00", "1", "-1", "12345.678", "-12345.678", "1e-30", "-1e-30",
        "123456789012345678901234567890.123", "9999", "10000", "0.9999", "0.00001", "99999999.99999999",
        "1E+20", "-7E+3", "3.14159265358979323846264338327950288419716939937510", "1e-16383", "1e+131071"})
    void numericRoundTrips(String text) {
        BigDecimal value = new BigDecimal(text);
        BigDecimal expected = value.scale() < 0 ? value.setScale(0) : value;
        assertEquals(expected, roundTrip(PgType.NUMERIC, value));
        // pgjdbc reads our bytes as the same number, and we read its bytes
        byte[] ours = PgBinaryCodec.encode(PgType.NUMERIC, value);
        assertEquals(0, expected.compareTo((BigDecimal) ByteConverter.numeric(ours)));
        assertEquals(0, expected.compareTo((BigDecimal) PgBinaryCodec.decode(PgType.NUMERIC,
                ByteConverter.numeric(value))));
    }

    @Test
    void numericRandomRoundTrips() {
        Random random = new Random(42);
        for (int i = 0; i < 5_000; i++) {
            BigInteger unscaled = new BigInteger(1 + random.nextInt(300), random);
            BigDecimal value = new BigDecimal(random.nextBoolean() ? unscaled : unscaled.negate(),
                    random.nextInt(120) - 40);
            BigDecimal expected = value.scale() < 0 ? value.setScale(0) : value;
            byte[] bytes = PgBinaryCodec.encode(PgType.NUMERIC, value);
            assertEquals(expected, PgBinaryCodec.decode(PgType.NUMERIC, bytes), value::toString);
            assertEquals(0, expected.compareTo((BigDecimal) ByteConverter.numeric(bytes)), value::toString);
        }
    }

    @Test
    void numericFromOtherNumbers() {
        assertEquals(new BigDecimal("42"), roundTrip(PgType.NUMERIC, 42));
        assertEquals(new BigDecimal("0.1"), roundTrip(PgType.NUMERIC, 0.1)); // the shortest decimal, like text
        assertEquals(new BigDecimal("123456789012345678901234567890"),
                roundTrip(PgType.NUMERIC, new BigInteger("123456789012345678901234567890")));
    }

    @Test
    void numericDecodingTruncatesToTheDisplayScaleAndChecksTheHeader() {
        // 1.5 (digits 1, 5000) with dscale 0 reads as 1, as numeric_recv truncates
        assertEquals(new BigDecimal("1"), PgBinaryCodec.decode(PgType.NUMERIC,
                HexFormat.of().parseHex("0002" + "0000" + "0000" + "0000" + "0001" + "1388")));
        assertEquals(new BigDecimal("1.50000"), PgBinaryCodec.decode(PgType.NUMERIC,
                HexFormat.of().parseHex("0002" + "0000" + "0000" + "0005" + "0001" + "1388")));
        assertSqlState("22P03", () -> PgBinaryCodec.decode(PgType.NUMERIC, HexFormat.of().parseHex("0001000000000000")));
        assertSqlState("22P03", () -> PgBinaryCodec.decode(PgType.NUMERIC, HexFormat.of().parseHex("000000001234")));
        assertSqlState("22P03", () -> PgBinaryCodec.decode(PgType.NUMERIC,
                HexFormat.of().parseHex("0001" + "0000" + "0000" + "0000" + "2710"))); // digit 10000
        assertSqlState("22P03", () -> PgBinaryCodec.decode(PgType.NUMERIC,
                HexFormat.of().parseHex("0000" + "0000" + "1234" + "0000"))); // sign
        assertSqlState("0A000", () -> PgBinaryCodec.decode(PgType.NUMERIC,
                PgBinaryCodec.encode(PgType.NUMERIC, Double.NaN)));
    }

    @Test
    void textAndBytea() {
        assertEquals("héllo ✓", roundTrip(PgType.TEXT, "héllo ✓"));
        assertEquals("68c3a9", hex(PgBinaryCodec.encode(PgType.VARCHAR, "hé")));
        assertEquals("", roundTrip(PgType.VARCHAR, ""));
        byte[] raw = {0, (byte) 0xFF, 0x10};
        assertArrayEquals(raw, PgBinaryCodec.encode(PgType.BYTEA, raw));
        assertArrayEquals(raw, (byte[]) roundTrip(PgType.BYTEA, raw));
        assertArrayEquals(new byte[] {0x10}, (byte[]) PgBinaryCodec.decode(PgType.BYTEA, raw, 2, 1));
        assertSqlState("22021", () -> PgBinaryCodec.decode(PgType.TEXT, new byte[] {(byte) 0xC3, 0x28}));
        assertSqlState("22021", () -> PgBinaryCodec.decode(PgType.TEXT, new byte[] {'a', 0}));
    }

    @Test
    void dates() {
        assertEquals("00000000", hex(PgBinaryCodec.encode(PgType.DATE, LocalDate.of(2000, 1, 1))));
        assertEquals("ffffffff", hex(PgBinaryCodec.encode(PgType.DATE, LocalDate.of(1999, 12, 31))));
        assertEquals("7fffffff", hex(PgBinaryCodec.encode(PgType.DATE, LocalDate.MAX)));
        assertEquals("80000000", hex(PgBinaryCodec.encode(PgType.DATE, LocalDate.MIN)));
        for (LocalDate date : new LocalDate[] {LocalDate.of(1970, 1, 1), LocalDate.of(1900, 2, 28),
                LocalDate.of(-4713, 11, 24), LocalDate.of(-43, 3, 15), LocalDate.of(2024, 2, 29),
                LocalDate.of(5874897, 12, 31), LocalDate.MAX, LocalDate.MIN}) {
            assertEquals(date, roundTrip(PgType.DATE, date));
        }
        assertThrows(IllegalArgumentException.class,
                () -> PgBinaryCodec.encode(PgType.DATE, LocalDate.of(-4713, 11, 23)));
        assertThrows(IllegalArgumentException.class,
                () -> PgBinaryCodec.encode(PgType.DATE, LocalDate.of(5874898, 1, 1)));
        assertSqlState("22008", () -> PgBinaryCodec.decode(PgType.DATE, HexFormat.of().parseHex("7ffffffe")));
    }

    @Test
    void timestamps() {
        assertEquals("0000000000000001", hex(PgBinaryCodec.encode(PgType.TIMESTAMP,
                LocalDateTime.of(2000, 1, 1, 0, 0, 0, 1_999)))); // sub-microseconds truncated
        assertEquals("ffffffffffffffff", hex(PgBinaryCodec.encode(PgType.TIMESTAMP,
                LocalDateTime.of(1999, 12, 31, 23, 59, 59, 999_999_000))));
        assertEquals("7fffffffffffffff", hex(PgBinaryCodec.encode(PgType.TIMESTAMP, LocalDateTime.MAX)));
        for (LocalDateTime ts : new LocalDateTime[] {LocalDateTime.of(2026, 1, 1, 10, 0, 0, 123_456_000),
                LocalDateTime.of(1969, 12, 31, 23, 59, 59, 999_999_000), LocalDateTime.of(-4713, 11, 24, 0, 0),
                LocalDateTime.of(294276, 12, 31, 23, 59, 59, 999_999_000), LocalDateTime.MAX, LocalDateTime.MIN}) {
            assertEquals(ts, roundTrip(PgType.TIMESTAMP, ts));
        }
        assertThrows(IllegalArgumentException.class,
                () -> PgBinaryCodec.encode(PgType.TIMESTAMP, LocalDateTime.of(294277, 1, 1, 0, 0)));
        assertSqlState("22008", () -> PgBinaryCodec.decode(PgType.TIMESTAMP,
                ByteBuffer.allocate(8).putLong(PgBinaryCodec.END_TIMESTAMP).array()));
        assertSqlState("22P03", () -> PgBinaryCodec.decode(PgType.TIMESTAMP, new byte[4]));
    }

    /** A timestamp as microseconds since 1970 is sent as the same LocalDateTime is; out of range, refused. */
    @Test
    void timestampMicros() {
        for (LocalDateTime ts : new LocalDateTime[] {LocalDateTime.of(2026, 1, 1, 10, 0, 0, 123_456_000),
                LocalDateTime.of(1969, 12, 31, 23, 59, 59, 999_999_000), LocalDateTime.of(2000, 1, 1, 0, 0),
                LocalDateTime.of(-4713, 11, 24, 0, 0), LocalDateTime.of(294_000, 12, 31, 23, 59, 59, 999_999_000)}) {
            long micros = ts.toEpochSecond(ZoneOffset.UTC) * 1_000_000 + ts.getNano() / 1000;
            assertEquals(hex(PgBinaryCodec.encode(PgType.TIMESTAMP, ts)), hex(PgBinaryCodec.encode(PgType.TIMESTAMP,
                    micros)));
        }
        // (a long of microseconds since 1970 ends in 294247, before Postgres' last timestamp)
        for (long micros : new long[] {Long.MIN_VALUE,
            LocalDateTime.of(-4713, 11, 23, 23, 59, 59).toEpochSecond(ZoneOffset.UTC) * 1_000_000}) {
            assertThrows(IllegalArgumentException.class, () -> PgBinaryCodec.encode(PgType.TIMESTAMP, micros));
        }
    }

    @Test
    void timestampsWithTimeZoneAreUtc() {
        OffsetDateTime paris = OffsetDateTime.of(2026, 6, 1, 12, 0, 0, 500_000_000, ZoneOffset.ofHours(2));
        OffsetDateTime utc = OffsetDateTime.of(2026, 6, 1, 10, 0, 0, 500_000_000, ZoneOffset.UTC);
        assertEquals(utc, roundTrip(PgType.TIMESTAMPTZ, paris));
        assertEquals(utc, roundTrip(PgType.TIMESTAMPTZ, paris.toInstant()));
        assertEquals(utc, roundTrip(PgType.TIMESTAMPTZ, paris.atZoneSameInstant(ZoneId.of("Europe/Paris"))));
        assertEquals(OffsetDateTime.of(1900, 1, 1, 0, 0, 0, 0, ZoneOffset.UTC),
                roundTrip(PgType.TIMESTAMPTZ, Instant.parse("1900-01-01T00:00:00Z")));
        assertArrayEquals(PgBinaryCodec.encode(PgType.TIMESTAMP, utc.toLocalDateTime()),
                PgBinaryCodec.encode(PgType.TIMESTAMPTZ, paris));
        assertEquals(LocalDateTime.MAX.atOffset(ZoneOffset.UTC), roundTrip(PgType.TIMESTAMPTZ, OffsetDateTime.MAX));
        assertEquals(LocalDateTime.MIN.atOffset(ZoneOffset.UTC), roundTrip(PgType.TIMESTAMPTZ, Instant.MIN));
    }

    @Test
    void intervals() {
        assertEquals("0000000000000003" + "00000002" + "00000001",
                hex(PgBinaryCodec.encode(PgType.INTERVAL, new PgInterval(1, 2, 3))));
        for (PgInterval interval : new PgInterval[] {PgInterval.ZERO, new PgInterval(-14, -3, -4_000_001),
                new PgInterval(1, -1, 86_400_000_000L), PgInterval.INFINITY, PgInterval.NEGATIVE_INFINITY}) {
            assertEquals(interval, roundTrip(PgType.INTERVAL, interval));
        }
        // a duration's whole days are days, as its text prints them ("1 day 02:00:00", "-1 days -02:00:00")
        assertEquals(new PgInterval(0, 1, 7_200_000_000L), roundTrip(PgType.INTERVAL, Duration.ofHours(26)));
        assertEquals(new PgInterval(0, -1, -7_200_000_000L), roundTrip(PgType.INTERVAL, Duration.ofHours(-26)));
        assertEquals(new PgInterval(0, 0, -1_500), roundTrip(PgType.INTERVAL, Duration.ofNanos(-1_500_999)));
        assertEquals(new PgInterval(14, 3, 0), roundTrip(PgType.INTERVAL, Period.of(1, 2, 3)));
        assertThrows(IllegalArgumentException.class,
                () -> PgBinaryCodec.encode(PgType.INTERVAL, Duration.ofSeconds(Long.MAX_VALUE)));
    }

    /** The sql layer's intervals: a JDK {@link TemporalAmount} of months, days and microseconds, each kept apart. */
    private record Amount(long months, long days, long micros) implements TemporalAmount {
        @Override
        public long get(TemporalUnit unit) {
            return unit == ChronoUnit.MONTHS ? months : unit == ChronoUnit.DAYS ? days : micros;
        }

        @Override
        public List<TemporalUnit> getUnits() {
            return List.of(ChronoUnit.MONTHS, ChronoUnit.DAYS, ChronoUnit.MICROS);
        }

        @Override
        public Temporal addTo(Temporal temporal) {
            throw new UnsupportedOperationException();
        }

        @Override
        public Temporal subtractFrom(Temporal temporal) {
            throw new UnsupportedOperationException();
        }
    }

    @Test
    void anIntervalOfMonthsDaysAndTimeKeepsThemApart() {
        // INTERVAL '25' HOUR is 25 hours and no day, as Postgres holds it; INTERVAL '1' DAY one day
        assertEquals(new PgInterval(0, 0, 90_000_000_000L),
                roundTrip(PgType.INTERVAL, new Amount(0, 0, 90_000_000_000L)));
        assertEquals("25:00:00", PgTextEncoder.encode(PgType.INTERVAL, new Amount(0, 0, 90_000_000_000L)));
        assertEquals("1 day", PgTextEncoder.encode(PgType.INTERVAL, new Amount(0, 1, 0)));
        assertEquals("1 day -00:00:01", PgTextEncoder.encode(PgType.INTERVAL, new Amount(0, 1, -1_000_000)));
        assertEquals(new PgInterval(14, -3, 5), roundTrip(PgType.INTERVAL, new Amount(14, -3, 5)));
        assertThrows(IllegalArgumentException.class,
                () -> PgBinaryCodec.encode(PgType.INTERVAL, new Amount(1L << 40, 0, 0)));
    }

    @ParameterizedTest
    @ValueSource(strings = {"BOOL", "INT2", "INT4", "INT8", "FLOAT4", "FLOAT8", "DATE", "TIMESTAMP",
        "TIMESTAMPTZ", "INTERVAL"})
    void wrongLengthIsInvalidBinaryRepresentation(String name) {
        PgType type = PgType.valueOf(name);
        PgInputException e = assertThrows(PgInputException.class,
                () -> PgBinaryCodec.decode(type, new byte[type.size() + 1]));
        assertEquals("22P03", e.sqlState());
        assertEquals(name.toLowerCase() + " needs " + type.size() + " bytes, got " + (type.size() + 1), e.getMessage());
    }

    @Test
    void wrongJavaTypeIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> PgBinaryCodec.encode(PgType.BOOL, 1));
        assertThrows(IllegalArgumentException.class, () -> PgBinaryCodec.encode(PgType.DATE, "2024-01-01"));
        assertThrows(IllegalArgumentException.class, () -> PgBinaryCodec.encode(PgType.BYTEA, "x"));
        assertThrows(IllegalArgumentException.class, () -> PgBinaryCodec.encode(PgType.NUMERIC, "1"));
    }

    static void assertSqlState(String sqlState, Runnable action) {
        PgInputException e = assertThrows(PgInputException.class, action::run);
        assertEquals(sqlState, e.sqlState(), e.getMessage());
    }
}
