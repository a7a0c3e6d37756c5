package io.coilgun.pgwire.copy;

import io.coilgun.pgwire.spi.SqlStates;
import java.nio.charset.StandardCharsets;

/**
 * The errors COPY FROM reports for one table, each with the CONTEXT line Postgres gives it: {@code COPY t, line 3}
 * for an error found while a line was read, {@code COPY t, line 3: "raw line"} for one found in a line already
 * read (the raw text cut to 100 bytes of whole characters, then "...").
 */
final class CopyErrors {
    /** Postgres shows at most this many bytes of a line in an error's context. */
    private static final int MAX_CONTEXT_BYTES = 100;

    private final String table;

    CopyErrors(String table) {
        this.table = table;
    }

    /** An error found while reading line {@code lineNumber}: the context has no line text. */
    CopyFormatException reading(long lineNumber, String sqlState, String message, String hint) {
        return new CopyFormatException(sqlState, message, hint, lineNumber, readingContext(lineNumber));
    }

    /** An error in line {@code lineNumber}, read already as {@code line[0, length)}: the context shows it. */
    CopyFormatException inLine(long lineNumber, byte[] line, int length, String sqlState, String message) {
        return new CopyFormatException(sqlState, message, null, lineNumber, lineContext(lineNumber, line, length));
    }

    /**
     * Bytes that are not UTF-8 (the bad character starting at {@code offset}, {@code available} bytes of it at
     * most); {@code context} is null for an error found while reading.
     */
    CopyFormatException invalidEncoding(long lineNumber, byte[] bytes, int offset, int available, String context) {
        return new CopyFormatException(SqlStates.CHARACTER_NOT_IN_REPERTOIRE,
                Utf8Check.invalidSequenceMessage(bytes, offset, available), null, lineNumber,
                context != null ? context : readingContext(lineNumber));
    }

    private String readingContext(long lineNumber) {
        return "COPY " + table + ", line " + lineNumber;
    }

    /** Postgres' context for an error in a read line: the line's raw text, cut to 100 bytes of whole characters. */
    String lineContext(long lineNumber, byte[] line, int length) {
        String text;
        if (length <= MAX_CONTEXT_BYTES) {
            text = new String(line, 0, length, StandardCharsets.UTF_8);
        } else {
            int cut = 0;
            while (cut < length) {
                int next = cut + Utf8Check.length(line[cut] & 0xff);
                if (next > MAX_CONTEXT_BYTES) {
                    break;
                }
                cut = next;
            }
            text = new String(line, 0, cut, StandardCharsets.UTF_8) + "...";
        }
        return "COPY " + table + ", line " + lineNumber + ": \"" + text + "\"";
    }
}
