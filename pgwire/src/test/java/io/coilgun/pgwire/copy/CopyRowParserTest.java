package io.coilgun.pgwire.copy;

import io.coilgun.pgwire.spi.CopyFormat;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coilgun.pgwire.spi.CopyFormat.Header;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * COPY FROM STDIN data as Postgres 18 reads it. The expected messages, contexts and line numbers were checked
 * against a Postgres server (all but the end-of-data marker's, which follow Postgres 18's copyfromparse.c).
 */
class CopyRowParserTest {
    private static final List<String> AB = List.of("a", "b");

    record Row(long line, List<String> fields) {
    }

    /** What a parse gave: the rows handed over, then the error if any. */
    record Outcome(List<Row> rows, String sqlState, String message, long errorLine, String context, String hint,
            boolean endMarkerSeen) {
        Outcome rowsOnly() {
            assertNull(message, () -> "unexpected error: " + this);
            return this;
        }

        Outcome failed() {
            assertTrue(message != null, () -> "expected an error: " + this);
            return this;
        }
    }

    private static Row row(long line, String... fields) {
        return new Row(line, Arrays.asList(fields));
    }

    /** UTF-8 of the strings, with Integers as raw bytes. */
    private static byte[] bytes(Object... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (Object part : parts) {
            if (part instanceof Integer b) {
                out.write(b);
            } else {
                out.writeBytes(((String) part).getBytes(StandardCharsets.UTF_8));
            }
        }
        return out.toByteArray();
    }

    /** Feeds the input cut before each offset in {@code cuts}, then finishes. */
    private static Outcome parse(CopyFormat format, List<String> columns, int maxRowBytes, byte[] input,
            int... cuts) {
        List<Row> rows = new ArrayList<>();
        CopyRowParser parser = new CopyRowParser(format, "payments", columns, maxRowBytes,
                (line, fields) -> rows.add(new Row(line, Arrays.asList(fields.clone()))));
        try {
            int from = 0;
            for (int cut : cuts) {
                parser.feed(Arrays.copyOfRange(input, from, cut));
                from = cut;
            }
            parser.feed(Arrays.copyOfRange(input, from, input.length));
            parser.finish();
        } catch (CopyFormatException e) {
            assertTrue(e.sqlState() != null && e.sqlState().matches("[0-9A-Z]{5}"), "not a SQLSTATE: " + e.sqlState());
            return new Outcome(rows, e.sqlState(), e.getMessage(), e.lineNumber(), e.context(), e.hint(),
                    parser.endMarkerSeen());
        }
        return new Outcome(rows, null, null, 0, null, null, parser.endMarkerSeen());
    }

    private static Outcome parse(CopyFormat format, List<String> columns, byte[] input) {
        return parse(format, columns, CopyRowParser.DEFAULT_MAX_ROW_BYTES, input);
    }

    private static Outcome text(String input) {
        return parse(CopyFormat.text(), AB, bytes(input));
    }

    private static Outcome csv(String input) {
        return parse(CopyFormat.csv(), AB, bytes(input));
    }

    private static void assertError(Outcome outcome, String sqlState, String message, long line, String context) {
        outcome.failed();
        assertEquals(message, outcome.message());
        assertEquals(sqlState, outcome.sqlState());
        assertEquals(line, outcome.errorLine());
        assertEquals(context, outcome.context());
    }

    // ---- text format ----

    @Test
    void textRowsWithLineNumbers() {
        Outcome out = text("1\tAlice\n2\tBob\n").rowsOnly();
        assertEquals(List.of(row(1, "1", "Alice"), row(2, "2", "Bob")), out.rows());
    }

    @Test
    void textEveryEscape() {
        Outcome out = parse(CopyFormat.text(), List.of("a"), bytes(
                "\\b\\f\\n\\r\\t\\v\\\\\n"
                        + "\\101\\1\\12\\1234\\8\\9\n"
                        + "\\x41\\x4\\x4g\\xg\\X41\\x7E\\x\n"
                        + "\\q\\\t\\N\\\\N\n"
                        + "\\303\\251\\xc3\\xA9\\é\n")).rowsOnly();
        assertEquals(List.of(
                row(1, "\b\f\n\r\t\u000b\\"),
                row(2, "A\u0001\nS489"),
                row(3, "A\u0004\u0004gxgX41~x"),
                row(4, "q\tN\\N"),
                row(5, "ééé")), out.rows());
    }

