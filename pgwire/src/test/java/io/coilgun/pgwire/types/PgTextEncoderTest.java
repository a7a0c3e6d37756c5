package io.coilgun.pgwire.types;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.coilgun.pgwire.spi.PgType;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.Period;
import java.time.ZoneOffset;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class PgTextEncoderTest {

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', value = {
        "10.0 | 10",
        "15.5 | 15.5",
        "0.1 | 0.1",
        "-2.5 | -2.5",
        "1e20 | 1e+20",
        "1.5e-5 | 1.5e-05",
        "0.0001 | 0.0001",
        "0.00012 | 0.00012",
        "123456789012345680 | 1.2345678901234568e+17",
        "100000000000000 | 100000000000000",
        "123456789012345 | 123456789012345",
        "1e15 | 1e+15",
        "1234567890123456 | 1.234567890123456e+15",
        "1e100 | 1e+100",
        "-1e-100 | -1e-100",
        "2e23 | 2e+23", // Java 17's Double.toString says 2.0000000000000002E23
        "0.30000000000000004 | 0.30000000000000004",
        "4.9e-324 | 5e-324",
        "1.7976931348623157e308 | 1.7976931348623157e+308",
        "NaN | NaN",
        "Infinity | Infinity",
        "-Infinity | -Infinity",
        "0.0 | 0",
        "-0.0 | -0",
    })
    void float8LikePostgres(String input, String expected) {
        assertEquals(expected, PgTextEncoder.encode(PgType.FLOAT8, Double.parseDouble(input)));
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', value = {
        "10.0 | 10",
        "0.1 | 0.1",
        "15.5 | 15.5",
        "100000 | 100000",
        "1e6 | 1e+06",
        "123456 | 123456",
        "1234567 | 1.234567e+06",
        "1.5e-5 | 1.5e-05",
        "3.4028235e38 | 3.4028235e+38",
        "1.4e-45 | 1e-45",
        "-0.0 | -0",
        "NaN | NaN",
    })
    void float4LikePostgres(String input, String expected) {
        assertEquals(expected, PgTextEncoder.encode(PgType.FLOAT4, Float.parseFloat(input)));
    }

    @Test
    void floatInFloat8ColumnKeepsItsShortDigits() {
        assertEquals("0.1", PgTextEncoder.encode(PgType.FLOAT8, 0.1f));
    }

    @Test
    void float8RoundTripsAndIsNeverLongerThanJava() {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        for (int i = 0; i < 2000; i++) {
            double d = Double.longBitsToDouble(random.nextLong());
            if (Double.isNaN(d) || Double.isInfinite(d)) {
                continue;
            }
            String text = PgTextEncoder.encode(PgType.FLOAT8, d);
            assertEquals(d, Double.parseDouble(text), text);
            assertEquals(true, significantDigits(text) <= significantDigits(Double.toString(d)),
                    text + " vs " + d);
        }
    }

    /**
     * Schubfach's digits give what the exact search gives: random bit patterns, amounts with two decimals, their sums
     * (often 16-17 digits), powers of ten, tiny and huge values. (Checked once over 3,000,000 values.)
     */
    @Test
    void float8ShortcutEqualsTheExactSearch() {
        java.util.SplittableRandom random = new java.util.SplittableRandom(11);
        double sum = 0;
        for (int i = 0; i < 300_000; i++) {
            double d = switch (i % 6) {
                case 0 -> Double.longBitsToDouble(random.nextLong());
                case 1 -> random.nextInt(10_000_000) / 100.0;
                case 2 -> sum += random.nextInt(100_000) / 100.0;
                case 3 -> Math.pow(10, random.nextInt(-30, 30)) * (random.nextInt(1, 1000));
                case 4 -> random.nextDouble() * Math.pow(10, random.nextInt(-300, 300));
                default -> -random.nextInt(1_000_000) / 1000.0;
            };
            if (Double.isNaN(d) || Double.isInfinite(d)) {
                continue;
            }
            String text = PgTextEncoder.encode(PgType.FLOAT8, d);
            assertEquals(PgFloatText.float8Exact(d), text, "for " + d);
            if (i % 10 == 0 && d != 0) {
                assertEquals(shortestLength(d), significantDigits(text), "the fewest digits for " + d + ": " + text);
            }
        }
    }

    /** The fewest significant digits of a decimal that reads back as {@code d}, by trying every length from 1. */
    private static int shortestLength(double d) {
        java.math.BigDecimal exact = new java.math.BigDecimal(d);
        for (int p = 1; p < 17; p++) {
            for (java.math.RoundingMode mode : new java.math.RoundingMode[] {java.math.RoundingMode.DOWN,
                java.math.RoundingMode.UP}) {
                if (Double.parseDouble(exact.round(new java.math.MathContext(p, mode)).toString()) == d) {
                    return p;
                }
            }
        }
        return 17;
    }

    private static int significantDigits(String text) {
        String mantissa = text.toLowerCase().split("e")[0].replace("-", "").replace(".", "");
        return mantissa.replaceAll("^0+", "").replaceAll("0+$", "").length();
    }

    @Test
    void timestamps() {
        assertEquals("2026-01-01 10:00:00",
                PgTextEncoder.encode(PgType.TIMESTAMP, LocalDateTime.of(2026, 1, 1, 10, 0)));
        assertEquals("2026-01-01 10:00:00.5",
                PgTextEncoder.encode(PgType.TIMESTAMP, LocalDateTime.of(2026, 1, 1, 10, 0, 0, 500_000_000)));
        assertEquals("2026-01-01 10:00:00.123456",
                PgTextEncoder.encode(PgType.TIMESTAMP, LocalDateTime.of(2026, 1, 1, 10, 0, 0, 123_456_789)));
        assertEquals("2026-01-01 10:00:00.00001",
                PgTextEncoder.encode(PgType.TIMESTAMP, LocalDateTime.of(2026, 1, 1, 10, 0, 0, 10_000)));
        assertEquals("2026-01-01 10:00:00", // below a microsecond
                PgTextEncoder.encode(PgType.TIMESTAMP, LocalDateTime.of(2026, 1, 1, 10, 0, 0, 999)));
        assertEquals("0044-03-15 12:00:00 BC",
                PgTextEncoder.encode(PgType.TIMESTAMP, LocalDateTime.of(-43, 3, 15, 12, 0)));
    }

    @Test
    void timestampsWithTimeZoneInUtc() {
        assertEquals("2026-01-01 10:00:00+00", PgTextEncoder.encode(PgType.TIMESTAMPTZ,
                OffsetDateTime.of(2026, 1, 1, 10, 0, 0, 0, ZoneOffset.UTC)));
        assertEquals("2026-01-01 08:00:00.25+00", PgTextEncoder.encode(PgType.TIMESTAMPTZ,
                OffsetDateTime.of(2026, 1, 1, 10, 0, 0, 250_000_000, ZoneOffset.ofHours(2))));
        assertEquals("1970-01-01 00:00:01+00", PgTextEncoder.encode(PgType.TIMESTAMPTZ, Instant.ofEpochSecond(1)));
    }

    @Test
    void datesAndIntervals() {
        assertEquals("2026-01-01", PgTextEncoder.encode(PgType.DATE, LocalDate.of(2026, 1, 1)));
        assertEquals("7 days", PgTextEncoder.encode(PgType.INTERVAL, Duration.ofDays(7)));
        assertEquals("1 day 02:03:04.5",
                PgTextEncoder.encode(PgType.INTERVAL, Duration.parse("PT26H3M4.5S")));
        assertEquals("00:00:00", PgTextEncoder.encode(PgType.INTERVAL, Duration.ZERO));
        assertEquals("-01:30:00", PgTextEncoder.encode(PgType.INTERVAL, Duration.ofMinutes(-90)));
        assertEquals("-00:00:01.5", PgTextEncoder.encode(PgType.INTERVAL, Duration.ofMillis(-1500)));
        assertEquals("-1 days -02:00:00", PgTextEncoder.encode(PgType.INTERVAL, Duration.ofHours(-26)));
        assertEquals("1 year 2 mons 3 days", PgTextEncoder.encode(PgType.INTERVAL, Period.of(1, 2, 3)));
    }

    @Test
    void otherTypes() {
        assertNull(PgTextEncoder.encode(PgType.INT4, null));
        assertNull(PgTextEncoder.encodeUtf8(PgType.TEXT, null));
        assertEquals("t", PgTextEncoder.encode(PgType.BOOL, true));
        assertEquals("f", PgTextEncoder.encode(PgType.BOOL, false));
        assertEquals("-7", PgTextEncoder.encode(PgType.INT2, (short) -7));
        assertEquals("42", PgTextEncoder.encode(PgType.INT4, 42));
        assertEquals("9223372036854775807", PgTextEncoder.encode(PgType.INT8, Long.MAX_VALUE));
        assertEquals("100000000000000000000",
                PgTextEncoder.encode(PgType.NUMERIC, new BigDecimal("1E+20")));
        assertEquals("1.50", PgTextEncoder.encode(PgType.NUMERIC, new BigDecimal("1.50")));
        assertEquals("héllo", PgTextEncoder.encode(PgType.VARCHAR, "héllo"));
        assertEquals("\\x00ff10", PgTextEncoder.encode(PgType.BYTEA, new byte[] {0, (byte) 0xFF, 0x10}));
        assertEquals(6, PgTextEncoder.encodeUtf8(PgType.TEXT, "héllo").length);
        assertThrows(IllegalArgumentException.class, () -> PgTextEncoder.encode(PgType.INT4, "12"));
    }

    /**
     * A timestamp given as microseconds since 1970 prints as the same LocalDateTime does: the four-digit years by
     * arithmetic (with a fraction or not, either side of 1970), the others (BC, five digits) through java.time.
     */
    @Test
    void timestampMicrosLikeLocalDateTime() {
        java.util.SplittableRandom random = new java.util.SplittableRandom(5);
        long[] edges = {0, -1, 1, 999_999, -86_400_000_000L, 253_402_300_799_999_999L, 253_402_300_800_000_000L,
            -62_135_596_800_000_000L, -62_135_596_800_000_001L, Long.MAX_VALUE, Long.MIN_VALUE, 951_782_400_000_000L};
        for (int i = 0; i < 200_000 + edges.length; i++) {
            long micros = i < edges.length ? edges[i] : switch (i % 4) {
                case 0 -> random.nextLong(-62_135_596_800_000_000L, 253_402_300_800_000_000L); // years 1-9999
                case 1 -> random.nextLong(-86_400_000_000L * 365 * 100, 86_400_000_000L * 365 * 100) / 1_000_000
                        * 1_000_000; // whole seconds around 1970
                case 2 -> random.nextLong(1_700_000_000_000_000L, 1_900_000_000_000_000L);
                default -> random.nextLong() / 16; // BC and five-digit years too
            };
            LocalDateTime t = LocalDateTime.ofEpochSecond(Math.floorDiv(micros, 1_000_000L),
                    (int) Math.floorMod(micros, 1_000_000L) * 1000, ZoneOffset.UTC);
            String expected = PgTextEncoder.encode(PgType.TIMESTAMP, t);
            assertEquals(expected, PgTextEncoder.encode(PgType.TIMESTAMP, micros), "for " + micros + " us");
            TextBuffer out = new TextBuffer(8);
            PgTextEncoder.encode(PgType.TIMESTAMP, micros, out);
            assertEquals(expected, out.string(0));
        }
    }
}
