package io.coilgun.planner.event;

import io.coilgun.planner.model.ColumnType;
import io.coilgun.planner.model.StreamDef;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * A reusable, allocation-free reading of one encoded event ({@link EventCodec}'s form) in place: {@link #wrap} finds
 * where each column's value starts, and the accessors read them as primitives, without boxing and without a
 * {@code String} per VARCHAR. {@link #values()} boxes the event once, for what needs objects (filters, expressions,
 * candidates); most events never need it.
 *
 * <p>Valid until the next {@link #wrap}; the bytes must not change meanwhile. Single-threaded.
 */
public final class EventView {
    private static final VarHandle INT = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);
    private final EventCodec codec;
    private byte[] data;
    private int offset;
    private int length;
    /** Per column, where its value starts in {@link #data}, or -1 when it is NULL (or added after the event). */
    private final int[] at;
    private long assignedId;
    private final Object[] boxed;
    private boolean boxedValid;

    public EventView(StreamDef stream) {
        this.codec = new EventCodec(stream);
        this.at = new int[codec.columnCount()];
        this.boxed = new Object[codec.columnCount()];
    }

    /** Reads the event in {@code bytes[off .. off + len)} from now on. */
    public void wrap(byte[] bytes, int off, int len) {
        if (bytes[off] != EventCodec.FORMAT_VERSION) {
            throw new IllegalStateException("unknown event format version " + bytes[off]);
        }
        int version = readInt(bytes, off + 1);
        if (version < 1 || version > codec.schemaVersion()) {
            throw new IllegalStateException("event of schema version " + version + ", newest known "
                    + codec.schemaVersion());
        }
        this.data = bytes;
        this.offset = off;
        this.length = len;
        this.assignedId = readLong(bytes, off + 5);
        this.boxedValid = false;
        int width = codec.width(version);
        int nullsAt = off + 13;
        int p = nullsAt + (width + 7) / 8;
        for (int i = 0; i < width; i++) {
            if ((bytes[nullsAt + (i >> 3)] & (1 << (i & 7))) != 0) {
                at[i] = -1;
                continue;
            }
            at[i] = p;
            p += switch (codec.type(i)) {
                case BOOLEAN -> 1;
                case INTEGER -> 4;
                case BIGINT, TIMESTAMP, DOUBLE -> 8;
                case VARCHAR -> 4 + readInt(bytes, p);
                case NUMERIC -> NumericBytes.size(bytes, p);
            };
        }
        for (int i = width; i < at.length; i++) {
            at[i] = -1; // added after this event was written
        }
    }

    /** Reads {@code values} (an event already decoded from {@code bytes}) as this event's boxed values. */
    public void wrap(byte[] bytes, int off, int len, Object[] values) {
        wrap(bytes, off, len);
        System.arraycopy(values, 0, boxed, 0, boxed.length);
        boxedValid = true;
    }

    public int columnCount() {
        return at.length;
    }

    public ColumnType type(int column) {
        return codec.type(column);
    }

    public long assignedId() {
        return assignedId;
    }

    public boolean isNull(int column) {
        return at[column] < 0;
    }

    /** An INTEGER, BIGINT or TIMESTAMP column's value (not NULL). */
    public long getLong(int column) {
        return codec.type(column) == ColumnType.INTEGER ? readInt(data, at[column]) : readLong(data, at[column]);
    }

    /** A DOUBLE column's value, or an integral or NUMERIC column's as a double (not NULL). */
    public double getDouble(int column) {
        return switch (codec.type(column)) {
            case DOUBLE -> Double.longBitsToDouble(readLong(data, at[column]));
            case NUMERIC -> NumericBytes.fitsLong(data, at[column])
                    ? NumericBytes.doubleValue(NumericBytes.unscaledLong(data, at[column]),
                            NumericBytes.scale(data, at[column]))
                    : NumericBytes.read(data, at[column]).doubleValue();
            default -> (double) getLong(column);
        };
    }

    /** Where a NUMERIC column's value starts in {@link #data()}, in {@link NumericBytes}' form (not NULL). */
    public int numericOffset(int column) {
        return at[column];
    }

    public boolean getBoolean(int column) {
        return data[at[column]] != 0;
    }

    /** The bytes the view reads (a VARCHAR's UTF-8 bytes are at {@link #stringOffset}). */
    public byte[] data() {
        return data;
    }

    /** Where a VARCHAR column's UTF-8 bytes start in {@link #data()} (not NULL). */
    public int stringOffset(int column) {
        return at[column] + 4;
    }

    /** A VARCHAR column's length in UTF-8 bytes (not NULL). */
    public int stringLength(int column) {
        return readInt(data, at[column]);
    }

    /** A column's value as {@link EventCodec#decode} gives it (boxed: for the paths that need objects). */
    public Object value(int column) {
        return values()[column];
    }

    /** Every column's value, boxed, decoded once per event (filters, expressions and candidates read these). */
    public Object[] values() {
        if (!boxedValid) {
            codec.decode(data, offset, length, boxed);
            boxedValid = true;
        }
        return boxed;
    }

    private static int readInt(byte[] b, int p) {
        return (int) INT.get(b, p);
    }

    private static long readLong(byte[] b, int p) {
        return (long) LONG.get(b, p);
    }

    @Override
    public String toString() {
        return data == null ? "EventView[]" : Arrays.toString(values());
    }
}