    @Test
    void textNullIsTheRawNullString() {
        // \\N is an escaped backslash and N; \N\N is not the null string either: it de-escapes to NN
        assertEquals(List.of(row(1, null, ""), row(2, "", null), row(3, "\\N", "NN")),
                text("\\N\t\n\t\\N\n\\\\N\t\\N\\N\n").rowsOnly().rows());

        CopyFormat customNull = CopyFormat.text().withDelimiter(',').withNullString("NULL");
        assertEquals(List.of(row(1, null, "N"), row(2, "NULL", "")),
                parse(customNull, AB, bytes("NULL,\\N\n\\NULL,\n")).rowsOnly().rows());

        CopyFormat emptyNull = CopyFormat.text().withNullString("");
        assertEquals(List.of(row(1, null, "x")), parse(emptyNull, AB, bytes("\tx\n")).rowsOnly().rows());
    }

    @Test
    void textEscapesThatMakeInvalidUtf8() {
        assertError(text("\\xff\tb\n"), "22021", "invalid byte sequence for encoding \"UTF8\": 0xff", 1,
                "COPY payments, line 1: \"\\xff\tb\"");
        assertError(text("a\t\\0\n"), "22021", "invalid byte sequence for encoding \"UTF8\": 0x00", 1,
                "COPY payments, line 1: \"a\t\\0\"");
        assertError(text("ok\t1\na\tx\\xc3\n"), "22021", "invalid byte sequence for encoding \"UTF8\": 0xc3", 2,
                "COPY payments, line 2: \"a\tx\\xc3\"");
        // a NULL field is not checked
        CopyFormat xffNull = CopyFormat.text().withNullString("\\xff");
        assertEquals(List.of(row(1, null, "b")), parse(xffNull, AB, bytes("\\xff\tb\n")).rowsOnly().rows());
    }

    @Test
    void backslashNewlineIsANewlineInTheData() {
        assertEquals(List.of(row(1, "a\nb", "c")), text("a\\\nb\tc\n").rowsOnly().rows());
        assertEquals(List.of(row(1, "a\rb", "c")), text("a\\\rb\tc\r").rowsOnly().rows());
    }

    @Test
    void backslashAtTheEndOfTheDataIsDropped() {
        assertEquals(List.of(row(1, "a", "b")), text("a\tb\\").rowsOnly().rows());
        assertEquals(List.of(row(1, "")), parse(CopyFormat.text(), List.of("a"), bytes("\\")).rowsOnly().rows());
    }

    @Test
    void lastLineWithoutNewlineAndEmptyLines() {
        assertEquals(List.of(row(1, "1", "x"), row(2, "2", "y")), text("1\tx\n2\ty").rowsOnly().rows());
        assertEquals(List.of(), text("").rowsOnly().rows());
        List<String> one = List.of("a");
        assertEquals(List.of(row(1, ""), row(2, "")), parse(CopyFormat.text(), one, bytes("\n\n")).rowsOnly().rows());
        assertEquals(List.of(row(1, (String) null)), parse(CopyFormat.csv(), one, bytes("\n")).rowsOnly().rows());
        assertError(text("\n"), "22P04", "missing data for column \"b\"", 1, "COPY payments, line 1: \"\"");
    }

    @Test
    void lineEndings() {
        List<Row> expected = List.of(row(1, "a", "b"), row(2, "c", "d"));
        assertEquals(expected, text("a\tb\r\nc\td\r\n").rowsOnly().rows());
        assertEquals(expected, text("a\tb\rc\td\r").rowsOnly().rows());
        assertEquals(expected, text("a\tb\rc\td").rowsOnly().rows());
        assertEquals(expected, csv("a,b\r\nc,d").rowsOnly().rows());
        assertEquals(expected, csv("a,b\rc,d\r").rowsOnly().rows());
    }

