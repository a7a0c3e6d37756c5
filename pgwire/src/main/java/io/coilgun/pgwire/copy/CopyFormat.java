package io.coilgun.pgwire.copy;

import io.coilgun.pgwire.spi.PgException;
import java.util.Objects;

/**
 * The options of a text-format {@code COPY ... FROM STDIN} that decide how its bytes split into rows and fields:
 * FORMAT (text or csv), DELIMITER, NULL, HEADER, QUOTE and ESCAPE, with Postgres' defaults and the checks its
 * {@code ProcessCopyOptions} makes (https://www.postgresql.org/docs/current/sql-copy.html). Immutable.
 *
 * <p>FORCE_NOT_NULL, FORCE_NULL, DEFAULT, ENCODING and the binary format are not supported.
 */
public final class CopyFormat {
    /** The data format: Postgres' text format or CSV. */
    public enum Format { TEXT, CSV }

    /** HEADER: none, a first line that is skipped, or a first line that must name the columns in order. */
    public enum Header { FALSE, TRUE, MATCH }

    static final String FEATURE_NOT_SUPPORTED = "0A000";
    static final String INVALID_PARAMETER_VALUE = "22023";

    /** Characters Postgres does not allow as the text format's delimiter (they mean something after a backslash). */
    private static final String UNSAFE_TEXT_DELIMITERS = "\\.abcdefghijklmnopqrstuvwxyz0123456789";

    private final Format format;
    private final char delimiter;
    private final String nullString;
    private final Header header;
    private final char quote;
    /** The ESCAPE given, or null when it defaults to the quote. */
    private final Character escape;

    private CopyFormat(Format format, char delimiter, String nullString, Header header, char quote,
            Character escape) {
        this.format = format;
        this.delimiter = delimiter;
        this.nullString = nullString;
        this.header = header;
        this.quote = quote;
        this.escape = escape;
    }

    /** The text format's defaults: tab delimiter, {@code \N} for NULL, no header. */
    public static CopyFormat text() {
        return of(Format.TEXT, null, null, null, null, null);
    }

    /** The CSV format's defaults: comma delimiter, unquoted empty string for NULL, {@code "} as quote and escape. */
    public static CopyFormat csv() {
        return of(Format.CSV, null, null, null, null, null);
    }

    /**
     * The options as written in a COPY statement; a null argument takes Postgres' default. Throws a
     * {@link PgException} with Postgres' SQLSTATE and message when Postgres would reject the combination (for
     * instance a QUOTE with the text format, or a delimiter that is not one single-byte character).
     */
    public static CopyFormat of(Format format, String delimiter, String nullString, Header header, String quote,
            String escape) {
        Objects.requireNonNull(format, "format");
        boolean csv = format == Format.CSV;
        char delim = delimiter == null ? (csv ? ',' : '\t')
                : singleByte(delimiter, "COPY delimiter must be a single one-byte character");
        String nul = nullString == null ? (csv ? "" : "\\N") : nullString;
        if (!csv && quote != null) {
            throw new PgException(FEATURE_NOT_SUPPORTED, "COPY QUOTE requires CSV mode");
        }
        if (!csv && escape != null) {
            throw new PgException(FEATURE_NOT_SUPPORTED, "COPY ESCAPE requires CSV mode");
        }
        char quo = quote == null ? '"' : singleByte(quote, "COPY quote must be a single one-byte character");
        Character esc = escape == null ? null
                : singleByte(escape, "COPY escape must be a single one-byte character");
        return new CopyFormat(format, delim, nul, header == null ? Header.FALSE : header, quo, esc).validated();
    }

    public CopyFormat withDelimiter(char delimiter) {
        return new CopyFormat(format, delimiter, nullString, header, quote, escape).validated();
    }

    public CopyFormat withNullString(String nullString) {
        Objects.requireNonNull(nullString, "nullString");
        return new CopyFormat(format, delimiter, nullString, header, quote, escape).validated();
    }

    public CopyFormat withHeader(Header header) {
        Objects.requireNonNull(header, "header");
        return new CopyFormat(format, delimiter, nullString, header, quote, escape).validated();
    }

