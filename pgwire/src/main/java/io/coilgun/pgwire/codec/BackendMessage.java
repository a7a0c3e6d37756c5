package io.coilgun.pgwire.codec;

import io.coilgun.pgwire.spi.Column;
import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Messages to the client. Each knows its type byte and writes its body; {@link BackendMessageEncoder} adds
 * the {@code Byte1 type, Int32 length} header. Names and layouts follow
 * https://www.postgresql.org/docs/current/protocol-message-formats.html.
 */
public interface BackendMessage {

    /** The message type byte. */
    char type();

    /** Writes the body (everything after the length field). */
    void writeBody(ByteBuf out);

    /** AuthenticationOk ('R', 0). */
    enum AuthenticationOk implements BackendMessage {
        INSTANCE;

        @Override
        public char type() {
            return 'R';
        }

        @Override
        public void writeBody(ByteBuf out) {
            out.writeInt(0);
        }
    }

    /** ParameterStatus ('S'): a run-time parameter's current value. */
    record ParameterStatus(String name, String value) implements BackendMessage {
        @Override
        public char type() {
            return 'S';
        }

        @Override
        public void writeBody(ByteBuf out) {
            writeCString(out, name);
            writeCString(out, value);
        }
    }

    /** BackendKeyData ('K'): the process id and secret a CancelRequest must quote. */
    record BackendKeyData(int processId, int secretKey) implements BackendMessage {
        @Override
        public char type() {
            return 'K';
        }

        @Override
        public void writeBody(ByteBuf out) {
            out.writeInt(processId);
            out.writeInt(secretKey);
        }
    }

    /**
     * NegotiateProtocolVersion ('v'): the newest minor protocol version supported and the {@code _pq_.}
     * startup options not recognized.
     */
    record NegotiateProtocolVersion(int newestMinorVersion, List<String> unrecognizedOptions)
            implements BackendMessage {
        @Override
        public char type() {
            return 'v';
        }

        @Override
        public void writeBody(ByteBuf out) {
            out.writeInt(newestMinorVersion);
            out.writeInt(unrecognizedOptions.size());
            unrecognizedOptions.forEach(option -> writeCString(out, option));
        }
    }

    /** ReadyForQuery ('Z') with the transaction status: 'I' idle, 'T' in a transaction, 'E' failed. */
    record ReadyForQuery(char transactionStatus) implements BackendMessage {
        public static final ReadyForQuery IDLE = new ReadyForQuery('I');

        @Override
        public char type() {
            return 'Z';
        }

        @Override
        public void writeBody(ByteBuf out) {
            out.writeByte(transactionStatus);
        }
    }

    /**
     * RowDescription ('T'): one field per column, not tied to a table column. {@code formats} is the format code
     * per column (0 text, 1 binary); empty means all text.
     */
    record RowDescription(List<Column> columns, short[] formats) implements BackendMessage {
        public RowDescription(List<Column> columns) {
            this(columns, new short[0]);
        }

        @Override
        public char type() {
            return 'T';
        }

        @Override
        public void writeBody(ByteBuf out) {
            out.writeShort(columns.size());
            for (int i = 0; i < columns.size(); i++) {
                Column column = columns.get(i);
                writeCString(out, column.name());
                out.writeInt(0); // table OID
                out.writeShort(0); // column attribute number
                out.writeInt(column.type().oid());
                out.writeShort(column.type().size());
                out.writeInt(-1); // type modifier
                out.writeShort(i < formats.length ? formats[i] : 0);
            }
        }
    }

    /** ParseComplete ('1'), BindComplete ('2'), CloseComplete ('3'), NoData ('n'), PortalSuspended ('s'), CopyDone ('c'): no body. */
    enum Empty implements BackendMessage {
        PARSE_COMPLETE('1'),
        BIND_COMPLETE('2'),
        CLOSE_COMPLETE('3'),
        NO_DATA('n'),
        PORTAL_SUSPENDED('s'),
        COPY_DONE('c');

        private final char type;

        Empty(char type) {
            this.type = type;
        }

        @Override
        public char type() {
            return type;
        }

        @Override
        public void writeBody(ByteBuf out) {
        }
    }

    /** ParameterDescription ('t'): the type OID of each parameter of a prepared statement. */
    record ParameterDescription(int[] oids) implements BackendMessage {
        @Override
        public char type() {
            return 't';
        }

        @Override
        public void writeBody(ByteBuf out) {
            out.writeShort(oids.length);
            for (int oid : oids) {
                out.writeInt(oid);
            }
        }
    }

    /**
     * CopyInResponse ('G') or CopyOutResponse ('H'): overall format (0 text, 1 binary) and one format code per column.
     */
    record CopyResponse(boolean in, int columns, boolean binary) implements BackendMessage {
        public CopyResponse(boolean in, int columns) {
            this(in, columns, false);
        }

        @Override
        public char type() {
            return in ? 'G' : 'H';
        }

