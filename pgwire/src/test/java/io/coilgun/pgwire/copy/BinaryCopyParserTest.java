package io.coilgun.pgwire.copy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.coilgun.pgwire.spi.CopyFormat;
import io.coilgun.pgwire.spi.PgException;
import io.coilgun.pgwire.spi.PgType;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Postgres' binary COPY format, cut into CopyData messages anywhere, becomes the rows' text forms. */
class BinaryCopyParserTest {
    private static final List<PgType> TYPES = List.of(PgType.INT8, PgType.TIMESTAMP, PgType.VARCHAR, PgType.FLOAT8,
            PgType.BOOL);

    /** The binary COPY data of {@code rows} (each field a PgBinaryCodec-encodable value or null), with trailer. */
    private static byte[] data(List<Object[]> rows, int extension) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(bytes);
        out.write("PGCOPY\n\377\r\n\0".getBytes(StandardCharsets.ISO_8859_1));
        out.writeInt(0);
        out.writeInt(extension);
        out.write(new byte[extension]);
        for (Object[] row : rows) {
            out.writeShort(row.length);
            for (int i = 0; i < row.length; i++) {
                if (row[i] == null) {
                    out.writeInt(-1);
                } else {
                    byte[] value = io.coilgun.pgwire.types.PgBinaryCodec.encode(TYPES.get(i), row[i]);
                    out.writeInt(value.length);
                    out.write(value);
                }
            }
        }
        out.writeShort(-1);
        return bytes.toByteArray();
    }

    private static List<String> parse(byte[] data, int chunk) {
        List<String> rows = new ArrayList<>();
        BinaryCopyParser parser = new BinaryCopyParser("payments", TYPES, 1 << 20,
                (line, fields) -> rows.add(line + " " + Arrays.toString(fields)));
        for (int at = 0; at < data.length; at += chunk) {
            parser.feed(Arrays.copyOfRange(data, at, Math.min(data.length, at + chunk)));
        }
        parser.finish();
        return rows;
    }

    @Test
    void rowsInTheirTextFormsWhereverTheDataIsCut() throws IOException {
        byte[] data = data(List.of(
                new Object[] {1L, LocalDateTime.of(2026, 1, 2, 8, 0, 0, 123_456_000), "héllo ✓", 0.1, true},
                new Object[] {2L, null, null, 1e300, false}), 3);
        List<String> expected = List.of("1 [1, 2026-01-02 08:00:00.123456, héllo ✓, 0.1, t]",
                "2 [2, null, null, 1e+300, f]");
        for (int chunk = 1; chunk <= data.length; chunk++) {
            assertEquals(expected, parse(data, chunk), "chunks of " + chunk);
        }
    }

    @Test
    void badDataIsRefusedWithItsRow() throws IOException {
        byte[] good = data(List.<Object[]>of(new Object[] {1L, null, "a", 1.0, true}), 0);
        byte[] badSignature = good.clone();
        badSignature[0] = 'X';
        assertRefused(badSignature, "22P04", "COPY file signature not recognized");
        assertRefused(Arrays.copyOf(good, good.length - 3), "22P04", "unexpected EOF in COPY data");
        assertEquals(1, parse(Arrays.copyOf(good, good.length - 2), 5).size(), "no trailer: the end, as in Postgres");
        byte[] afterTrailer = Arrays.copyOf(good, good.length + 1);
        assertRefused(afterTrailer, "22P04", "received copy data after EOF marker");
        byte[] wrongCount = good.clone();
        wrongCount[20] = 4; // the first tuple's field count, after the 19 bytes of header
        PgException e = assertRefused(wrongCount, "22P04", "row field count is 4, expected 5");
        assertEquals("COPY payments, line 1", e.context());
        byte[] shortBool = data(List.<Object[]>of(new Object[] {1L, null, "a", 1.0, true}), 0);
        shortBool[shortBool.length - 4] = 2; // the bool's length: 2 bytes
        assertRefused(shortBool, "22P03", null);
    }

    private static PgException assertRefused(byte[] data, String state, String message) {
        PgException e = assertThrows(PgException.class, () -> parse(data, 7));
        assertEquals(state, e.sqlState());
        if (message != null) {
            assertEquals(message, e.getMessage());
        }
        return e;
    }

    @Test
    void binaryTakesNoTextOptions() {
        assertEquals("cannot specify DELIMITER in BINARY mode", assertThrows(PgException.class,
                () -> CopyFormat.of(CopyFormat.Format.BINARY, ",", null, null, null, null)).getMessage());
        assertEquals("cannot specify NULL in BINARY mode", assertThrows(PgException.class,
                () -> CopyFormat.of(CopyFormat.Format.BINARY, null, "", null, null, null)).getMessage());
        assertEquals(CopyFormat.Format.BINARY, CopyFormat.of(CopyFormat.Format.BINARY, null, null,
                CopyFormat.Header.FALSE, null, null).format());
    }
}
