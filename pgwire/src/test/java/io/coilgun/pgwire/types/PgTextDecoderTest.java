package io.coilgun.pgwire.types;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.coilgun.pgwire.spi.PgType;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.Period;
import java.time.ZoneOffset;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class PgTextDecoderTest {

    private static void assertRefused(PgType type, String text, String sqlState, String message) {
        PgInputException e = assertThrows(PgInputException.class, () -> PgTextDecoder.decode(type, text));
        assertEquals(sqlState, e.sqlState(), e.getMessage());
        if (message != null) {
            assertEquals(message, e.getMessage());
        }
    }

    private static OffsetDateTime utc(int y, int mo, int d, int h, int mi, int s, int nanos) {
        return OffsetDateTime.of(y, mo, d, h, mi, s, nanos, ZoneOffset.UTC);
    }

    @Test
    void nullStaysNull() {
        assertNull(PgTextDecoder.decode(PgType.INT4, null));
        assertNull(PgTextDecoder.decodeUtf8(PgType.INT4, null));
    }

    @ParameterizedTest
    @ValueSource(strings = {"t", "true", "TRUE", " True ", "tr", "y", "yes", "on", "ON", "1"})
    void booleansTrue(String text) {
        assertEquals(true, PgTextDecoder.decode(PgType.BOOL, text));
    }

    @ParameterizedTest
    @ValueSource(strings = {"f", "false", "FALSE", "\tfalse\n", "n", "no", "off", "of", "0"})
    void booleansFalse(String text) {
        assertEquals(false, PgTextDecoder.decode(PgType.BOOL, text));
    }

    @ParameterizedTest
    @ValueSource(strings = {"maybe", "", " ", "o", "truee", "2", "01", "yess"})
    void booleansRefused(String text) {
        assertRefused(PgType.BOOL, text, "22P02", "invalid input syntax for type boolean: \"" + text + "\"");
    }

    @Test
    void integers() {
        assertEquals((short) -32768, PgTextDecoder.decode(PgType.INT2, "-32768"));
        assertEquals(42, PgTextDecoder.decode(PgType.INT4, " +42 "));
        assertEquals(Integer.MIN_VALUE, PgTextDecoder.decode(PgType.INT4, "-2147483648"));
        assertEquals(Long.MAX_VALUE, PgTextDecoder.decode(PgType.INT8, "9223372036854775807"));
        assertEquals(1_000_000, PgTextDecoder.decode(PgType.INT4, "1_000_000")); // Postgres 16 literals
        assertEquals(255, PgTextDecoder.decode(PgType.INT4, "0xFF"));
        assertEquals(-8, PgTextDecoder.decode(PgType.INT4, "-0o10"));
        assertEquals(5L, PgTextDecoder.decode(PgType.INT8, "0b_101"));
        assertEquals(7, PgTextDecoder.decode(PgType.INT4, "0007"));
    }

    @Test
    void integersRefused() {
        assertRefused(PgType.INT4, "abc", "22P02", "invalid input syntax for type integer: \"abc\"");
        assertRefused(PgType.INT4, "99999999999", "22003", "value \"99999999999\" is out of range for type integer");
        assertRefused(PgType.INT2, "32768", "22003", "value \"32768\" is out of range for type smallint");
        assertRefused(PgType.INT8, "9223372036854775808", "22003",
                "value \"9223372036854775808\" is out of range for type bigint");
        assertRefused(PgType.INT8, "1.0", "22P02", "invalid input syntax for type bigint: \"1.0\"");
        for (String bad : new String[] {"", " ", "+", "1 2", "1__0", "_1", "1_", "0x", "1e3", "١"}) {
            assertRefused(PgType.INT4, bad, "22P02", null);
        }
    }

    @Test
    void floats() {
        assertEquals(1.5, PgTextDecoder.decode(PgType.FLOAT8, " 1.5 "));
        assertEquals(-1e-300, PgTextDecoder.decode(PgType.FLOAT8, "-1e-300"));
        assertEquals(0.1f, PgTextDecoder.decode(PgType.FLOAT4, "0.1"));
        assertEquals(.5, PgTextDecoder.decode(PgType.FLOAT8, ".5"));
        assertEquals(5.0, PgTextDecoder.decode(PgType.FLOAT8, "5."));
        assertEquals(-0.0, PgTextDecoder.decode(PgType.FLOAT8, "-0"));
        assertEquals(Double.NaN, PgTextDecoder.decode(PgType.FLOAT8, "NaN"));
        assertEquals(Float.NaN, PgTextDecoder.decode(PgType.FLOAT4, "nan"));
        assertEquals(Double.POSITIVE_INFINITY, PgTextDecoder.decode(PgType.FLOAT8, "Infinity"));
        assertEquals(Double.NEGATIVE_INFINITY, PgTextDecoder.decode(PgType.FLOAT8, "-Infinity"));
        assertEquals(Float.POSITIVE_INFINITY, PgTextDecoder.decode(PgType.FLOAT4, "inf"));
        assertEquals(Double.NEGATIVE_INFINITY, PgTextDecoder.decode(PgType.FLOAT8, "-INF"));
        assertEquals(Float.MIN_VALUE, PgTextDecoder.decode(PgType.FLOAT4, "1.4e-45")); // subnormals are fine
        assertRefused(PgType.FLOAT8, "1e400", "22003", "\"1e400\" is out of range for type double precision");
        assertRefused(PgType.FLOAT8, "1e-400", "22003", "\"1e-400\" is out of range for type double precision");
        assertRefused(PgType.FLOAT4, "1e39", "22003", "\"1e39\" is out of range for type real");
        assertRefused(PgType.FLOAT8, "abc", "22P02", "invalid input syntax for type double precision: \"abc\"");
        assertRefused(PgType.FLOAT4, "1.5f", "22P02", "invalid input syntax for type real: \"1.5f\"");
        assertRefused(PgType.FLOAT8, "0x1p3", "22P02", null);
        assertEquals(0.0, PgTextDecoder.decode(PgType.FLOAT8, "0e-999"));
    }

    @Test
    void numerics() {
        assertEquals(new BigDecimal("12345.678"), PgTextDecoder.decode(PgType.NUMERIC, "12345.678"));
        assertEquals(new BigDecimal("1.50"), PgTextDecoder.decode(PgType.NUMERIC, " 1.50 "));
        assertEquals(new BigDecimal("0.00"), PgTextDecoder.decode(PgType.NUMERIC, "-0.00"));
        assertEquals(new BigDecimal("1000"), PgTextDecoder.decode(PgType.NUMERIC, "1e3"));
        assertEquals(new BigDecimal("0.0015"), PgTextDecoder.decode(PgType.NUMERIC, "1.5E-3"));
        assertEquals(new BigDecimal("0.5"), PgTextDecoder.decode(PgType.NUMERIC, ".5"));
        assertEquals(new BigDecimal("5"), PgTextDecoder.decode(PgType.NUMERIC, "5."));
        assertEquals(new BigDecimal("1000000.5"), PgTextDecoder.decode(PgType.NUMERIC, "1_000_000.5"));
        assertEquals(new BigDecimal("255"), PgTextDecoder.decode(PgType.NUMERIC, "0xff"));
        assertEquals(new BigDecimal("123456789012345678901234567890.123"),
                PgTextDecoder.decode(PgType.NUMERIC, "123456789012345678901234567890.123"));
        assertRefused(PgType.NUMERIC, "NaN", "0A000", null);
        assertRefused(PgType.NUMERIC, "-Infinity", "0A000", null);
        assertRefused(PgType.NUMERIC, "1.2.3", "22P02", "invalid input syntax for type numeric: \"1.2.3\"");
        assertRefused(PgType.NUMERIC, "", "22P02", null);
        assertRefused(PgType.NUMERIC, "1e999999999999", "22003", "value overflows numeric format");
        assertRefused(PgType.NUMERIC, "1e-20000", "22003", null);
        assertRefused(PgType.NUMERIC, "1e200000", "22003", null);
    }

    @Test
    void numericTextMatchesBinary() {
        Random random = new Random(7);
        for (int i = 0; i < 1_000; i++) {
            BigDecimal value = new BigDecimal(new java.math.BigInteger(1 + random.nextInt(200), random),
                    random.nextInt(60) - 10);
            String text = PgTextEncoder.encode(PgType.NUMERIC, value);
            assertEquals(PgBinaryCodec.decode(PgType.NUMERIC, PgBinaryCodec.encode(PgType.NUMERIC, value)),
                    PgTextDecoder.decode(PgType.NUMERIC, text), text);
        }
    }

    @Test
    void textIsAsIs() {
        assertEquals(" héllo ", PgTextDecoder.decode(PgType.TEXT, " héllo "));
        assertEquals("x", PgTextDecoder.decode(PgType.VARCHAR, "x"));
        assertEquals("é", PgTextDecoder.decodeUtf8(PgType.TEXT, "é".getBytes(StandardCharsets.UTF_8)));
        PgInputException e = assertThrows(PgInputException.class,
                () -> PgTextDecoder.decodeUtf8(PgType.TEXT, new byte[] {(byte) 0xFF}));
        assertEquals("22021", e.sqlState());
    }

    @Test
    void bytea() {
        assertArrayEquals(new byte[] {0, (byte) 0xFF, 0x10}, (byte[]) PgTextDecoder.decode(PgType.BYTEA, "\\x00fF10"));
        assertArrayEquals(new byte[] {0x0a, 0x0b}, (byte[]) PgTextDecoder.decode(PgType.BYTEA, "\\x0a 0b\n"));
        assertArrayEquals(new byte[0], (byte[]) PgTextDecoder.decode(PgType.BYTEA, "\\x"));
        assertArrayEquals(new byte[] {'a', '\\', 0, (byte) 0xFF, 'b'},
                (byte[]) PgTextDecoder.decode(PgType.BYTEA, "a\\\\\\000\\377b"));
        assertArrayEquals("é".getBytes(StandardCharsets.UTF_8), (byte[]) PgTextDecoder.decode(PgType.BYTEA, "é"));
        assertRefused(PgType.BYTEA, "\\x0", "22023", "invalid hexadecimal data: odd number of digits");
        assertRefused(PgType.BYTEA, "\\x0g", "22023", "invalid hexadecimal digit: \"g\"");
        assertRefused(PgType.BYTEA, "a\\b", "22P02", "invalid input syntax for type bytea: \"a\\b\"");
        assertRefused(PgType.BYTEA, "\\400", "22P02", null);
        assertRefused(PgType.BYTEA, "\\12", "22P02", null);
    }

    @Test
    void dates() {
        assertEquals(LocalDate.of(2024, 1, 31), PgTextDecoder.decode(PgType.DATE, "2024-01-31"));
        assertEquals(LocalDate.of(2024, 1, 31), PgTextDecoder.decode(PgType.DATE, " 2024-1-31 "));
        assertEquals(LocalDate.of(2024, 1, 31), PgTextDecoder.decode(PgType.DATE, "2024-01-31 +02")); // pgjdbc
        assertEquals(LocalDate.of(2024, 1, 31), PgTextDecoder.decode(PgType.DATE, "2024-01-31 23:30:00-05"));
        assertEquals(LocalDate.of(-43, 3, 15), PgTextDecoder.decode(PgType.DATE, "0044-03-15 BC"));
        assertEquals(LocalDate.of(1970, 1, 1), PgTextDecoder.decode(PgType.DATE, "epoch"));
        assertEquals(LocalDate.MAX, PgTextDecoder.decode(PgType.DATE, "infinity"));
        assertEquals(LocalDate.MIN, PgTextDecoder.decode(PgType.DATE, "-Infinity"));
        assertEquals(LocalDate.of(5874897, 12, 31), PgTextDecoder.decode(PgType.DATE, "5874897-12-31"));
        assertRefused(PgType.DATE, "x", "22007", "invalid input syntax for type date: \"x\"");
        assertRefused(PgType.DATE, "2024-02-30", "22008", "date/time field value out of range: \"2024-02-30\"");
        assertRefused(PgType.DATE, "2024-13-01", "22008", null);
        assertRefused(PgType.DATE, "0000-01-01", "22008", null);
        assertRefused(PgType.DATE, "5874898-01-01", "22008", "date out of range: \"5874898-01-01\"");
        assertRefused(PgType.DATE, "4714-11-23 BC", "22008", null);
        assertEquals(LocalDate.of(-4713, 11, 24), PgTextDecoder.decode(PgType.DATE, "4714-11-24 BC"));
    }

    @Test
    void timestampsKeepTheWallTime() {
        assertEquals(LocalDateTime.of(2024, 1, 31, 12, 34, 56, 789_000_000),
                PgTextDecoder.decode(PgType.TIMESTAMP, "2024-01-31 12:34:56.789"));
        assertEquals(LocalDateTime.of(2024, 1, 31, 12, 34, 56, 789_000_000),
                PgTextDecoder.decode(PgType.TIMESTAMP, "2024-01-31T12:34:56.789+02:00")); // zone ignored
        assertEquals(LocalDateTime.of(2024, 1, 31, 12, 34),
                PgTextDecoder.decode(PgType.TIMESTAMP, "2024-01-31 12:34 Europe/Paris"));
        assertEquals(LocalDateTime.of(2024, 1, 31, 0, 0), PgTextDecoder.decode(PgType.TIMESTAMP, "2024-01-31"));
        assertEquals(LocalDateTime.of(2024, 2, 1, 0, 0), PgTextDecoder.decode(PgType.TIMESTAMP, "2024-01-31 24:00:00"));
        assertEquals(LocalDateTime.of(2000, 1, 1, 0, 0, 0, 123_456_000),
                PgTextDecoder.decode(PgType.TIMESTAMP, "2000-01-01 00:00:00.123456"));
        assertEquals(LocalDateTime.of(2000, 1, 1, 0, 0, 0, 123_457_000), // more than 6 digits round
                PgTextDecoder.decode(PgType.TIMESTAMP, "2000-01-01 00:00:00.1234567"));
        assertEquals(LocalDateTime.of(-43, 3, 15, 12, 0),
                PgTextDecoder.decode(PgType.TIMESTAMP, "0044-03-15 12:00:00+00 BC"));
        assertEquals(LocalDateTime.MAX, PgTextDecoder.decode(PgType.TIMESTAMP, "infinity"));
        assertEquals(LocalDateTime.of(1970, 1, 1, 0, 0), PgTextDecoder.decode(PgType.TIMESTAMP, "epoch"));
        assertRefused(PgType.TIMESTAMP, "x", "22007", "invalid input syntax for type timestamp: \"x\"");
        assertRefused(PgType.TIMESTAMP, "2024-01-31 12:34:56 x", "22023", "time zone \"x\" not recognized");
        assertRefused(PgType.TIMESTAMP, "2024-01-31 12:60:00", "22008", null);
        assertRefused(PgType.TIMESTAMP, "2024-01-31 24:00:01", "22008", null);
        assertRefused(PgType.TIMESTAMP, "2024-01-31 12:00:00+16", "22009", null);
        assertRefused(PgType.TIMESTAMP, "294277-01-01 00:00:00", "22008",
                "timestamp out of range: \"294277-01-01 00:00:00\"");
        assertRefused(PgType.TIMESTAMP, "2024-01-31 12", "22007", null);
    }

    @Test
    void timestampsWithTimeZone() {
        assertEquals(utc(2024, 1, 31, 12, 34, 56, 0), PgTextDecoder.decode(PgType.TIMESTAMPTZ, "2024-01-31 12:34:56"));
        assertEquals(utc(2024, 1, 31, 10, 34, 56, 0),
                PgTextDecoder.decode(PgType.TIMESTAMPTZ, "2024-01-31 12:34:56+02"));
        assertEquals(utc(2024, 1, 31, 10, 34, 56, 0),
                PgTextDecoder.decode(PgType.TIMESTAMPTZ, "2024-01-31 12:34:56 +0200"));
        assertEquals(utc(2024, 1, 31, 18, 4, 56, 500_000_000),
                PgTextDecoder.decode(PgType.TIMESTAMPTZ, "2024-01-31T12:34:56.5-05:30"));
        assertEquals(utc(2024, 1, 31, 12, 34, 56, 0),
                PgTextDecoder.decode(PgType.TIMESTAMPTZ, "2024-01-31T12:34:56Z"));
        assertEquals(utc(2024, 1, 31, 12, 34, 56, 0),
                PgTextDecoder.decode(PgType.TIMESTAMPTZ, "2024-01-31 12:34:56 utc"));
        assertEquals(utc(2024, 7, 1, 10, 0, 0, 0), // summer time
                PgTextDecoder.decode(PgType.TIMESTAMPTZ, "2024-07-01 12:00 Europe/Paris"));
        assertEquals(utc(2018, 3, 11, 7, 30, 0, 0), // in the DST gap: the offset before it (EST)
                PgTextDecoder.decode(PgType.TIMESTAMPTZ, "2018-03-11 02:30 America/New_York"));
        assertEquals(utc(2018, 11, 4, 6, 30, 0, 0), // ambiguous: the later offset (EST)
                PgTextDecoder.decode(PgType.TIMESTAMPTZ, "2018-11-04 01:30 america/new_york"));
        assertEquals(utc(1970, 1, 1, 0, 0, 0, 0), PgTextDecoder.decode(PgType.TIMESTAMPTZ, "epoch"));
        assertEquals(LocalDateTime.MIN.atOffset(ZoneOffset.UTC), PgTextDecoder.decode(PgType.TIMESTAMPTZ, "-infinity"));
        assertRefused(PgType.TIMESTAMPTZ, "x", "22007", "invalid input syntax for type timestamp with time zone: \"x\"");
    }

    @Test
    void timestampTextRoundTripsThroughTheEncoder() {
        Random random = new Random(3);
        long span = PgBinaryCodec.END_TIMESTAMP / 1_000_000 - PgBinaryCodec.MIN_TIMESTAMP / 1_000_000;
        for (int i = 0; i < 1_000; i++) {
            long micros = (PgBinaryCodec.MIN_TIMESTAMP / 1_000_000 + (long) (random.nextDouble() * span)) * 1_000_000
                    + random.nextInt(1_000_000);
            LocalDateTime ts = PgBinaryCodec.timestamp(micros);
            assertEquals(ts, PgTextDecoder.decode(PgType.TIMESTAMP, PgTextEncoder.encode(PgType.TIMESTAMP, ts)));
            OffsetDateTime tz = ts.atOffset(ZoneOffset.UTC);
            assertEquals(tz, PgTextDecoder.decode(PgType.TIMESTAMPTZ, PgTextEncoder.encode(PgType.TIMESTAMPTZ, tz)));
            LocalDate date = ts.toLocalDate();
            assertEquals(date, PgTextDecoder.decode(PgType.DATE, PgTextEncoder.encode(PgType.DATE, date)));
        }
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "1 day 02:00:00 | 0 | 1 | 7200000000",
        "3 mons | 3 | 0 | 0",
        "1 year 2 mons 3 days 04:05:06.5 | 14 | 3 | 14706500000",
        "-1 days | 0 | -1 | 0",
        "-1 days +02:00:00 | 0 | -1 | 7200000000",
        "1 day -02:00:00 | 0 | 1 | -7200000000",
        "00:00:01 | 0 | 0 | 1000000",
        "-00:00:01.5 | 0 | 0 | -1500000",
        "36:00:00 | 0 | 0 | 129600000000",
        "01:02 | 0 | 0 | 3720000000",
        "1:02.5 | 0 | 0 | 62500000",
        "5 | 0 | 0 | 5000000",
        "1.5 | 0 | 0 | 1500000",
        "1 day 5 | 0 | 1 | 5000000",
        "3 4:05:06 | 0 | 3 | 14706000000",
        "1-2 | 14 | 0 | 0",
        "-1-2 | -14 | 0 | 0",
        "@ 1 hour 30 mins ago | 0 | 0 | -5400000000",
        "1 week 2 days | 0 | 9 | 0",
        "1.5 days | 0 | 1 | 43200000000",
        "1.5 months | 1 | 15 | 0",
        "1.5 years | 18 | 0 | 0",
        "2 decades 1 century 1 millennium | 13440 | 0 | 0",
        "10 ms 5 us | 0 | 0 | 10005",
        "1h 2m 3s | 0 | 0 | 3723000000",
        "1day | 0 | 1 | 0",
        "  2 HOURS  | 0 | 0 | 7200000000",
        "P1DT2H | 0 | 1 | 7200000000",
        "P1Y2M3W4DT5H6M7.5S | 14 | 25 | 18367500000",
        "PT-1.5S | 0 | 0 | -1500000",
        "P0.5M | 0 | 15 | 0",
        "PT36H | 0 | 0 | 129600000000",
        "0 | 0 | 0 | 0",
    })
    void intervals(String text, int months, int days, long micros) {
        assertEquals(new PgInterval(months, days, micros), PgTextDecoder.decode(PgType.INTERVAL, text));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "x", "1 fortnight", "day", "1 day 2 days", "01:00:00 1 hour", "1 2", "P", "PT",
        "P1", "P1X", "1 day ago 2", "ago", "@", "1:2:3:4", "- 1 day"})
    void intervalsRefused(String text) {
        assertRefused(PgType.INTERVAL, text, "22007", "invalid input syntax for type interval: \"" + text + "\"");
    }

    @Test
    void intervalRangesAndInfinity() {
        assertRefused(PgType.INTERVAL, "01:60:00", "22015", "interval field value out of range: \"01:60:00\"");
        assertRefused(PgType.INTERVAL, "2147483648 days", "22008", "interval out of range");
        assertRefused(PgType.INTERVAL, "178956971 years", "22008", null);
        assertEquals(PgInterval.INFINITY, PgTextDecoder.decode(PgType.INTERVAL, "infinity"));
        assertEquals(PgInterval.NEGATIVE_INFINITY, PgTextDecoder.decode(PgType.INTERVAL, "-infinity"));
    }

    @Test
    void intervalTextRoundTrips() {
        Random random = new Random(11);
        for (int i = 0; i < 2_000; i++) {
            PgInterval interval = new PgInterval(random.nextInt(2_000) - 1_000, random.nextInt(2_000) - 1_000,
                    random.nextBoolean() ? random.nextLong() : random.nextInt());
            String text = PgTextEncoder.encode(PgType.INTERVAL, interval);
            assertEquals(interval, PgTextDecoder.decode(PgType.INTERVAL, text), text);
        }
        // a Duration prints as days and time ("-1 days -02:00:00.5"), so it reads back with days
        assertEquals(new PgInterval(0, -1, -7_200_500_000L), PgTextDecoder.decode(PgType.INTERVAL,
                PgTextEncoder.encode(PgType.INTERVAL, Duration.ofMillis(-93_600_500))));
        assertEquals(PgInterval.of(Period.of(1, 2, 3)),
                PgTextDecoder.decode(PgType.INTERVAL, PgTextEncoder.encode(PgType.INTERVAL, Period.of(1, 2, 3))));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "0 | 0 | 0 | 00:00:00",
        "14 | 3 | 14706500000 | 1 year 2 mons 3 days 04:05:06.5",
        "0 | -1 | 7200000000 | -1 days +02:00:00",
        "-14 | 0 | 0 | -1 years -2 mons",
        "12 | -1 | 0 | 1 year -1 days",
        "-1 | 1 | -1 | -1 mons +1 day -00:00:00.000001",
        "0 | 0 | 129600000000 | 36:00:00",
        "1 | 0 | 0 | 1 mon",
        "0 | 1 | 0 | 1 day",
        "0 | 0 | -1500000 | -00:00:01.5",
    })
    void intervalOutputLikePostgres(int months, int days, long micros, String expected) {
        assertEquals(expected, new PgInterval(months, days, micros).toPostgresString());
        assertEquals(expected, PgTextEncoder.encode(PgType.INTERVAL, new PgInterval(months, days, micros)));
    }
}