        @Override
        public void writeBody(ByteBuf out) {
            out.writeByte(binary ? 1 : 0);
            out.writeShort(columns);
            for (int i = 0; i < columns; i++) {
                out.writeShort(binary ? 1 : 0);
            }
        }
    }

    /** CopyData ('d'): a chunk of COPY TO STDOUT output. */
    record CopyData(byte[] data) implements BackendMessage {
        @Override
        public char type() {
            return 'd';
        }

        @Override
        public void writeBody(ByteBuf out) {
            out.writeBytes(data);
        }
    }

    /** Authentication request ('R') with a code and its data (SASL mechanisms, SASL continue/final, cleartext). */
    record Authentication(int code, byte[] data) implements BackendMessage {
        public static final int CLEARTEXT_PASSWORD = 3;
        public static final int SASL = 10;
        public static final int SASL_CONTINUE = 11;
        public static final int SASL_FINAL = 12;

        @Override
        public char type() {
            return 'R';
        }

        @Override
        public void writeBody(ByteBuf out) {
            out.writeInt(code);
            out.writeBytes(data);
        }
    }

    /** DataRow ('D'): column values already encoded; {@code null} is SQL NULL (length -1). */
    record DataRow(byte[][] values) implements BackendMessage {
        @Override
        public char type() {
            return 'D';
        }

        @Override
        public void writeBody(ByteBuf out) {
            out.writeShort(values.length);
            for (byte[] value : values) {
                if (value == null) {
                    out.writeInt(-1);
                } else {
                    out.writeInt(value.length);
                    out.writeBytes(value);
                }
            }
        }
    }

    /** CommandComplete ('C') with the command tag, e.g. {@code SELECT 3}. */
    record CommandComplete(String tag) implements BackendMessage {
        @Override
        public char type() {
            return 'C';
        }

        @Override
        public void writeBody(ByteBuf out) {
            writeCString(out, tag);
        }
    }

    /** EmptyQueryResponse ('I'): the answer to a query string with no statements. */
    enum EmptyQueryResponse implements BackendMessage {
        INSTANCE;

        @Override
        public char type() {
            return 'I';
        }

        @Override
        public void writeBody(ByteBuf out) {
        }
    }

    /**
     * ErrorResponse ('E'): fields S (localized severity), V (severity), C (SQLSTATE), M (message) and, when
     * {@code position > 0}, P (1-based character position in the query text); D, H, W and R (routine) when given.
     */
    record ErrorResponse(String severity, String sqlState, String message, int position, String hint,
            String context, String detail, String routine) implements BackendMessage {
        public static final String ERROR = "ERROR";
        public static final String FATAL = "FATAL";

        public ErrorResponse(String severity, String sqlState, String message, int position, String hint,
                String context, String detail) {
            this(severity, sqlState, message, position, hint, context, detail, null);
        }

        public ErrorResponse(String severity, String sqlState, String message, int position, String hint,
                String context) {
            this(severity, sqlState, message, position, hint, context, null);
        }

        public ErrorResponse(String severity, String sqlState, String message, int position) {
            this(severity, sqlState, message, position, null, null);
        }

        @Override
        public char type() {
            return 'E';
        }

        @Override
        public void writeBody(ByteBuf out) {
            writeNoticeFields(out, severity, sqlState, message, position, hint, context, detail, routine);
        }
    }

    /** NoticeResponse ('N'): the fields of an ErrorResponse, severity NOTICE; the statement goes on. */
    record NoticeResponse(String sqlState, String message) implements BackendMessage {
        @Override
        public char type() {
            return 'N';
        }

        @Override
        public void writeBody(ByteBuf out) {
            writeNoticeFields(out, "NOTICE", sqlState, message, 0, null, null, null, null);
        }
    }

    /** The fields shared by ErrorResponse and NoticeResponse, then the terminating NUL. */
    private static void writeNoticeFields(ByteBuf out, String severity, String sqlState, String message, int position,
            String hint, String context, String detail, String routine) {
        writeField(out, 'S', severity);
        writeField(out, 'V', severity);
        writeField(out, 'C', sqlState);
        writeField(out, 'M', message == null ? "" : message);
        if (detail != null) {
            writeField(out, 'D', detail);
        }
        if (position > 0) {
            writeField(out, 'P', Integer.toString(position));
        }
        if (hint != null) {
            writeField(out, 'H', hint);
        }
        if (context != null) {
            writeField(out, 'W', context);
        }
        if (routine != null) {
            writeField(out, 'R', routine);
        }
        out.writeByte(0);
    }

    private static void writeField(ByteBuf out, char code, String value) {
        out.writeByte(code);
        writeCString(out, value);
    }

    /** Writes a UTF-8 string and its NUL terminator (NULs inside the string are dropped: they would end it). */
    static void writeCString(ByteBuf out, String s) {
        out.writeCharSequence(s.indexOf('\0') < 0 ? s : s.replace("\0", ""), StandardCharsets.UTF_8);
        out.writeByte(0);
    }
}
