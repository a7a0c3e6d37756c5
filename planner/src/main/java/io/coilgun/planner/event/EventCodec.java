package io.coilgun.planner.event;

import io.coilgun.planner.model.ColumnType;
import io.coilgun.planner.model.StreamDef;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * The binary form of one event, as published to Kafka and kept in the event reservoir.
 *
 * <pre>
 * byte   format version (1)
 * int    schema version of the stream when the event was written: it has that version's columns
 * long   assigned event id (used when the stream has no event_id column, else 0)
 * bytes  null bitmap, one bit per column, ceil(n / 8) bytes
 * values in column order, absent when null:
 *        BOOLEAN 1 byte, INTEGER 4, BIGINT 8, DOUBLE 8 (IEEE), TIMESTAMP 8 (micros since epoch),
 *        VARCHAR int length + UTF-8 bytes, NUMERIC short scale + unsigned short length + the unscaled value's
 *        two's-complement bytes ({@link NumericBytes})
 * </pre>
 * All integers big-endian. Values are {@link ColumnType#javaClass()} objects.
 * An event written at an older schema version decodes with NULL for the columns added since.
 */
public final class EventCodec {
    public static final byte FORMAT_VERSION = 1;
    private static final int HEADER = 1 + 4 + 8;

    private final ColumnType[] types;
    private final int schemaVersion;
    private final int[] widths;

    public EventCodec(StreamDef stream) {
        this.types = stream.columns().stream().map(c -> c.type()).toArray(ColumnType[]::new);
        this.schemaVersion = stream.schemaVersion();
        this.widths = new int[schemaVersion + 1];
        for (int v = 1; v <= schemaVersion; v++) {
            widths[v] = stream.schemaWidth(v);
        }
    }

    /** The schema version written into events: the stream's current one. */
    public int schemaVersion() {
        return schemaVersion;
    }

    public int columnCount() {
        return types.length;
    }

    /** The type of column {@code column}. */
    ColumnType type(int column) {
        return types[column];
    }

    /** How many columns an event of schema version {@code version} (1 to {@link #schemaVersion()}) has. */
    int width(int version) {
        return widths[version];
    }

    public byte[] encode(Object[] values, long assignedId) {
        int bitmap = (types.length + 7) / 8;
        int size = HEADER + bitmap;
        byte[][] strings = new byte[types.length][]; // a VARCHAR's UTF-8 bytes, a NUMERIC's unscaled value
        for (int i = 0; i < types.length; i++) {
            if (values[i] != null) {
                size += switch (types[i]) {
                    case BOOLEAN -> 1;
                    case INTEGER -> 4;
                    case BIGINT, DOUBLE, TIMESTAMP -> 8;
                    case VARCHAR -> {
                        strings[i] = ((String) values[i]).getBytes(StandardCharsets.UTF_8);
                        yield 4 + strings[i].length;
                    }
                    case NUMERIC -> {
                        strings[i] = NumericBytes.unscaled((BigDecimal) values[i]);
                        yield NumericBytes.HEADER + strings[i].length;
                    }
                };
            }
        }
        ByteBuffer buf = ByteBuffer.allocate(size);
        buf.put(FORMAT_VERSION).putInt(schemaVersion).putLong(assignedId);
        byte[] nulls = new byte[bitmap];
        for (int i = 0; i < types.length; i++) {
            if (values[i] == null) {
                nulls[i >> 3] |= (byte) (1 << (i & 7));
            }
        }
        buf.put(nulls);
        for (int i = 0; i < types.length; i++) {
            Object v = values[i];
            if (v == null) {
                continue;
            }
            switch (types[i]) {
                case BOOLEAN -> buf.put((byte) (((Boolean) v) ? 1 : 0));
                case INTEGER -> buf.putInt((Integer) v);
                case BIGINT, TIMESTAMP -> buf.putLong((Long) v);
                case DOUBLE -> buf.putDouble((Double) v);
                case VARCHAR -> buf.putInt(strings[i].length).put(strings[i]);
                case NUMERIC -> buf.putShort((short) ((BigDecimal) v).scale())
                        .putShort((short) strings[i].length).put(strings[i]);
            }
        }
        return buf.array();
    }

    /** Decodes into {@code into} (length = column count) and returns the assigned id. */
    public long decode(byte[] bytes, Object[] into) {
        return decode(bytes, 0, bytes.length, into);
    }

    /** The schema version an encoded event was written with, or 0 when the bytes are no event of this format. */
    public static int schemaVersionOf(byte[] bytes) {
        if (bytes == null || bytes.length < 5 || bytes[0] != FORMAT_VERSION) {
            return 0;
        }
        return ((bytes[1] & 0xff) << 24) | ((bytes[2] & 0xff) << 16) | ((bytes[3] & 0xff) << 8) | (bytes[4] & 0xff);
    }

    /** Decodes the event in {@code bytes[off .. off + len)}; see {@link #decode(byte[], Object[])}. */
    public long decode(byte[] bytes, int off, int length, Object[] into) {
        ByteBuffer buf = ByteBuffer.wrap(bytes, off, length);
        byte format = buf.get();
        if (format != FORMAT_VERSION) {
            throw new IllegalStateException("unknown event format version " + format);
        }
        int version = buf.getInt();
        if (version < 1 || version > schemaVersion) {
            throw new IllegalStateException("event of schema version " + version + ", newest known " + schemaVersion);
        }
        int width = widths[version];
        long assignedId = buf.getLong();
        int bitmap = (width + 7) / 8;
        int nullsAt = buf.position();
        buf.position(nullsAt + bitmap);
        for (int i = width; i < types.length; i++) {
            into[i] = null; // added after this event was written
        }
        for (int i = 0; i < width; i++) {
            if ((bytes[nullsAt + (i >> 3)] & (1 << (i & 7))) != 0) {
                into[i] = null;
                continue;
            }
            into[i] = switch (types[i]) {
                case BOOLEAN -> buf.get() != 0;
                case INTEGER -> buf.getInt();
                case BIGINT, TIMESTAMP -> buf.getLong();
                case DOUBLE -> buf.getDouble();
                case NUMERIC -> {
                    int at = buf.position();
                    buf.position(at + NumericBytes.size(bytes, at));
                    yield NumericBytes.read(bytes, at);
                }
                case VARCHAR -> {
                    int len = buf.getInt();
                    String s = new String(bytes, buf.position(), len, StandardCharsets.UTF_8);
                    buf.position(buf.position() + len);
                    yield s;
                }
            };
        }
        return assignedId;
    }
}