    @Test
    void newlineStyleMustNotChange() {
        Outcome out = text("a\tb\nc\td\r\ne\tf\n");
        assertError(out, "22P04", "literal carriage return found in data", 2, "COPY payments, line 2");
        assertEquals("Use \"\\r\" to represent carriage return.", out.hint());
        assertEquals(List.of(row(1, "a", "b")), out.rows());

        out = text("a\tb\r\nc\td\n");
        assertError(out, "22P04", "literal newline found in data", 2, "COPY payments, line 2");
        assertEquals("Use \"\\n\" to represent newline.", out.hint());

        assertError(text("a\tb\rc\td\n"), "22P04", "literal newline found in data", 2, "COPY payments, line 2");
        assertError(text("a\tb\r\nc\rd\r\n"), "22P04", "literal carriage return found in data", 2,
                "COPY payments, line 2");
        // a lone \r at the very end, after \r\n lines
        assertError(text("a\tb\r\nc\td\r"), "22P04", "literal carriage return found in data", 2,
                "COPY payments, line 2");

        out = csv("a,b\nc,d\re,f\n");
        assertError(out, "22P04", "unquoted carriage return found in data", 2, "COPY payments, line 2");
        assertEquals("Use quoted CSV field to represent carriage return.", out.hint());
        out = csv("a,b\r\nc,d\n");
        assertError(out, "22P04", "unquoted newline found in data", 2, "COPY payments, line 2");
        assertEquals("Use quoted CSV field to represent newline.", out.hint());
    }

    // ---- end-of-data marker ----

    @Test
    void endMarkerEndsTheData() {
        Outcome out = parse(CopyFormat.text(), AB, bytes("1\ta\n\\.\nnot\tread\n", 0xff, "\n")).rowsOnly();
        assertEquals(List.of(row(1, "1", "a")), out.rows());
        assertTrue(out.endMarkerSeen());

        out = text("1\ta\r\n\\.\r\nignored").rowsOnly();
        assertEquals(List.of(row(1, "1", "a")), out.rows());
        out = text("1\ta\r\\.\rignored").rowsOnly();
        assertEquals(List.of(row(1, "1", "a")), out.rows());
        out = text("\\.\n").rowsOnly();
        assertEquals(List.of(), out.rows());
        assertTrue(out.endMarkerSeen());
        assertFalse(text("1\ta\n").endMarkerSeen());
    }

    @Test
    void endMarkerMustBeAloneOnItsLine() {
        assertError(text("1\ta\nfoo\\.\nbar\n"), "22P04", "end-of-copy marker is not alone on its line", 2,
                "COPY payments, line 2");
        assertError(text("1\ta\n\\.foo\n"), "22P04", "end-of-copy marker is not alone on its line", 2,
                "COPY payments, line 2");
        assertError(text("1\ta\n\\."), "22P04", "end-of-copy marker is not alone on its line", 2,
                "COPY payments, line 2");
        assertError(text("1\ta\r\n\\.x"), "22P04", "end-of-copy marker is not alone on its line", 2,
                "COPY payments, line 2");
        assertError(text("1\ta\r\n\\.\n"), "22P04", "end-of-copy marker does not match previous newline style",
                2, "COPY payments, line 2");
        assertError(text("1\ta\n\\.\r\n"), "22P04", "end-of-copy marker does not match previous newline style",
                2, "COPY payments, line 2");
        // an escaped backslash before a period is data
        assertEquals(List.of(row(1, "a\\.", "b")), text("a\\\\.\tb\n").rowsOnly().rows());
    }

    @Test
    void backslashPeriodAloneOnALineEndsCsvDataAsInPostgres15() {
        // psql before 18 sends "\." after inline CSV data; Postgres 15 (the version Coilgun reports) ends there
        Outcome out = parse(CopyFormat.csv(), List.of("a"), bytes("x\n\\.\nnot read\n")).rowsOnly();
        assertEquals(List.of(row(1, "x")), out.rows());
        assertTrue(out.endMarkerSeen());
        // anything else starting with a backslash is data
        assertEquals(List.of(row(1, "\\.", null), row(2, "x", "y")), csv("\\.,\nx,y\n").rowsOnly().rows());
        assertEquals(List.of(row(1, "\\a", "b\\.")), csv("\\a,b\\.\n").rowsOnly().rows());
        assertEquals(List.of(row(1, "\\.\n", "c")), csv("\"\\.\n\",c\n").rowsOnly().rows());
    }

