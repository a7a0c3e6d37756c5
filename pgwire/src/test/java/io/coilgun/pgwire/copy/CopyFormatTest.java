package io.coilgun.pgwire.copy;

import io.coilgun.pgwire.spi.CopyFormat;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coilgun.pgwire.spi.CopyFormat.Format;
import io.coilgun.pgwire.spi.CopyFormat.Header;
import io.coilgun.pgwire.spi.PgException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/** COPY options: Postgres' defaults and the combinations it rejects, with its SQLSTATEs and messages. */
class CopyFormatTest {
    @Test
    void textDefaults() {
        CopyFormat text = CopyFormat.text();
        assertEquals(Format.TEXT, text.format());
        assertFalse(text.isCsv());
        assertEquals('\t', text.delimiter());
        assertEquals("\\N", text.nullString());
        assertEquals(Header.FALSE, text.header());
        assertEquals(text, CopyFormat.of(Format.TEXT, "\t", "\\N", Header.FALSE, null, null));
    }

    @Test
    void csvDefaults() {
        CopyFormat csv = CopyFormat.csv();
        assertTrue(csv.isCsv());
        assertEquals(',', csv.delimiter());
        assertEquals("", csv.nullString());
        assertEquals('"', csv.quote());
        assertEquals('"', csv.escape());
        assertEquals(Header.FALSE, csv.header());
    }

    @Test
    void escapeFollowsTheQuoteUnlessGiven() {
        assertEquals('\'', CopyFormat.csv().withQuote('\'').escape());
        assertEquals('\\', CopyFormat.csv().withEscape('\\').withQuote('\'').escape());
        assertEquals('\'', CopyFormat.of(Format.CSV, null, null, null, "'", null).escape());
        CopyFormat all = CopyFormat.of(Format.CSV, ";", "NULL", Header.MATCH, "'", "\\");
        assertEquals(';', all.delimiter());
        assertEquals("NULL", all.nullString());
        assertEquals(Header.MATCH, all.header());
        assertEquals('\'', all.quote());
        assertEquals('\\', all.escape());
    }

    private static void rejected(String sqlState, String message, Executable options) {
        PgException e = assertThrows(PgException.class, options);
        assertEquals(message, e.getMessage());
        assertEquals(sqlState, e.sqlState());
    }

    @Test
    void rejectedLikePostgres() {
        rejected("0A000", "COPY delimiter must be a single one-byte character",
                () -> CopyFormat.of(Format.TEXT, "||", null, null, null, null));
        rejected("0A000", "COPY delimiter must be a single one-byte character",
                () -> CopyFormat.of(Format.CSV, "é", null, null, null, null));
        rejected("0A000", "COPY delimiter must be a single one-byte character",
                () -> CopyFormat.of(Format.CSV, "", null, null, null, null));
        rejected("22023", "COPY delimiter cannot be newline or carriage return",
                () -> CopyFormat.csv().withDelimiter('\n'));
        rejected("22023", "COPY null representation cannot use newline or carriage return",
                () -> CopyFormat.text().withNullString("a\rb"));
        rejected("22023", "COPY delimiter cannot be \"\\\"", () -> CopyFormat.text().withDelimiter('\\'));
        rejected("22023", "COPY delimiter cannot be \"a\"", () -> CopyFormat.text().withDelimiter('a'));
        rejected("22023", "COPY delimiter cannot be \"7\"", () -> CopyFormat.text().withDelimiter('7'));
        rejected("0A000", "COPY QUOTE requires CSV mode", () -> CopyFormat.text().withQuote('\''));
        rejected("0A000", "COPY ESCAPE requires CSV mode",
                () -> CopyFormat.of(Format.TEXT, null, null, null, null, "\\"));
        rejected("0A000", "COPY quote must be a single one-byte character",
                () -> CopyFormat.of(Format.CSV, null, null, null, "''", null));
        rejected("22023", "COPY delimiter and quote must be different", () -> CopyFormat.csv().withDelimiter('"'));
        rejected("0A000", "COPY escape must be a single one-byte character",
                () -> CopyFormat.of(Format.CSV, null, null, null, null, "€"));
        rejected("22023", "COPY delimiter character must not appear in the NULL specification",
                () -> CopyFormat.csv().withNullString("a,b"));
        rejected("22023", "CSV quote character must not appear in the NULL specification",
                () -> CopyFormat.csv().withNullString("\"\""));
    }

    @Test
    void csvAllowsWhatTextForbids() {
        assertEquals('a', CopyFormat.csv().withDelimiter('a').delimiter());
        assertEquals('\\', CopyFormat.csv().withDelimiter('\\').delimiter());
    }
}
