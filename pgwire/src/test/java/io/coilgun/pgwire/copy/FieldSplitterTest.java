package io.coilgun.pgwire.copy;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.coilgun.pgwire.spi.CopyFormat;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** One line into fields: the text format's escapes and \N, CSV's quotes and empty NULL, too many or few fields. */
class FieldSplitterTest {
    private static final CopyErrors ERRORS = new CopyErrors("t");

    /** The fields of {@code line} for {@code columns} columns, and how many the line had in {@code count[0]}. */
    private static String[] split(CopyFormat format, String line, int columns, int[] count) {
        byte[] bytes = line.getBytes(StandardCharsets.ISO_8859_1); // one byte per char: escapes can be exact bytes
        String[] out = new String[columns];
        count[0] = FieldSplitter.of(format, ERRORS).split(bytes, bytes.length, 7, out);
        return out;
    }

    private static String[] split(CopyFormat format, String line, int columns) {
        int[] count = new int[1];
        String[] out = split(format, line, columns, count);
        assertEquals(columns, count[0]);
        return out;
    }

    @Test
    void theFormatPicksTheSplitter() {
        assertInstanceOf(TextFieldSplitter.class, FieldSplitter.of(CopyFormat.text(), ERRORS));
        assertInstanceOf(CsvFieldSplitter.class, FieldSplitter.of(CopyFormat.csv(), ERRORS));
    }

    @Test
    void textEscapesAndNull() {
        assertArrayEquals(new String[] {"a\tb", null, "\\N", ""},
                split(CopyFormat.text(), "a\\tb\t\\N\t\\\\N\t", 4));
        assertArrayEquals(new String[] {"\b\f\n\r\u000b", "A", "AB", "q"},
                split(CopyFormat.text(), "\\b\\f\\n\\r\\v\t\\101\t\\x41\\x42\t\\q", 4));
        assertArrayEquals(new String[] {"é"}, split(CopyFormat.text(), "\\xc3\\xa9", 1)); // escaped UTF-8 bytes
        assertArrayEquals(new String[] {"1", "x"}, split(CopyFormat.text().withDelimiter('|'), "1|x", 2));
        assertArrayEquals(new String[] {null, "N"}, split(CopyFormat.text().withNullString(""), "\t\\N", 2));
    }

    @Test
    void textEscapeMakingBadUtf8ShowsTheLine() {
        CopyFormatException e = assertThrows(CopyFormatException.class,
                () -> split(CopyFormat.text(), "ok\t\\xff", 2));
        assertEquals("22021", e.sqlState());
        assertEquals("invalid byte sequence for encoding \"UTF8\": 0xff", e.getMessage());
        assertEquals("COPY t, line 7: \"ok\t\\xff\"", e.context());
    }

    @Test
    void csvQuotesAndNull() {
        assertArrayEquals(new String[] {"a,b", "say \"hi\"", null, "", "x"},
                split(CopyFormat.csv(), "\"a,b\",\"say \"\"hi\"\"\",,\"\",x", 5));
        assertArrayEquals(new String[] {"line\nbreak", "q\"e"},
                split(CopyFormat.csv().withEscape('\\'), "\"line\nbreak\",\"q\\\"e\"", 2));
        assertArrayEquals(new String[] {"NULL", null},
                split(CopyFormat.csv().withNullString("NULL"), "\"NULL\",NULL", 2)); // a quoted one never is NULL
    }

    @Test
    void unterminatedCsvQuoteShowsTheLine() {
        CopyFormatException e = assertThrows(CopyFormatException.class, () -> split(CopyFormat.csv(), "1,\"open", 2));
        assertEquals("22P04", e.sqlState());
        assertEquals("unterminated CSV quoted field", e.getMessage());
        assertEquals("COPY t, line 7: \"1,\"open\"", e.context());
    }

    @Test
    void countsEveryFieldButStoresOnlyThoseThatFit() {
        int[] count = new int[1];
        assertArrayEquals(new String[] {"1", "2"}, split(CopyFormat.text(), "1\t2\t3", 2, count));
        assertEquals(3, count[0]);
        assertArrayEquals(new String[] {"1", null}, split(CopyFormat.csv(), "1", 2, count));
        assertEquals(1, count[0]);
    }

    @Test
    void aTableWithoutColumnsTakesOnlyEmptyLines() {
        int[] count = new int[1];
        split(CopyFormat.text(), "", 0, count);
        assertEquals(0, count[0]);
        CopyFormatException e = assertThrows(CopyFormatException.class, () -> split(CopyFormat.text(), "x", 0, count));
        assertEquals("extra data after last expected column", e.getMessage());
    }
}