    @Test
    void nothingAfterTheMarkerIsRead() {
        List<Row> rows = new ArrayList<>();
        CopyRowParser parser = new CopyRowParser(CopyFormat.text(), "t", AB,
                (line, fields) -> rows.add(new Row(line, Arrays.asList(fields))));
        parser.feed(bytes("1\t2\n\\.\n"));
        assertTrue(parser.endMarkerSeen());
        parser.feed(bytes(0xff, 0, "x\ty\tz\n"));
        parser.finish();
        assertEquals(List.of(row(1, "1", "2")), rows);
        assertEquals(1, parser.rowCount());
    }

    // ---- field counts ----

    @Test
    void fieldCountErrors() {
        Outcome out = text("1\tx\n2\ty\tz\n3\tw\n");
        assertError(out, "22P04", "extra data after last expected column", 2, "COPY payments, line 2: \"2\ty\tz\"");
        assertEquals(List.of(row(1, "1", "x")), out.rows());

        assertError(text("1\tx\n2\n"), "22P04", "missing data for column \"b\"", 2, "COPY payments, line 2: \"2\"");
        assertError(csv("1,x\n2,y,\n"), "22P04", "extra data after last expected column", 2,
                "COPY payments, line 2: \"2,y,\"");
        assertError(csv("1\n"), "22P04", "missing data for column \"b\"", 1, "COPY payments, line 1: \"1\"");
    }

    @Test
    void contextCutsLongLinesAtACharacterBoundary() {
        String line = "x".repeat(99) + "é\tb\tc";
        assertError(text(line + "\n"), "22P04", "extra data after last expected column", 1,
                "COPY payments, line 1: \"" + "x".repeat(99) + "...\"");
        line = "x".repeat(98) + "é\tb\tc";
        assertError(text(line + "\n"), "22P04", "extra data after last expected column", 1,
                "COPY payments, line 1: \"" + "x".repeat(98) + "é...\"");
    }

    @Test
    void tableWithoutColumnsTakesEmptyLines() {
        assertEquals(List.of(row(1), row(2)), parse(CopyFormat.text(), List.of(), bytes("\n\n")).rowsOnly().rows());
        assertError(parse(CopyFormat.csv(), List.of(), bytes("\nx\n")), "22P04",
                "extra data after last expected column", 2, "COPY payments, line 2: \"x\"");
    }

    // ---- header ----

    @Test
    void headerLineIsSkipped() {
        CopyFormat format = CopyFormat.csv().withHeader(Header.TRUE);
        // the header's quoted newline is on the first line, which Postgres does not count (see below)
        Outcome out = parse(format, AB, bytes("whatever,\"x\ny\",z\n1,2\n3,4")).rowsOnly();
        assertEquals(List.of(row(2, "1", "2"), row(3, "3", "4")), out.rows());
        assertEquals(List.of(), parse(format, AB, bytes("only a header")).rowsOnly().rows());
        assertEquals(List.of(), parse(format, AB, bytes("")).rowsOnly().rows());
        assertEquals(List.of(row(2, "1", "2")),
                parse(CopyFormat.text().withHeader(Header.TRUE), AB, bytes("a\tb\tc\n1\t2\n")).rowsOnly().rows());
    }

