package io.coilgun.pgwire.copy;

import io.coilgun.pgwire.spi.CopyFormat;
import java.nio.charset.StandardCharsets;

/**
 * The fields of a text-format COPY line, as Postgres' CopyReadAttributesText splits them: fields end at the
 * delimiter; backslash escapes {@code \b \f \n \r \t \v \\}, {@code \}1-3 octal digits, {@code \x}1-2 hex digits,
 * any other {@code \c} is c; a field whose raw text equals the NULL string ({@code \N}) is NULL. Bytes made by an
 * octal or hex escape must still be UTF-8 (22021).
 */
final class TextFieldSplitter extends FieldSplitter {

    TextFieldSplitter(CopyFormat format, CopyErrors errors) {
        super(format, errors);
    }

    @Override
    int splitFields(byte[] in, int end, long lineNumber, String[] out) {
        byte[] field = fieldBytes;
        int cur = 0;
        int count = 0;
        while (true) {
            boolean foundDelimiter = false;
            boolean sawNonAscii = false;
            int start = cur;
            int rawEnd;
            int n = 0;
            while (true) {
                rawEnd = cur;
                if (cur >= end) {
                    break;
                }
                int c = in[cur++] & 0xff;
                if (c == delimiter) {
                    foundDelimiter = true;
                    break;
                }
                if (c == '\\') {
                    if (cur >= end) {
                        break;
                    }
                    c = in[cur++] & 0xff;
                    switch (c) {
                        case '0', '1', '2', '3', '4', '5', '6', '7' -> {
                            int value = c - '0';
                            if (cur < end && isOctal(in[cur])) {
                                value = (value << 3) + (in[cur++] - '0');
                                if (cur < end && isOctal(in[cur])) {
                                    value = (value << 3) + (in[cur++] - '0');
                                }
                            }
                            c = value & 0xff;
                            sawNonAscii |= c == 0 || c >= 0x80;
                        }
                        case 'x' -> {
                            if (cur < end && hexValue(in[cur]) >= 0) {
                                int value = hexValue(in[cur++]);
                                if (cur < end && hexValue(in[cur]) >= 0) {
                                    value = (value << 4) + hexValue(in[cur++]);
                                }
                                c = value & 0xff;
                                sawNonAscii |= c == 0 || c >= 0x80;
                            }
                        }
                        case 'b' -> c = '\b';
                        case 'f' -> c = '\f';
                        case 'n' -> c = '\n';
                        case 'r' -> c = '\r';
                        case 't' -> c = '\t';
                        case 'v' -> c = 0x0b;
                        default -> {
                            // any other character stands for itself
                        }
                    }
                }
                field[n++] = (byte) c;
            }
            String value;
            if (isNull(in, start, rawEnd - start)) {
                value = null;
            } else {
                if (sawNonAscii) {
                    int valid = Utf8Check.validPrefix(field, 0, n);
                    if (valid != n) {
                        throw errors.invalidEncoding(lineNumber, field, valid, n - valid,
                                errors.lineContext(lineNumber, in, end));
                    }
                }
                value = count < out.length ? new String(field, 0, n, StandardCharsets.UTF_8) : null;
            }
            if (count < out.length) {
                out[count] = value;
            }
            count++;
            if (!foundDelimiter) {
                return count;
            }
        }
    }

    private static boolean isOctal(byte b) {
        return b >= '0' && b <= '7';
    }

    private static int hexValue(byte b) {
        if (b >= '0' && b <= '9') {
            return b - '0';
        }
        if (b >= 'a' && b <= 'f') {
            return b - 'a' + 10;
        }
        if (b >= 'A' && b <= 'F') {
            return b - 'A' + 10;
        }
        return -1;
    }
}
