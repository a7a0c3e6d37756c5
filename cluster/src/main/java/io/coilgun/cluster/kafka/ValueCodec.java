package io.coilgun.cluster.kafka;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;

/**
 * The values Coilgun sends between nodes through Kafka (reply records, peer messages): a tag byte, then the value.
 * <pre>
 *   0 null, 1 long (8 bytes; also integers and timestamps in micros), 2 double (8 bytes),
 *   3 text (UTF-8: int length, bytes), 4 boolean (1 byte), 5 numeric (its plain decimal text, as modified UTF-8),
 *   6 bytes (int length, bytes)
 * </pre>
 * Every value a task reports is one of those; anything else is an {@link IllegalArgumentException} naming its class
 * (a bug to fix, never a cast failing on a processor thread).
 */
public final class ValueCodec {
    private static final byte NULL = 0;
    private static final byte LONG = 1;
    private static final byte DOUBLE = 2;
    private static final byte TEXT = 3;
    private static final byte BOOLEAN = 4;
    private static final byte NUMERIC = 5;
    private static final byte BYTES = 6;

    private ValueCodec() {
    }

    public static void write(DataOutputStream out, Object v) throws IOException {
        if (v == null) {
            out.writeByte(NULL);
        } else if (v instanceof Long || v instanceof Integer || v instanceof Short) {
            out.writeByte(LONG);
            out.writeLong(((Number) v).longValue());
        } else if (v instanceof Double || v instanceof Float) {
            out.writeByte(DOUBLE);
            out.writeDouble(((Number) v).doubleValue());
        } else if (v instanceof String text) {
            out.writeByte(TEXT);
            writeBytes(out, text.getBytes(StandardCharsets.UTF_8));
        } else if (v instanceof Boolean b) {
            out.writeByte(BOOLEAN);
            out.writeBoolean(b);
        } else if (v instanceof BigDecimal d) {
            out.writeByte(NUMERIC);
            out.writeUTF(d.toPlainString());
        } else if (v instanceof byte[] b) {
            out.writeByte(BYTES);
            writeBytes(out, b);
        } else {
            throw new IllegalArgumentException("a value of class " + v.getClass().getName()
                    + " cannot be sent between nodes");
        }
    }

    public static Object read(DataInputStream in) throws IOException {
        byte tag = in.readByte();
        return switch (tag) {
            case NULL -> null;
            case LONG -> in.readLong();
            case DOUBLE -> in.readDouble();
            case TEXT -> new String(readBytes(in), StandardCharsets.UTF_8);
            case BOOLEAN -> in.readBoolean();
            case NUMERIC -> new BigDecimal(in.readUTF());
            case BYTES -> readBytes(in);
            default -> throw new IllegalArgumentException("unknown value tag " + tag);
        };
    }

    public static void writeAll(DataOutputStream out, Object[] values) throws IOException {
        out.writeShort(values.length);
        for (Object v : values) {
            write(out, v);
        }
    }

    public static Object[] readAll(DataInputStream in) throws IOException {
        Object[] values = new Object[in.readShort()];
        for (int i = 0; i < values.length; i++) {
            values[i] = read(in);
        }
        return values;
    }

    /** A byte string or null (length -1). */
    public static void writeBytes(DataOutputStream out, byte[] bytes) throws IOException {
        if (bytes == null) {
            out.writeInt(-1);
            return;
        }
        out.writeInt(bytes.length);
        out.write(bytes);
    }

    public static byte[] readBytes(DataInputStream in) throws IOException {
        int n = in.readInt();
        if (n < 0) {
            return null;
        }
        byte[] bytes = new byte[n];
        in.readFully(bytes);
        return bytes;
    }
}