    @Test
    void headerMatch() {
        CopyFormat csv = CopyFormat.csv().withHeader(Header.MATCH);
        assertEquals(List.of(row(2, "1", "2")), parse(csv, AB, bytes("a,\"b\"\n1,2\n")).rowsOnly().rows());
        assertError(parse(csv, AB, bytes("a,x\n1,2\n")), "22P04",
                "column name mismatch in header line field 2: got \"x\", expected \"b\"", 1,
                "COPY payments, line 1: \"a,x\"");
        assertError(parse(csv, AB, bytes("a, b\n")), "22P04",
                "column name mismatch in header line field 2: got \" b\", expected \"b\"", 1,
                "COPY payments, line 1: \"a, b\"");
        assertError(parse(csv, AB, bytes("a,b,c\n")), "22P04",
                "wrong number of fields in header line: got 3, expected 2", 1, "COPY payments, line 1: \"a,b,c\"");
        assertError(parse(csv, AB, bytes(",b\n")), "22P04",
                "column name mismatch in header line field 1: got null value (\"\"), expected \"a\"", 1,
                "COPY payments, line 1: \",b\"");
        // Postgres checks the header even when there is no data at all
        assertError(parse(csv, AB, bytes("")), "22P04", "wrong number of fields in header line: got 1, expected 2",
                1, "COPY payments, line 1: \"\"");

        CopyFormat text = CopyFormat.text().withHeader(Header.MATCH);
        assertEquals(List.of(row(2, "1", "2")), parse(text, AB, bytes("a\tb\n1\t2")).rowsOnly().rows());
        assertError(parse(text, AB, bytes("a\t\\N\n")), "22P04",
                "column name mismatch in header line field 2: got null value (\"\\N\"), expected \"b\"", 1,
                "COPY payments, line 1: \"a\t\\N\"");
    }

    // ---- CSV ----

    @Test
    void csvQuoting() {
        Outcome out = csv("\"a,b\",\"say \"\"hi\"\"\"\n\"line\none\",\"two\r\nlines\"\n x , y \n").rowsOnly();
        assertEquals(List.of(
                row(1, "a,b", "say \"hi\""),
                row(4, "line\none", "two\r\nlines"),
                row(5, " x ", " y ")), out.rows());
        // quotes may cover part of a field
        assertEquals(List.of(row(1, "ab,cd", "e\"f")), csv("a\"b,c\"d,e\"\"\"f\"\n").rowsOnly().rows());
    }

    @Test
    void csvNullVersusEmpty() {
        assertEquals(List.of(row(1, null, ""), row(2, "", null)), csv(",\"\"\n\"\",\n").rowsOnly().rows());
        CopyFormat nullN = CopyFormat.csv().withNullString("N");
        assertEquals(List.of(row(1, null, "N"), row(2, "", " N")),
                parse(nullN, AB, bytes("N,\"N\"\n, N\n")).rowsOnly().rows());
    }

    @Test
    void csvEscapeOtherThanQuote() {
        CopyFormat format = CopyFormat.csv().withEscape('\\');
        Outcome out = parse(format, AB, bytes("\"a\\\"b\",\"c\\\\d\"\n\"x\\y\",\"\\\"\"\n")).rowsOnly();
        assertEquals(List.of(row(1, "a\"b", "c\\d"), row(2, "x\\y", "\"")), out.rows());
        // outside quotes the escape is an ordinary character
        assertEquals(List.of(row(1, "a\\", "b")), parse(format, AB, bytes("a\\,b\n")).rowsOnly().rows());

        CopyFormat single = CopyFormat.csv().withQuote('\'');
        assertEquals(List.of(row(1, "it's", "\"x\"")),
                parse(single, AB, bytes("'it''s',\"x\"\n")).rowsOnly().rows());
    }

    @Test
    void csvLineNumbersCountNewlinesInQuotes() {
        // After the first newline Postgres counts each quoted newline of that style as a line.
        Outcome out = csv("a,b\n\"1\n2\",\"3\n\n4\"\n5,6\n");
        assertEquals(List.of(row(1, "a", "b"), row(5, "1\n2", "3\n\n4"), row(6, "5", "6")), out.rowsOnly().rows());
        // On the first line no newline style is known yet, and only quoted \r are counted: Postgres' quirk.
        out = csv("\"1\n2\",3\n5,6\n");
        assertEquals(List.of(row(1, "1\n2", "3"), row(2, "5", "6")), out.rowsOnly().rows());
        out = csv("\"1\r\n2\",3\r\n5,6\r\n");
        assertEquals(List.of(row(2, "1\r\n2", "3"), row(3, "5", "6")), out.rowsOnly().rows());
    }

