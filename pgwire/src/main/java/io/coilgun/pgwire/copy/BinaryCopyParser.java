package io.coilgun.pgwire.copy;

import io.coilgun.pgwire.spi.PgType;
import io.coilgun.pgwire.spi.SqlStates;
import io.coilgun.pgwire.types.PgBinaryCodec;
import io.coilgun.pgwire.types.PgInputException;
import io.coilgun.pgwire.types.PgTextEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * {@code COPY … FROM STDIN (FORMAT binary)} data, as Postgres' binary COPY format lays it out: the signature
 * {@code PGCOPY\n\377\r\n\0}, a 32-bit flags word, a header extension (its length, then bytes, skipped); then each
 * tuple as a 16-bit field count and, per field, a 32-bit length (-1 for NULL) and the value in the column type's
 * binary format; then the trailer, a field count of -1. CopyData messages may cut it anywhere.
 *
 * <p>Each field is decoded by its column's type and handed on in the type's text form, so that a binary row is
 * checked and converted exactly as a text row is (the text forms are exact: shortest round-tripping floats,
 * timestamps to the microsecond). Rows are numbered from 1, as Postgres numbers them in its CONTEXT lines. One
 * tuple may not be larger than the limit given (54000). Not thread-safe; spent after an error.
 */
public final class BinaryCopyParser implements CopyDataParser {
    private static final byte[] SIGNATURE = "PGCOPY\n\377\r\n\0".getBytes(StandardCharsets.ISO_8859_1);
    /** Flags bit 16: each tuple carries an OID, which Postgres 12 and later refuse. */
    private static final int FLAG_OIDS = 1 << 16;

    private final String table;
    private final List<PgType> types;
    private final int maxTupleBytes;
    private final CopyRowParser.RowSink sink;

    private byte[] buffer = new byte[8192];
    private int start;
    private int end;
    private boolean headerRead;
    private boolean trailerRead;
    private boolean failed;
    private long row;

    /** @param types the binary format of each column, in the data's order */
    public BinaryCopyParser(String table, List<PgType> types, int maxTupleBytes, CopyRowParser.RowSink sink) {
        this.table = table;
        this.types = List.copyOf(types);
        this.maxTupleBytes = maxTupleBytes;
        this.sink = sink;
    }

    @Override
    public void feed(byte[] chunk) {
        if (failed) {
            throw new IllegalStateException("COPY parser failed earlier");
        }
        try {
            append(chunk);
            parse();
        } catch (RuntimeException e) {
            failed = true;
            throw e;
        }
    }

    @Override
    public void finish() {
        if (failed) {
            throw new IllegalStateException("COPY parser failed earlier");
        }
        if (!trailerRead && (end > start || !headerRead)) {
            failed = true;
            throw error(headerRead ? "unexpected EOF in COPY data" : "COPY file signature not recognized");
        }
    }

    private void append(byte[] chunk) {
        if (end + chunk.length > buffer.length) {
            int live = end - start;
            if (live + chunk.length > buffer.length) {
                buffer = Arrays.copyOf(buffer, Math.max(buffer.length * 2, live + chunk.length));
            }
            System.arraycopy(buffer, start, buffer, 0, live);
            start = 0;
            end = live;
        }
        System.arraycopy(chunk, 0, buffer, end, chunk.length);
        end += chunk.length;
    }

    private void parse() {
        if (!headerRead && !header()) {
            return;
        }
        while (end > start) {
            if (trailerRead) {
                throw error("received copy data after EOF marker");
            }
            if (!tuple()) {
                return;
            }
        }
    }

    /** Reads the header if all of it is here. */
    private boolean header() {
        int fixed = SIGNATURE.length + 8;
        if (end - start < fixed) {
            checkSignature(end - start);
            return false;
        }
        checkSignature(SIGNATURE.length);
        int flags = int32(start + SIGNATURE.length);
        if ((flags & FLAG_OIDS) != 0) {
            throw error("invalid COPY file header (WITH OIDS)");
        }
        if ((flags & 0xFFFF0000 & ~FLAG_OIDS) != 0) {
            throw error("unrecognized critical flags in COPY file header");
        }
        int extension = int32(start + SIGNATURE.length + 4);
        if (extension < 0) {
            throw error("invalid COPY file header (missing length)");
        }
        if (end - start < fixed + extension) {
            return false;
        }
        start += fixed + extension;
        headerRead = true;
        return true;
    }

    private void checkSignature(int available) {
        for (int i = 0; i < Math.min(available, SIGNATURE.length); i++) {
            if (buffer[start + i] != SIGNATURE[i]) {
                throw error("COPY file signature not recognized");
            }
        }
    }

    /** Reads one tuple (or the trailer) if all of it is here. */
    private boolean tuple() {
        if (end - start < 2) {
            return false;
        }
        short count = (short) (((buffer[start] & 0xFF) << 8) | (buffer[start + 1] & 0xFF));
        if (count == -1) {
            start += 2;
            trailerRead = true;
            return true;
        }
        if (count != types.size()) {
            throw error("row field count is " + count + ", expected " + types.size(), row + 1);
        }
        int at = start + 2;
        for (int f = 0; f < count; f++) {
            if (end - at < 4) {
                checkSize(at - start + 4);
                return false;
            }
            int length = int32(at);
            at += 4 + Math.max(length, 0);
            checkSize(at - start);
            if (length < -1) {
                throw error("invalid field size", row + 1);
            }
            if (at > end) {
                return false;
            }
        }
        row++;
        String[] fields = new String[count];
        at = start + 2;
        for (int f = 0; f < count; f++) {
            int length = int32(at);
            at += 4;
            if (length >= 0) {
                fields[f] = text(f, at, length);
                at += length;
            }
        }
        start = at;
        sink.row(row, fields);
        return true;
    }

    private String text(int column, int offset, int length) {
        PgType type = types.get(column);
        try {
            return PgTextEncoder.encode(type, PgBinaryCodec.decode(type, buffer, offset, length));
        } catch (PgInputException e) {
            throw new CopyFormatException(e.sqlState(), e.getMessage(), null, row, context(row) + ", column "
                    + (column + 1));
        } catch (IllegalArgumentException e) {
            throw new CopyFormatException(SqlStates.FEATURE_NOT_SUPPORTED, "COPY in binary format does not support "
                    + "type " + type.name().toLowerCase(Locale.ROOT), null, row, context(row));
        }
    }

    private void checkSize(int tupleBytes) {
        if (tupleBytes > maxTupleBytes) {
            throw new CopyFormatException(SqlStates.PROGRAM_LIMIT_EXCEEDED, "a COPY row is larger than " + maxTupleBytes + " bytes", null,
                    row + 1, context(row + 1));
        }
    }

    private int int32(int at) {
        return ((buffer[at] & 0xFF) << 24) | ((buffer[at + 1] & 0xFF) << 16) | ((buffer[at + 2] & 0xFF) << 8)
                | (buffer[at + 3] & 0xFF);
    }

    private CopyFormatException error(String message) {
        return error(message, Math.max(row, 1));
    }

    private CopyFormatException error(String message, long line) {
        return new CopyFormatException(SqlStates.BAD_COPY_FILE_FORMAT, message, null, line, context(line));
    }

    private String context(long line) {
        return "COPY " + table + ", line " + line;
    }
}
