package io.coilgun.planner.event;

import io.coilgun.planner.model.ColumnType;
import java.io.ByteArrayOutputStream;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * Encodes the values of group-by fields into a byte key that orders and compares by value.
 * Each value is a tag byte (0 = NULL, 1 = value) followed, for strings, by the UTF-8 bytes and a 0 terminator
 * (0 bytes inside strings are escaped as 0x00 0xFF), for numbers by 8 sign-flipped big-endian bytes, for NUMERIC
 * values by their plain text without trailing zeros and a 0 terminator ({@code 1.5} and {@code 1.50} are one group,
 * as in Postgres; such keys compare by value but order by their text).
 * The same encoding is the Kafka record key of a partitioner topic, so one group always lands on one task.
 */
public final class GroupKeys {
    private GroupKeys() {
    }

    public static byte[] encode(Object[] values, int[] columns) {
        int size = 0;
        for (int c : columns) {
            size += encodedSize(values[c]);
        }
        byte[] out = new byte[size]; // sized first: the key is the only allocation (per event, on the hot path)
        int at = 0;
        for (int c : columns) {
            at = write(out, at, values[c]);
        }
        return out;
    }

    /**
     * {@link #encode}'s key of the event {@code e} over {@code columns}, written at the start of {@code out} when it
     * fits: returns its length (larger than {@code out.length} when it did not fit, and nothing was written).
     */
    public static int encode(EventView e, int[] columns, byte[] out) {
        int size = 0;
        for (int c : columns) {
            size += encodedSize(e, c);
        }
        if (size > out.length) {
            return size;
        }
        int at = 0;
        for (int c : columns) {
            if (e.isNull(c)) {
                out[at++] = 0;
                continue;
            }
            out[at++] = 1;
            switch (e.type(c)) {
                case VARCHAR -> {
                    byte[] d = e.data();
                    for (int i = e.stringOffset(c), end = i + e.stringLength(c); i < end; i++) {
                        out[at++] = d[i];
                        if (d[i] == 0) {
                            out[at++] = (byte) 0xFF;
                        }
                    }
                    out[at++] = 0;
                }
                case BOOLEAN -> out[at++] = (byte) (e.getBoolean(c) ? 1 : 0);
                case NUMERIC -> {
                    String text = numericText(NumericBytes.read(e.data(), e.numericOffset(c)));
                    for (int i = 0; i < text.length(); i++) {
                        out[at++] = (byte) text.charAt(i);
                    }
                    out[at++] = 0;
                }
                case DOUBLE -> {
                    long bits = Double.doubleToLongBits(e.getDouble(c));
                    at = writeLong(out, at, bits ^ ((bits >> 63) | Long.MIN_VALUE));
                }
                default -> at = writeLong(out, at, e.getLong(c) ^ Long.MIN_VALUE);
            }
        }
        return size;
    }

    private static int encodedSize(EventView e, int c) {
        if (e.isNull(c)) {
            return 1;
        }
        return switch (e.type(c)) {
            case VARCHAR -> {
                int n = e.stringLength(c) + 2;
                byte[] d = e.data();
                for (int i = e.stringOffset(c), end = i + e.stringLength(c); i < end; i++) {
                    n += d[i] == 0 ? 1 : 0;
                }
                yield n;
            }
            case BOOLEAN -> 2;
            case NUMERIC -> numericText(NumericBytes.read(e.data(), e.numericOffset(c))).length() + 2;
            default -> 9;
        };
    }

    /** A NUMERIC key's text: one for equal values ({@code 1.50} is {@code 1.5}), ASCII without NUL. */
    private static String numericText(BigDecimal d) {
        return d.signum() == 0 ? "0" : d.stripTrailingZeros().toPlainString();
    }

    private static int writeLong(byte[] out, int at, long l) {
        for (int i = 7; i >= 0; i--) {
            out[at + i] = (byte) l;
            l >>>= 8;
        }
        return at + 8;
    }