    @Test
    void unterminatedQuotedField() {
        assertError(csv("x,y\n1,\"abc\ndef"), "22P04", "unterminated CSV quoted field", 3,
                "COPY payments, line 3: \"1,\"abc\ndef\"");
        assertError(csv("1,\"abc\ndef"), "22P04", "unterminated CSV quoted field", 1,
                "COPY payments, line 1: \"1,\"abc\ndef\"");
        assertError(csv("1,\""), "22P04", "unterminated CSV quoted field", 1, "COPY payments, line 1: \"1,\"\"");
    }

    // ---- UTF-8 ----

    @Test
    void multiByteCharacters() {
        assertEquals(List.of(row(1, "é€", "𝄞")), text("é€\t𝄞\n").rowsOnly().rows());
        assertEquals(List.of(row(1, "é,€", "𝄞")), csv("\"é,€\",𝄞").rowsOnly().rows());
    }

    @Test
    void invalidUtf8IsReportedOnItsLine() {
        Outcome out = parse(CopyFormat.text(), AB, bytes("1\ta\n2\tb", 0xff, "\n3\tc\n"));
        assertError(out, "22021", "invalid byte sequence for encoding \"UTF8\": 0xff", 2, "COPY payments, line 2");
        assertEquals(List.of(row(1, "1", "a")), out.rows());

        assertError(parse(CopyFormat.text(), AB, bytes("1\ta\n", 0)), "22021",
                "invalid byte sequence for encoding \"UTF8\": 0x00", 2, "COPY payments, line 2");
        // as many bytes as the first one announces
        assertError(parse(CopyFormat.text(), AB, bytes("a", 0xe2, 0x28, 0xa1, "bc\n")), "22021",
                "invalid byte sequence for encoding \"UTF8\": 0xe2 0x28 0xa1", 1, "COPY payments, line 1");
        assertError(parse(CopyFormat.text(), AB, bytes("a", 0xc3, "\n")), "22021",
                "invalid byte sequence for encoding \"UTF8\": 0xc3 0x0a", 1, "COPY payments, line 1");
        // overlong, surrogate, beyond U+10FFFF, stray continuation byte
        assertError(parse(CopyFormat.csv(), AB, bytes(0xc0, 0x80)), "22021",
                "invalid byte sequence for encoding \"UTF8\": 0xc0 0x80", 1, "COPY payments, line 1");
        assertError(parse(CopyFormat.csv(), AB, bytes(0xed, 0xa0, 0x80)), "22021",
                "invalid byte sequence for encoding \"UTF8\": 0xed 0xa0 0x80", 1, "COPY payments, line 1");
        assertError(parse(CopyFormat.csv(), AB, bytes(0xf4, 0x90, 0x80, 0x80)), "22021",
                "invalid byte sequence for encoding \"UTF8\": 0xf4 0x90 0x80 0x80", 1, "COPY payments, line 1");
        assertError(parse(CopyFormat.csv(), AB, bytes("a,b\n", 0x80)), "22021",
                "invalid byte sequence for encoding \"UTF8\": 0x80", 2, "COPY payments, line 2");
        // a character cut short by the end of the data
        assertError(parse(CopyFormat.text(), AB, bytes("a\tb", 0xe2, 0x82)), "22021",
                "invalid byte sequence for encoding \"UTF8\": 0xe2 0x82", 1, "COPY payments, line 1");
    }

    @Test
    void invalidUtf8IsFoundBeforeTheNewlineItFollows() {
        // Postgres looks at the character after a \r before it ends the line
        Outcome out = parse(CopyFormat.text(), AB, bytes("1\ta\r", 0xff));
        assertError(out, "22021", "invalid byte sequence for encoding \"UTF8\": 0xff", 1, "COPY payments, line 1");
        assertEquals(List.of(), out.rows());
        out = parse(CopyFormat.csv(), List.of("a"), bytes("x\r\"y\r", 0xa9));
        assertError(out, "22021", "invalid byte sequence for encoding \"UTF8\": 0xa9", 2, "COPY payments, line 2");
        assertEquals(List.of(row(1, "x")), out.rows());
    }

    // ---- chunks ----

