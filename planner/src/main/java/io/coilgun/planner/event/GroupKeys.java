package io.coilgun.planner.event;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * Encodes the values of group-by fields into a byte key that orders and compares by value.
 * Each value is a tag byte (0 = NULL, 1 = value) followed, for strings, by the UTF-8 bytes and a 0 terminator
 * (0 bytes inside strings are escaped as 0x00 0xFF), for numbers by 8 sign-flipped big-endian bytes.
 * The same encoding is the Kafka record key of a partitioner topic, so one group always lands on one task.
 */
public final class GroupKeys {
    private GroupKeys() {
    }

    public static byte[] encode(Object[] values, int[] columns) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(32);
        for (int c : columns) {
            append(out, values[c]);
        }
        return out.toByteArray();
    }

    public static byte[] encodeOne(Object value) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(16);
        append(out, value);
        return out.toByteArray();
    }

    /**
     * Reads the values of a key {@link #encode} wrote, from {@code offset}, one per type (INTEGER as Integer,
     * BIGINT and TIMESTAMP as Long, DOUBLE, VARCHAR, BOOLEAN).
     */
    public static Object[] decode(byte[] key, int offset, io.coilgun.planner.model.ColumnType[] types) {
        Object[] values = new Object[types.length];
        int at = offset;
        for (int i = 0; i < types.length; i++) {
            if (key[at++] == 0) {
                continue; // NULL
            }
            switch (types[i]) {
                case VARCHAR -> {
                    ByteArrayOutputStream s = new ByteArrayOutputStream();
                    while (key[at] != 0 || (at + 1 < key.length && (key[at + 1] & 0xFF) == 0xFF)) {
                        s.write(key[at]);
                        at += key[at] == 0 ? 2 : 1;
                    }
                    at++; // the terminator
                    values[i] = s.toString(StandardCharsets.UTF_8);
                }
                case BOOLEAN -> values[i] = key[at++] != 0;
                case DOUBLE -> {
                    long bits = ByteBuffer.wrap(key, at, 8).getLong();
                    bits ^= ((~bits) >> 63) | Long.MIN_VALUE;
                    values[i] = Double.longBitsToDouble(bits);
                    at += 8;
                }
                default -> {
                    long l = ByteBuffer.wrap(key, at, 8).getLong() ^ Long.MIN_VALUE;
                    values[i] = types[i] == io.coilgun.planner.model.ColumnType.INTEGER ? (Object) (int) l : (Object) l;
                    at += 8;
                }
            }
        }
        return values;
    }

    private static void append(ByteArrayOutputStream out, Object v) {
        if (v == null) {
            out.write(0);
            return;
        }
        out.write(1);
        if (v instanceof String s) {
            for (byte b : s.getBytes(StandardCharsets.UTF_8)) {
                out.write(b);
                if (b == 0) {
                    out.write(0xFF);
                }
            }
            out.write(0);
        } else if (v instanceof Boolean b) {
            out.write(b ? 1 : 0);
        } else if (v instanceof Double d) {
            long bits = Double.doubleToLongBits(d);
            bits ^= (bits >> 63) | Long.MIN_VALUE;
            out.writeBytes(ByteBuffer.allocate(8).putLong(bits).array());
        } else {
            long l = ((Number) v).longValue() ^ Long.MIN_VALUE;
            out.writeBytes(ByteBuffer.allocate(8).putLong(l).array());
        }
    }
}
