package io.coilgun.pgwire.copy;

import io.coilgun.pgwire.spi.CopyFormat;
import io.coilgun.pgwire.spi.SqlStates;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Splits one line of COPY FROM data, as {@link CopyRowParser} read it (without its newline), into text fields:
 * {@link TextFieldSplitter} for the text format, {@link CsvFieldSplitter} for CSV. Reuses one buffer for the
 * de-escaped bytes; not thread-safe.
 */
abstract class FieldSplitter {
    final byte delimiter;
    final CopyErrors errors;
    private final byte[] nullBytes;
    /** De-escaped bytes of the field being split. */
    byte[] fieldBytes = new byte[64];

    FieldSplitter(CopyFormat format, CopyErrors errors) {
        this.delimiter = (byte) format.delimiter();
        this.nullBytes = format.nullString().getBytes(StandardCharsets.UTF_8);
        this.errors = errors;
    }

    /** The splitter for {@code format}'s text or CSV fields. */
    static FieldSplitter of(CopyFormat format, CopyErrors errors) {
        return format.isCsv() ? new CsvFieldSplitter(format, errors) : new TextFieldSplitter(format, errors);
    }

    /**
     * Splits {@code line[0, length)} (line {@code lineNumber}, for errors), storing the fields that fit into
     * {@code out}, null for NULL; returns how many the line has. A table without columns takes only empty lines.
     */
    final int split(byte[] line, int length, long lineNumber, String[] out) {
        if (out.length == 0) {
            if (length != 0) {
                throw errors.inLine(lineNumber, line, length, SqlStates.BAD_COPY_FILE_FORMAT,
                        "extra data after last expected column");
            }
            return 0;
        }
        if (fieldBytes.length < length) {
            fieldBytes = new byte[Math.max(length, fieldBytes.length * 2)];
        }
        return splitFields(line, length, lineNumber, out);
    }

    /** {@link #split} of a line of at most {@code fieldBytes.length} bytes into at least one column. */
    abstract int splitFields(byte[] line, int length, long lineNumber, String[] out);

    /** Whether the raw field {@code in[start, start + length)} is the NULL string. */
    final boolean isNull(byte[] in, int start, int length) {
        return length == nullBytes.length && Arrays.equals(in, start, start + length, nullBytes, 0, length);
    }
}