    private static final List<Object[]> CHUNK_CASES = List.of(
            new Object[] {CopyFormat.text(), bytes("1\tAlice é\n2\t\\N\n")},
            new Object[] {CopyFormat.text(), bytes("1\tAl€ce\r\n2\t\\x41\\101\\\\\r\n\\.\r\nrest")},
            new Object[] {CopyFormat.text(), bytes("1\t𝄞\r2\t\\\rx\r\\.\r")},
            new Object[] {CopyFormat.text(), bytes("a\tb\nc\td\r\n")},
            new Object[] {CopyFormat.text(), bytes("a\tb\nc\td\\.\n")},
            new Object[] {CopyFormat.text(), bytes("a\tb\n\\.")},
            new Object[] {CopyFormat.text(), bytes("a\tb\r\nc\t", 0xe2, 0x82, "\r\n")},
            new Object[] {CopyFormat.text(), bytes("a\t€\r", 0xe2, 0x82)},
            new Object[] {CopyFormat.text().withHeader(Header.MATCH), bytes("a\tb\r\n1\t2\\\r\n3\r\n")},
            new Object[] {CopyFormat.csv(), bytes("\"é,\"\"€\"\"\",\"x\r\ny\"\r\n,\"\"\r\n3,\"𝄞\n")},
            new Object[] {CopyFormat.csv(), bytes("\"a\nb\",c\n\"d\re\",f\r")},
            new Object[] {CopyFormat.csv(), bytes("a,b\rc,d\r\"e\r\",\"\"\"\"\r")},
            new Object[] {CopyFormat.csv(), bytes("1,\"unterminated\r\nrow")},
            new Object[] {CopyFormat.csv().withEscape('\\').withHeader(Header.MATCH),
                    bytes("\"a\",\"b\"\n\"\\\"q\\\\\",\"\\x\"\"\"\n")},
            new Object[] {CopyFormat.csv(), bytes("a,b\n\"x\r", 0xf0, 0x9f, 0x98, 0x80, "\",", 0xf0, 0x9f, 0x98)});

    @Test
    void everySplitGivesTheSameOutcome() {
        for (Object[] c : CHUNK_CASES) {
            CopyFormat format = (CopyFormat) c[0];
            byte[] input = (byte[]) c[1];
            Outcome whole = parse(format, AB, CopyRowParser.DEFAULT_MAX_ROW_BYTES, input);
            String name = format + " " + new String(input, StandardCharsets.ISO_8859_1);
            for (int i = 0; i <= input.length; i++) {
                assertEquals(whole, parse(format, AB, CopyRowParser.DEFAULT_MAX_ROW_BYTES, input, i),
                        name + " cut at " + i);
                for (int j = i; j <= input.length; j++) {
                    assertEquals(whole, parse(format, AB, CopyRowParser.DEFAULT_MAX_ROW_BYTES, input, i, j),
                            name + " cut at " + i + ", " + j);
                }
            }
            int[] everyByte = new int[input.length];
            Arrays.setAll(everyByte, k -> k);
            assertEquals(whole, parse(format, AB, CopyRowParser.DEFAULT_MAX_ROW_BYTES, input, everyByte),
                    name + " byte by byte");
        }
    }

    @Test
    void splitCasesCoverRowsAndErrors() {
        // the cases above are worth splitting: some give rows, some errors
        assertEquals(List.of(row(1, "1", "Alice é"), row(2, "2", null)),
                parse(CopyFormat.text(), AB, (byte[]) CHUNK_CASES.get(0)[1]).rowsOnly().rows());
        assertEquals(List.of(row(1, "1", "𝄞"), row(2, "2", "\rx")),
                parse(CopyFormat.text(), AB, (byte[]) CHUNK_CASES.get(2)[1]).rowsOnly().rows());
        Outcome out = parse(CopyFormat.csv(), AB, (byte[]) CHUNK_CASES.get(9)[1]);
        assertEquals(List.of(row(2, "é,\"€\"", "x\r\ny"), row(3, null, "")), out.rows());
        assertError(out, "22P04", "unterminated CSV quoted field", 4, "COPY payments, line 4: \"3,\"𝄞\n\"");
        assertError(parse(CopyFormat.csv(), AB, (byte[]) CHUNK_CASES.get(12)[1]), "22P04",
                "unterminated CSV quoted field", 2, "COPY payments, line 2: \"1,\"unterminated\r\nrow\"");
        assertError(parse(CopyFormat.csv(), AB, (byte[]) CHUNK_CASES.get(14)[1]), "22021",
                "invalid byte sequence for encoding \"UTF8\": 0xf0 0x9f 0x98", 2, "COPY payments, line 2");
    }

