package io.coilgun.planner.agg;

/**
 * The values a task reports for an event, one per aggregation of every metric, kept as primitives where they are
 * numbers: an event's results box nothing unless someone reads them as objects ({@link #get}). Reused from event to
 * event; single-threaded.
 */
public final class Results {
    private static final byte NULL = 0;
    private static final byte LONG = 1;
    private static final byte DOUBLE = 2;
    private static final byte OBJECT = 3;

    private byte[] kinds;
    private long[] bits;
    private Object[] objects;

    public Results(int width) {
        resize(width);
    }

    /** Makes room for {@code width} values (all NULL). */
    public void resize(int width) {
        kinds = new byte[width];
        bits = new long[width];
        objects = new Object[width];
    }

    public int width() {
        return kinds.length;
    }

    public void setNull(int i) {
        kinds[i] = NULL;
        objects[i] = null;
    }

    public void setLong(int i, long v) {
        kinds[i] = LONG;
        bits[i] = v;
        objects[i] = null;
    }

    public void setDouble(int i, double v) {
        kinds[i] = DOUBLE;
        bits[i] = Double.doubleToRawLongBits(v);
        objects[i] = null;
    }

    /** A value given as an object: a Long or a Double is kept as a primitive, anything else as it is. */
    public void set(int i, Object v) {
        if (v == null) {
            setNull(i);
        } else if (v instanceof Long l) {
            setLong(i, l);
        } else if (v instanceof Double d) {
            setDouble(i, d);
        } else {
            kinds[i] = OBJECT;
            objects[i] = v;
        }
    }

    public boolean isNull(int i) {
        return kinds[i] == NULL;
    }

    /** Value {@code i} as the aggregations report it: a Long, a Double, another object, or null (boxed here). */
    public Object get(int i) {
        return switch (kinds[i]) {
            case LONG -> bits[i];
            case DOUBLE -> Double.longBitsToDouble(bits[i]);
            case OBJECT -> objects[i];
            default -> null;
        };
    }

    /** Values {@code [from, from + out.length - at)} into {@code out} from {@code at}, boxed. */
    public void copyTo(int from, Object[] out, int at) {
        for (int i = at; i < out.length; i++) {
            out[i] = get(from + i - at);
        }
    }
}
