package io.coilgun.pgwire.spi;

import java.util.Objects;

/**
 * The options of a text-format {@code COPY ... FROM STDIN} that decide how its bytes split into rows and fields:
 * FORMAT (text or csv), DELIMITER, NULL, HEADER, QUOTE and ESCAPE, with Postgres' defaults and the checks its
 * {@code ProcessCopyOptions} makes (https://www.postgresql.org/docs/current/sql-copy.html). Immutable.
 *
 * <p>FORCE_NOT_NULL, FORCE_NULL, DEFAULT and ENCODING are not supported.
 */
public final class CopyFormat {
    /** The data format: Postgres' text format, CSV, or its binary format (rows of typed fields, no options). */
    public enum Format { TEXT, CSV, BINARY }

    /** HEADER: none, a first line that is skipped, or a first line that must name the columns in order. */
    public enum Header { FALSE, TRUE, MATCH }


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
     * {@link PgException} with Postgres' SQLSTATE and message, checking in Postgres' order, when Postgres would
     * reject the options (a QUOTE or ESCAPE with the text format, a delimiter that is not one single-byte
     * character, the delimiter inside the NULL string, ...).
     */
    public static CopyFormat of(Format format, String delimiter, String nullString, Header header, String quote,
            String escape) {
        Objects.requireNonNull(format, "format");
        if (format == Format.BINARY) {
            for (String[] option : new String[][] {{"DELIMITER", delimiter}, {"NULL", nullString},
                {"HEADER", header == null || header == Header.FALSE ? null : header.name()}}) {
                if (option[1] != null) {
                    throw new PgException(SqlStates.SYNTAX_ERROR, "cannot specify " + option[0] + " in BINARY mode");
                }
            }
            if (quote != null) {
                throw new PgException(SqlStates.FEATURE_NOT_SUPPORTED, "COPY QUOTE requires CSV mode");
            }
            if (escape != null) {
                throw new PgException(SqlStates.FEATURE_NOT_SUPPORTED, "COPY ESCAPE requires CSV mode");
            }
            return new CopyFormat(format, '\t', "\\N", Header.FALSE, '"', null);
        }
        boolean csv = format == Format.CSV;
        String delim = delimiter != null ? delimiter : csv ? "," : "\t";
        String nul = nullString != null ? nullString : csv ? "" : "\\N";
        String quo = quote != null ? quote : "\"";
        String esc = escape != null ? escape : quo;

        if (!singleByte(delim)) {
            throw new PgException(SqlStates.FEATURE_NOT_SUPPORTED, "COPY delimiter must be a single one-byte character");
        }
        char d = delim.charAt(0);
        if (d == '\r' || d == '\n') {
            throw new PgException(SqlStates.INVALID_PARAMETER_VALUE, "COPY delimiter cannot be newline or carriage return");
        }
        if (nul.indexOf('\r') >= 0 || nul.indexOf('\n') >= 0) {
            throw new PgException(SqlStates.INVALID_PARAMETER_VALUE,
                    "COPY null representation cannot use newline or carriage return");
        }
        if (!csv && UNSAFE_TEXT_DELIMITERS.indexOf(d) >= 0) {
            throw new PgException(SqlStates.INVALID_PARAMETER_VALUE, "COPY delimiter cannot be \"" + d + "\"");
        }
        if (!csv && quote != null) {
            throw new PgException(SqlStates.FEATURE_NOT_SUPPORTED, "COPY QUOTE requires CSV mode");
        }
        if (csv && !singleByte(quo)) {
            throw new PgException(SqlStates.FEATURE_NOT_SUPPORTED, "COPY quote must be a single one-byte character");
        }
        if (csv && d == quo.charAt(0)) {
            throw new PgException(SqlStates.INVALID_PARAMETER_VALUE, "COPY delimiter and quote must be different");
        }
        if (!csv && escape != null) {
            throw new PgException(SqlStates.FEATURE_NOT_SUPPORTED, "COPY ESCAPE requires CSV mode");
        }
        if (csv && !singleByte(esc)) {
            throw new PgException(SqlStates.FEATURE_NOT_SUPPORTED, "COPY escape must be a single one-byte character");
        }
        if (nul.indexOf(d) >= 0) {
            throw new PgException(SqlStates.INVALID_PARAMETER_VALUE,
                    "COPY delimiter character must not appear in the NULL specification");
        }
        if (csv && nul.indexOf(quo.charAt(0)) >= 0) {
            throw new PgException(SqlStates.INVALID_PARAMETER_VALUE,
                    "CSV quote character must not appear in the NULL specification");
        }
        return new CopyFormat(format, d, nul, header != null ? header : Header.FALSE, quo.charAt(0),
                escape != null ? esc.charAt(0) : null);
    }

    public CopyFormat withDelimiter(char delimiter) {
        return with(String.valueOf(delimiter), nullString, header, quoteOption(), escapeOption());
    }

    public CopyFormat withNullString(String nullString) {
        return with(String.valueOf(delimiter), Objects.requireNonNull(nullString, "nullString"), header,
                quoteOption(), escapeOption());
    }

    public CopyFormat withHeader(Header header) {
        return with(String.valueOf(delimiter), nullString, Objects.requireNonNull(header, "header"), quoteOption(),
                escapeOption());
    }

    /** Another QUOTE (CSV only); an ESCAPE not given explicitly follows it. */
    public CopyFormat withQuote(char quote) {
        return with(String.valueOf(delimiter), nullString, header, String.valueOf(quote), escapeOption());
    }

    /** Another ESCAPE (CSV only). */
    public CopyFormat withEscape(char escape) {
        return with(String.valueOf(delimiter), nullString, header, quoteOption(), String.valueOf(escape));
    }

    private CopyFormat with(String delimiter, String nullString, Header header, String quote, String escape) {
        return of(format, delimiter, nullString, header, quote, escape);
    }

    private String quoteOption() {
        return format == Format.CSV ? String.valueOf(quote) : null;
    }

    private String escapeOption() {
        return escape != null ? String.valueOf(escape.charValue()) : null;
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

    /** One character that is one byte in UTF-8, as Postgres' {@code strlen(...) == 1}. */
    private static boolean singleByte(String value) {
        return value.length() == 1 && value.charAt(0) != 0 && value.charAt(0) < 0x80;
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
