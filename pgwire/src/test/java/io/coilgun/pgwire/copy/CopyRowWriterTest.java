package io.coilgun.pgwire.copy;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.coilgun.pgwire.spi.CopyFormat;
import io.coilgun.pgwire.spi.PgType;
import io.coilgun.pgwire.types.PgTextEncoder;
import io.coilgun.pgwire.types.TextBuffer;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.LocalDateTime;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * {@link CopyRowWriter#appendRow}, which writes values straight into the COPY batch, gives byte for byte what the
 * text path gives (each value's Postgres text, then {@link CopyRowWriter#row}), framed as a CopyData message.
 */
class CopyRowWriterTest {
    private static final PgType[] TYPES = {PgType.INT8, PgType.INT4, PgType.FLOAT8, PgType.VARCHAR, PgType.TEXT,
        PgType.TIMESTAMP, PgType.BOOL, PgType.NUMERIC, PgType.UNKNOWN};
    private static final String[] AWKWARD = {"", "\\.", "\\N", "a\tb", "back\\slash", "line\nbreak", "cr\rx",
        "quote\"d", "comma,ed", "semi;colon", "pipe|d", "caf\u00e9", "\u20ac 5", "\ud83d\ude00", "NULL", "\u000b\b\f",
        " spaced ", "x"};

    @Test
    void directRowsEqualTheTextPathInEveryFormat() {
        List<CopyFormat> formats = List.of(CopyFormat.text(), CopyFormat.csv(),
                CopyFormat.text().withDelimiter('|').withNullString(""),
                CopyFormat.text().withDelimiter(',').withNullString("NULL"),
                CopyFormat.csv().withDelimiter(';').withNullString("\\N"),
                CopyFormat.csv().withQuote('\'').withEscape('\\'),
                CopyFormat.csv().withNullString("x"));
        SplittableRandom random = new SplittableRandom(7);
        for (CopyFormat format : formats) {
            CopyRowWriter direct = new CopyRowWriter(format);
            CopyRowWriter text = new CopyRowWriter(format);
            TextBuffer out = new TextBuffer(64);
            for (int r = 0; r < 20_000; r++) {
                int n = 1 + random.nextInt(TYPES.length);
                PgType[] types = new PgType[n];
                Object[] values = new Object[n];
                for (int c = 0; c < n; c++) {
                    types[c] = TYPES[random.nextInt(TYPES.length)];
                    values[c] = random.nextInt(12) == 0 ? null : value(types[c], random);
                }
                int start = out.length();
                direct.appendRow(types, values, out);
                byte[] expected = text.row(texts(types, values));
                byte[] got = Arrays.copyOfRange(out.array(), start, out.length());
                assertEquals('d', got[0]);
                assertEquals(got.length - 1, java.nio.ByteBuffer.wrap(got, 1, 4).getInt(), "the message length");
                assertArrayEquals(expected, Arrays.copyOfRange(got, 5, got.length),
                        () -> format + ": " + Arrays.toString(values) + " gave "
                                + new String(got, 5, got.length - 5, StandardCharsets.UTF_8) + " not "
                                + new String(expected, StandardCharsets.UTF_8));
                if (out.length() > 100_000) {
                    out.truncate(0);
                }
            }
        }
    }

    @Test
    void aValueThatCannotBeWrittenLeavesNothingOfItsRow() {
        CopyRowWriter writer = new CopyRowWriter(CopyFormat.text());
        TextBuffer out = new TextBuffer(16);
        writer.appendRow(new PgType[] {PgType.INT8}, new Object[] {1L}, out);
        int before = out.length();
        assertThrows(IllegalArgumentException.class, () -> writer.appendRow(
                new PgType[] {PgType.INT8, PgType.INT8}, new Object[] {2L, "not a number"}, out));
        assertEquals(before, out.length());
        writer.appendRow(new PgType[] {PgType.INT8}, new Object[] {3L}, out);
        assertEquals("1\n3\n", new String(out.array(), 5, 2, StandardCharsets.UTF_8)
                + new String(out.array(), before + 5, 2, StandardCharsets.UTF_8));
    }

    @Test
    void decimalsAndUtf8LikeTheJdk() {
        TextBuffer out = new TextBuffer(1);
        long[] numbers = {0, 1, -1, 9, 10, -10, 99, 100, 123456789, Long.MAX_VALUE, Long.MIN_VALUE, Long.MIN_VALUE + 1,
            Integer.MAX_VALUE, Integer.MIN_VALUE, 1_000_000_000_000_000_000L};
        for (long n : numbers) {
            int start = out.length();
            out.decimal(n);
            assertEquals(Long.toString(n), out.string(start));
        }
        for (String s : AWKWARD) {
            int start = out.length();
            out.utf8(s);
            assertEquals(s, out.string(start));
        }
    }

    private static String[] texts(PgType[] types, Object[] values) {
        String[] texts = new String[values.length];
        for (int i = 0; i < values.length; i++) {
            Object v = values[i];
            texts[i] = v == null ? null : types[i] == PgType.UNKNOWN ? v.toString() : PgTextEncoder.encode(types[i], v);
        }
        return texts;
    }

    private static Object value(PgType type, SplittableRandom random) {
        return switch (type) {
            case INT8 -> random.nextBoolean() ? random.nextLong() : (long) random.nextInt(-1000, 1000);
            case INT4 -> random.nextBoolean() ? random.nextInt() : (Object) (short) random.nextInt(100);
            case FLOAT8 -> switch (random.nextInt(4)) {
                case 0 -> Double.longBitsToDouble(random.nextLong());
                case 1 -> random.nextInt(10_000_000) / 100.0;
                case 2 -> (Object) (float) random.nextDouble(); // a float in a float8 column: float4 digits
                default -> new double[] {0.0, -0.0, Double.NaN, Double.POSITIVE_INFINITY, 1e-320, 1e300}[random.nextInt(6)];
            };
            case VARCHAR, TEXT, UNKNOWN -> random.nextBoolean() ? AWKWARD[random.nextInt(AWKWARD.length)]
                    : "card-" + random.nextInt(1_000_000);
            case TIMESTAMP -> random.nextBoolean() ? LocalDateTime.of(2026, 1, 1, 0, 0).plusNanos(
                    random.nextLong(1L << 50) * 1000) : (Object) random.nextLong(-1L << 60, 1L << 60); // or micros
            case BOOL -> random.nextBoolean();
            case NUMERIC -> BigDecimal.valueOf(random.nextLong(), random.nextInt(-3, 6));
            default -> throw new AssertionError(type);
        };
    }
}
