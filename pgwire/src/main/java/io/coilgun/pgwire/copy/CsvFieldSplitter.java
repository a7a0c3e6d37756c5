package io.coilgun.pgwire.copy;

import io.coilgun.pgwire.spi.CopyFormat;
import io.coilgun.pgwire.spi.SqlStates;
import java.nio.charset.StandardCharsets;

/**
 * The fields of a CSV COPY line, as Postgres' CopyReadAttributesCSV splits them: quoted parts (the quote doubled,
 * or escaped by the escape byte, inside) may hold delimiters and newlines; an unquoted field equal to the NULL
 * string (empty by default) is NULL, a quoted one never is.
 */
final class CsvFieldSplitter extends FieldSplitter {
    private final byte quote;
    /** The escape byte inside quotes (may equal the quote). */
    private final byte escape;

    CsvFieldSplitter(CopyFormat format, CopyErrors errors) {
        super(format, errors);
        this.quote = (byte) format.quote();
        this.escape = (byte) format.escape();
    }

    @Override
    int splitFields(byte[] in, int end, long lineNumber, String[] out) {
        byte[] field = fieldBytes;
        int cur = 0;
        int count = 0;
        while (true) {
            boolean foundDelimiter = false;
            boolean sawQuote = false;
            int start = cur;
            int rawEnd;
            int n = 0;
            fieldLoop:
            while (true) {
                while (true) { // not in quotes
                    rawEnd = cur;
                    if (cur >= end) {
                        break fieldLoop;
                    }
                    byte c = in[cur++];
                    if (c == delimiter) {
                        foundDelimiter = true;
                        break fieldLoop;
                    }
                    if (c == quote) {
                        sawQuote = true;
                        break;
                    }
                    field[n++] = c;
                }
                while (true) { // in quotes
                    rawEnd = cur;
                    if (cur >= end) {
                        throw errors.inLine(lineNumber, in, end, SqlStates.BAD_COPY_FILE_FORMAT,
                                "unterminated CSV quoted field");
                    }
                    byte c = in[cur++];
                    if (c == escape && cur < end && (in[cur] == escape || in[cur] == quote)) {
                        field[n++] = in[cur++];
                        continue;
                    }
                    if (c == quote) {
                        break;
                    }
                    field[n++] = c;
                }
            }
            if (count < out.length) {
                out[count] = !sawQuote && isNull(in, start, rawEnd - start)
                        ? null
                        : new String(field, 0, n, StandardCharsets.UTF_8);
            }
            count++;
            if (!foundDelimiter) {
                return count;
            }
        }
    }
}
