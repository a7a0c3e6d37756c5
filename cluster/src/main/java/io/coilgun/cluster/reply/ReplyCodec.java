package io.coilgun.cluster.reply;

import io.coilgun.planner.model.MetricDef;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The value of a reply record (its key is the 8-byte correlation id).
 * <pre>
 * byte status, UTF message, short metric count,
 *   per metric: UTF name, short value count, per value: byte tag, then the value:
 *     0 null, 1 long (8 bytes; also integers and timestamps in micros), 2 double (8 bytes),
 *     3 text (UTF-8: int length, bytes), 4 boolean (1 byte), 5 numeric (its plain decimal text, as text)
 * </pre>
 * Every value an aggregation reports is one of those; anything else is an {@link IllegalArgumentException} naming
 * its class (a bug to fix, never a cast failing on a processor thread).
 */
public final class ReplyCodec {
    private ReplyCodec() {
    }

    public static byte[] encode(ReplyStatus status, String message, List<MetricDef> metrics, Object[] results) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(64);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte(status.ordinal());
            out.writeUTF(message == null ? "" : message);
            out.writeShort(status == ReplyStatus.APPLIED ? metrics.size() : 0);
            if (status == ReplyStatus.APPLIED) {
                int at = 0;
                for (MetricDef m : metrics) {
                    out.writeUTF(m.name());
                    int n = m.aggregations().size();
                    out.writeShort(n);
                    for (int i = 0; i < n; i++) {
                        writeValue(out, results[at++]);
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    private static final byte NULL = 0;
    private static final byte LONG = 1;
    private static final byte DOUBLE = 2;
    private static final byte TEXT = 3;
    private static final byte BOOLEAN = 4;
    private static final byte NUMERIC = 5;

    private static void writeValue(DataOutputStream out, Object v) throws IOException {
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
            byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
            out.writeInt(bytes.length);
            out.write(bytes);
        } else if (v instanceof Boolean b) {
            out.writeByte(BOOLEAN);
            out.writeBoolean(b);
        } else if (v instanceof BigDecimal d) {
            out.writeByte(NUMERIC);
            out.writeUTF(d.toPlainString());
        } else {
            throw new IllegalArgumentException("a metric value of class " + v.getClass().getName()
                    + " cannot be sent in a reply");
        }
    }

    private static Object readValue(DataInputStream in) throws IOException {
        byte tag = in.readByte();
        return switch (tag) {
            case NULL -> null;
            case LONG -> in.readLong();
            case DOUBLE -> in.readDouble();
            case TEXT -> {
                byte[] bytes = new byte[in.readInt()];
                in.readFully(bytes);
                yield new String(bytes, StandardCharsets.UTF_8);
            }
            case BOOLEAN -> in.readBoolean();
            case NUMERIC -> new BigDecimal(in.readUTF());
            default -> throw new IllegalArgumentException("unknown value tag " + tag + " in a reply");
        };
    }

    public static Reply decode(byte[] key, byte[] value) {
        long correlation = ByteBuffer.wrap(key).getLong();
        try (DataInputStream in = new DataInputStream(new java.io.ByteArrayInputStream(value))) {
            ReplyStatus status = ReplyStatus.of(in.readByte());
            String message = in.readUTF();
            int metricCount = in.readShort();
            Map<String, Object[]> metrics = new LinkedHashMap<>();
            for (int m = 0; m < metricCount; m++) {
                String name = in.readUTF();
                Object[] values = new Object[in.readShort()];
                for (int i = 0; i < values.length; i++) {
                    values[i] = readValue(in);
                }
                metrics.put(name, values);
            }
            return new Reply(correlation, status, message, metrics);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static byte[] correlationKey(long correlation) {
        return ByteBuffer.allocate(8).putLong(correlation).array();
    }
}