    /** Another QUOTE (CSV only); an ESCAPE not given explicitly follows it. */
    public CopyFormat withQuote(char quote) {
        requireCsv("QUOTE");
        return new CopyFormat(format, delimiter, nullString, header, quote, escape).validated();
    }

    /** Another ESCAPE (CSV only). */
    public CopyFormat withEscape(char escape) {
        requireCsv("ESCAPE");
        return new CopyFormat(format, delimiter, nullString, header, quote, escape).validated();
    }

    public Format format() {
        return format;
    }

    public boolean isCsv() {
        return format == Format.CSV;
    }

    public char delimiter() {
        return delimiter;
    }

    /** The NULL string, compared with a field's raw (not yet de-escaped, unquoted) text. */
    public String nullString() {
        return nullString;
    }

    public Header header() {
        return header;
    }

    /** The CSV quote character (meaningless for the text format). */
    public char quote() {
        return quote;
    }

    /** The CSV escape character: the one given, else the quote (meaningless for the text format). */
    public char escape() {
        return escape != null ? escape : quote;
    }

    private void requireCsv(String option) {
        if (format != Format.CSV) {
            throw new PgException(FEATURE_NOT_SUPPORTED, "COPY " + option + " requires CSV mode");
        }
    }

    private static char singleByte(String value, String message) {
        if (value.length() != 1 || value.charAt(0) >= 0x80) {
            throw new PgException(FEATURE_NOT_SUPPORTED, message);
        }
        return value.charAt(0);
    }

    /** Postgres' ProcessCopyOptions checks, in its order. */
    private CopyFormat validated() {
        if (delimiter >= 0x80) {
            throw new PgException(FEATURE_NOT_SUPPORTED, "COPY delimiter must be a single one-byte character");
        }
        if (delimiter == '\r' || delimiter == '\n') {
            throw new PgException(INVALID_PARAMETER_VALUE, "COPY delimiter cannot be newline or carriage return");
        }
        if (nullString.indexOf('\r') >= 0 || nullString.indexOf('\n') >= 0) {
            throw new PgException(INVALID_PARAMETER_VALUE,
                    "COPY null representation cannot use newline or carriage return");
        }
        if (format == Format.TEXT && UNSAFE_TEXT_DELIMITERS.indexOf(delimiter) >= 0) {
            throw new PgException(INVALID_PARAMETER_VALUE, "COPY delimiter cannot be \"" + delimiter + "\"");
        }
        if (format == Format.CSV) {
            if (quote >= 0x80) {
                throw new PgException(FEATURE_NOT_SUPPORTED, "COPY quote must be a single one-byte character");
            }
            if (delimiter == quote) {
                throw new PgException(INVALID_PARAMETER_VALUE, "COPY delimiter and quote must be different");
            }
            if (escape() >= 0x80) {
                throw new PgException(FEATURE_NOT_SUPPORTED, "COPY escape must be a single one-byte character");
            }
        }
        if (nullString.indexOf(delimiter) >= 0) {
            throw new PgException(INVALID_PARAMETER_VALUE,
                    "COPY delimiter character must not appear in the NULL specification");
        }
        if (format == Format.CSV && nullString.indexOf(quote) >= 0) {
            throw new PgException(INVALID_PARAMETER_VALUE,
                    "CSV quote character must not appear in the NULL specification");
        }
        return this;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof CopyFormat f && format == f.format && delimiter == f.delimiter
                && nullString.equals(f.nullString) && header == f.header
                && (format == Format.TEXT || (quote == f.quote && escape() == f.escape()));
    }

    @Override
    public int hashCode() {
        return Objects.hash(format, delimiter, nullString, header,
                format == Format.CSV ? quote : 0, format == Format.CSV ? escape() : 0);
    }

    @Override
    public String toString() {
        StringBuilder s = new StringBuilder("CopyFormat[").append(format)
                .append(", delimiter=").append(printable(delimiter))
                .append(", null=\"").append(nullString).append('"')
                .append(", header=").append(header);
        if (format == Format.CSV) {
            s.append(", quote=").append(printable(quote)).append(", escape=").append(printable(escape()));
        }
        return s.append(']').toString();
    }

    private static String printable(char c) {
        return c == '\t' ? "\\t" : String.valueOf(c);
    }
}
