package io.coilgun.pgwire.protocol;

import io.coilgun.pgwire.spi.SqlStates;
import io.coilgun.pgwire.codec.BackendMessage.DataRow;
import io.coilgun.pgwire.spi.Column;
import io.coilgun.pgwire.spi.PgException;
import io.coilgun.pgwire.spi.PgType;
import io.coilgun.pgwire.types.PgBinaryCodec;
import io.coilgun.pgwire.types.PgInputException;
import io.coilgun.pgwire.types.PgTextDecoder;
import io.coilgun.pgwire.types.PgTextEncoder;
import java.nio.charset.StandardCharsets;
import java.util.List;

/** Values on the wire in either format: format code 0 is text, 1 is binary (protocol "format codes"). */
final class WireValues {
    static final short TEXT = 0;
    static final short BINARY = 1;
    /** A format list meaning "all text", as the simple query protocol sends. */
    static final short[] ALL_TEXT = new short[0];

    private WireValues() {
    }

    /** The format code of item {@code index} of {@code count}, from a Bind format list (empty, one, or one each). */
    static short format(short[] formats, int index) {
        if (formats.length == 0) {
            return TEXT;
        }
        return formats.length == 1 ? formats[0] : formats[index];
    }

    /** Checks a Bind format list against the number of items it describes. */
    static void checkFormats(short[] formats, int count, String what) {
        if (formats.length > 1 && formats.length != count) {
            throw new PgException(SqlStates.PROTOCOL_VIOLATION, "bind message has " + formats.length + " "
                    + what + " formats but " + count + " " + what + "s");
        }
        for (short f : formats) {
            if (f != TEXT && f != BINARY) {
                throw new PgException(SqlStates.PROTOCOL_VIOLATION, "unsupported format code: " + f);
            }
        }
    }

    /** A row of a result, each value encoded in its column's format ({@link #format}). */
    static DataRow dataRow(List<Column> columns, Object[] row, short[] formats) {
        if (row == null || row.length != columns.size()) {
            throw new IllegalStateException("row has " + (row == null ? 0 : row.length) + " values for "
                    + columns.size() + " columns");
        }
        byte[][] values = new byte[row.length][];
        for (int i = 0; i < row.length; i++) {
            values[i] = encode(columns.get(i).type(), row[i], format(formats, i));
        }
        return new DataRow(values);
    }

    /** A result value in the wanted format; null stays null (SQL NULL). */
    static byte[] encode(PgType type, Object value, short format) {
        if (value == null) {
            return null;
        }
        if (format == BINARY && type != PgType.UNKNOWN) {
            return PgBinaryCodec.encode(type, value);
        }
        return type == PgType.UNKNOWN ? value.toString().getBytes(StandardCharsets.UTF_8)
                : PgTextEncoder.encodeUtf8(type, value);
    }

    /**
     * Parameter {@code $n} (1-based) of a Bind as a Java value of {@code type}; a parameter of type UNKNOWN is
     * handed over as its text.
     *
     * @throws PgException with Postgres' SQLSTATE (22P02, 22003, 22007, 22P03, ...) when the value does not read
     */
    static Object decodeParameter(int n, PgType type, byte[] bytes, short format) {
        if (bytes == null) {
            return null;
        }
        try {
            if (format == BINARY) {
                if (type == PgType.UNKNOWN || type == PgType.TEXT || type == PgType.VARCHAR) {
                    return new String(bytes, StandardCharsets.UTF_8);
                }
                return PgBinaryCodec.decode(type, bytes);
            }
            String text = new String(bytes, StandardCharsets.UTF_8);
            return type == PgType.UNKNOWN ? text : PgTextDecoder.decode(type, text);
        } catch (PgInputException e) {
            throw new PgException(e.sqlState(), e.getMessage() + (format == BINARY
                    ? " (in binary bind parameter $" + n + ")" : " (parameter $" + n + ")"));
        } catch (IllegalArgumentException e) {
            throw new PgException(format == BINARY ? SqlStates.INVALID_BINARY_REPRESENTATION : SqlStates.INVALID_TEXT_REPRESENTATION,
                    (format == BINARY ? "incorrect binary data format in bind parameter " : "invalid bind parameter ")
                    + n + ": " + e.getMessage());
        }
    }
}