    /**
     * A 64-bit hash of {@code key[off .. off + len)} (FNV-1a, then a murmur finalizer), never 0: what group arenas
     * and the dedup index find keys by.
     */
    public static long hash(byte[] key, int off, int len) {
        long h = 0xcbf29ce484222325L;
        for (int i = off; i < off + len; i++) {
            h = (h ^ (key[i] & 0xff)) * 0x100000001b3L;
        }
        h ^= h >>> 33;
        h *= 0xff51afd7ed558ccdL;
        h ^= h >>> 33;
        h *= 0xc4ceb9fe1a85ec53L;
        h ^= h >>> 33;
        return h == 0 ? 1 : h;
    }

    public static byte[] encodeOne(Object value) {
        byte[] out = new byte[encodedSize(value)];
        write(out, 0, value);
        return out;
    }

    private static int encodedSize(Object v) {
        if (v == null) {
            return 1;
        }
        if (v instanceof String s) {
            return isPlainAscii(s) ? s.length() + 2 : escaped(s).length + 2;
        }
        if (v instanceof BigDecimal d) {
            return numericText(d).length() + 2;
        }
        return v instanceof Boolean ? 2 : 9;
    }

    /** Writes {@code v}'s encoding at {@code at}; returns where it ends. */
    private static int write(byte[] out, int at, Object v) {
        if (v == null) {
            out[at] = 0;
            return at + 1;
        }
        out[at++] = 1;
        if (v instanceof BigDecimal d) {
            v = numericText(d); // written as a string
        }
        if (v instanceof String s) {
            if (isPlainAscii(s)) {
                for (int i = 0; i < s.length(); i++) {
                    out[at++] = (byte) s.charAt(i);
                }
            } else {
                byte[] e = escaped(s);
                System.arraycopy(e, 0, out, at, e.length);
                at += e.length;
            }
            out[at++] = 0;
            return at;
        }
        if (v instanceof Boolean b) {
            out[at] = (byte) (b ? 1 : 0);
            return at + 1;
        }
        long l;
        if (v instanceof Double d) {
            long bits = Double.doubleToLongBits(d);
            l = bits ^ ((bits >> 63) | Long.MIN_VALUE);
        } else {
            l = ((Number) v).longValue() ^ Long.MIN_VALUE;
        }
        for (int i = 7; i >= 0; i--) {
            out[at + i] = (byte) l;
            l >>>= 8;
        }
        return at + 8;
    }

    /** Whether every char of {@code s} is ASCII other than NUL: its UTF-8 bytes are its chars, none escaped. */
    private static boolean isPlainAscii(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == 0 || c >= 0x80) {
                return false;
            }
        }
        return true;
    }

    /** The UTF-8 bytes of {@code s} with each 0 byte followed by 0xFF. */
    private static byte[] escaped(String s) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(s.length() + 8);
        for (byte b : s.getBytes(StandardCharsets.UTF_8)) {
            out.write(b);
            if (b == 0) {
                out.write(0xFF);
            }
        }
        return out.toByteArray();
    }

    /**
     * Reads the values of a key {@link #encode} wrote, from {@code offset}, one per type (INTEGER as Integer,
     * BIGINT and TIMESTAMP as Long, DOUBLE, VARCHAR, BOOLEAN, NUMERIC without trailing zeros).
     */
    public static Object[] decode(byte[] key, int offset, ColumnType[] types) {
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
                case NUMERIC -> {
                    int end = at;
                    while (key[end] != 0) {
                        end++;
                    }
                    values[i] = new BigDecimal(new String(key, at, end - at, StandardCharsets.US_ASCII));
                    at = end + 1;
                }
                case DOUBLE -> {
                    long bits = ByteBuffer.wrap(key, at, 8).getLong();
                    bits ^= ((~bits) >> 63) | Long.MIN_VALUE;
                    values[i] = Double.longBitsToDouble(bits);
                    at += 8;
                }
                default -> {
                    long l = ByteBuffer.wrap(key, at, 8).getLong() ^ Long.MIN_VALUE;
                    values[i] = types[i] == ColumnType.INTEGER ? (Object) (int) l : (Object) l;
                    at += 8;
                }
            }
        }
        return values;
    }
}