    @Test
    void rowsAreHandedOverAsTheyComplete() {
        List<Row> rows = new ArrayList<>();
        CopyRowParser parser = new CopyRowParser(CopyFormat.text(), "t", AB,
                (line, fields) -> rows.add(new Row(line, Arrays.asList(fields))));
        parser.feed(bytes("1\ta\n2\t"));
        assertEquals(List.of(row(1, "1", "a")), rows);
        byte[] padded = bytes("xxb\n3\tc");
        parser.feed(padded, 2, padded.length - 2);
        assertEquals(List.of(row(1, "1", "a"), row(2, "2", "b")), rows);
        parser.finish();
        assertEquals(List.of(row(1, "1", "a"), row(2, "2", "b"), row(3, "3", "c")), rows);
        assertEquals(3, parser.rowCount());
        assertThrows(IllegalStateException.class, () -> parser.feed(bytes("x")));
    }

    @Test
    void parserIsSpentAfterAnError() {
        CopyRowParser parser = new CopyRowParser(CopyFormat.text(), "t", AB, (line, fields) -> { });
        assertThrows(CopyFormatException.class, () -> parser.feed(bytes("1\t2\t3\n")));
        assertThrows(IllegalStateException.class, () -> parser.feed(bytes("1\t2\n")));
        assertThrows(IllegalStateException.class, parser::finish);
    }

    @Test
    void sinkCanStopTheCopy() {
        CopyRowParser parser = new CopyRowParser(CopyFormat.text(), "t", AB, (line, fields) -> {
            if (line == 2) {
                throw new IllegalArgumentException("stop");
            }
        });
        assertThrows(IllegalArgumentException.class, () -> parser.feed(bytes("1\t2\n3\t4\n5\t6\n")));
        assertThrows(IllegalStateException.class, parser::finish);
    }

    // ---- size limit ----

    @Test
    void rowSizeLimit() {
        byte[] input = bytes("0123456789abcdef\tx\n");
        assertEquals(List.of(row(1, "0123456789abcdef", "x")), parse(CopyFormat.text(), AB, 18, input).rowsOnly()
                .rows());
        Outcome out = parse(CopyFormat.text(), AB, 17, bytes("1\t2\n", "0123456789abcdef\tx\n"));
        assertError(out, "54000", "COPY row exceeds the maximum size of 17 bytes", 2, "COPY payments, line 2");
        assertEquals(List.of(row(1, "1", "2")), out.rows());
        // a quoted CSV field spanning lines counts whole
        out = parse(CopyFormat.csv(), AB, 8, bytes("a,\"1\n2\n3\n4\n5\"\n"));
        assertError(out, "54000", "COPY row exceeds the maximum size of 8 bytes", 1, "COPY payments, line 1");
    }

    @Test
    void endlessLineFailsWhileFeeding() {
        CopyRowParser parser = new CopyRowParser(CopyFormat.csv(), "t", AB, 1000, (line, fields) -> { });
        byte[] chunk = bytes("\"" + "x".repeat(99));
        CopyFormatException e = assertThrows(CopyFormatException.class, () -> {
            for (int i = 0; i < 1_000_000; i++) {
                parser.feed(chunk);
            }
        });
        assertEquals("54000", e.sqlState());
    }

    @Test
    void newlinesDoNotCountTowardsTheLimit() {
        Outcome out = parse(CopyFormat.text(), List.of("a"), 3, bytes("abc\r\nabc\r\n")).rowsOnly();
        assertEquals(List.of(row(1, "abc"), row(2, "abc")), out.rows());
    }
}
