package io.coilgun.planner.window;

import io.coilgun.planner.event.NumericBytes;
import io.coilgun.planner.expr.SqlFunctions;
import io.coilgun.planner.model.AggregationKind;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The candidate events of a non-invertible aggregation (MIN, MAX, LAST, PREV) for one group and bucket, in key
 * order {@code (time, seq)}, pruned so that it stays small:
 * <ul>
 *   <li>MIN (MAX): a monotonic deque. An event is dropped once a newer one (which leaves a sliding window later)
 *       has a value at most (at least) as large: it can never be the answer again. Values rise (fall) with the key,
 *       and the oldest element is the extreme.</li>
 *   <li>LAST, PREV: the two newest events. Windows only lose their oldest events, so the newest two events of a
 *       group with time at or below the window's end are always among those kept.</li>
 * </ul>
 * Events with a NULL argument are never candidates (SQL aggregates ignore NULLs).
 */
final class Candidates {
    record Entry(long time, long seq, Object value) {
    }

    private final AggregationKind kind;
    final List<Entry> entries = new ArrayList<>(4);

    Candidates(AggregationKind kind) {
        this.kind = kind;
    }

    void insert(long time, long seq, Object value) {
        if (value == null) {
            return;
        }
        int at = entries.size();
        while (at > 0 && compareKeys(entries.get(at - 1), time, seq) > 0) {
            at--;
        }
        switch (kind) {
            case MIN, MAX -> {
                // dominated by a newer entry?
                if (at < entries.size() && !better(value, entries.get(at).value())) {
                    return;
                }
                entries.add(at, new Entry(time, seq, value));
                // drop the older entries it dominates
                while (at > 0 && !better(entries.get(at - 1).value(), value)) {
                    entries.remove(at - 1);
                    at--;
                }
            }
            default -> {
                entries.add(at, new Entry(time, seq, value));
                while (entries.size() > 2) {
                    entries.remove(0);
                }
            }
        }
    }

    /** Removes the entry with this key, if it is a candidate. */
    void remove(long time, long seq) {
        for (int i = 0; i < entries.size(); i++) {
            Entry e = entries.get(i);
            if (e.time() == time && e.seq() == seq) {
                entries.remove(i);
                return;
            }
        }
    }

    /** Strictly better for this aggregation (smaller for MIN, larger for MAX). */
    private boolean better(Object a, Object b) {
        int c = compareValues(a, b);
        return kind == AggregationKind.MIN ? c < 0 : c > 0;
    }

    private static int compareKeys(Entry e, long time, long seq) {
        int c = Long.compare(e.time(), time);
        return c != 0 ? c : Long.compare(e.seq(), seq);
    }

    /** Values as SQL orders them: numbers by value, text in the C collation, booleans false before true. */
    @SuppressWarnings("unchecked")
    static int compareValues(Object a, Object b) {
        if (a instanceof Number x && b instanceof Number y) {
            return SqlFunctions.compareNumbers(x, y);
        }
        if (a instanceof String x && b instanceof String y) {
            return SqlFunctions.compareText(x, y);
        }
        return ((Comparable<Object>) a).compareTo(b);
    }

    /**
     * The aggregation's value over {@code pool} (candidates from several sources, all inside the window): the
     * extreme value for MIN and MAX, the newest (LAST) or second newest (PREV) event's value.
     */
    static Object result(AggregationKind kind, List<Entry> pool) {
        if (pool.isEmpty()) {
            return null;
        }
        switch (kind) {
            case MIN, MAX -> {
                Object best = null;
                for (Entry e : pool) {
                    if (best == null || (kind == AggregationKind.MIN ? compareValues(e.value(), best) < 0
                            : compareValues(e.value(), best) > 0)) {
                        best = e.value();
                    }
                }
                return best;
            }
            default -> {
                Entry newest = null;
                Entry second = null;
                for (Entry e : pool) {
                    if (newest == null || compareKeys(newest, e.time(), e.seq()) < 0) {
                        second = newest;
                        newest = e;
                    } else if ((second == null || compareKeys(second, e.time(), e.seq()) < 0)
                            && compareKeys(newest, e.time(), e.seq()) != 0) {
                        second = e;
                    }
                }
                Entry pick = kind == AggregationKind.LAST ? newest : second;
                return pick == null ? null : pick.value();
            }
        }
    }

    // ---- serialization: int n, then per entry long time, long seq, tagged value ----

    void write(ByteBuffer b) {
        b.putInt(entries.size());
        for (Entry e : entries) {
            b.putLong(e.time()).putLong(e.seq());
            Values.write(b, e.value());
        }
    }

    int size() {
        int n = 4;
        for (Entry e : entries) {
            n += 16 + Values.size(e.value());
        }
        return n;
    }

    static Candidates read(AggregationKind kind, ByteBuffer b) {
        Candidates c = new Candidates(kind);
        int n = b.getInt();
        for (int i = 0; i < n; i++) {
            long t = b.getLong();
            long s = b.getLong();
            c.entries.add(new Entry(t, s, Values.read(b)));
        }
        return c;
    }

    /** Tagged values in state rows: null, long, double, string, boolean, numeric. */
    static final class Values {
        private static final byte NULL = 0;
        private static final byte LONG = 1;
        private static final byte DOUBLE = 2;
        private static final byte STRING = 3;
        private static final byte BOOLEAN = 4;
        /** A NUMERIC value: {@link NumericBytes}' form after the tag. */
        private static final byte NUMERIC = 5;
        private static final VarHandle BIG_ENDIAN_LONG =
                MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);
        private static final VarHandle BIG_ENDIAN_INT =
                MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);

        private Values() {
        }

        static int size(Object v) {
            if (v == null) {
                return 1;
            }
            if (v instanceof String s) {
                return 1 + 4 + s.getBytes(StandardCharsets.UTF_8).length;
            }
            if (v instanceof BigDecimal d) {
                return 1 + NumericBytes.HEADER + NumericBytes.unscaled(NumericBytes.normal(d)).length;
            }
            return v instanceof Boolean ? 2 : 9;
        }

        static void write(ByteBuffer b, Object v) {
            if (v == null) {
                b.put(NULL);
            } else if (v instanceof Double d) {
                b.put(DOUBLE).putDouble(d);
            } else if (v instanceof BigDecimal d) {
                b.put(NUMERIC);
                NumericBytes.write(b, NumericBytes.normal(d));
            } else if (v instanceof Number n) {
                b.put(LONG).putLong(n.longValue());
            } else if (v instanceof String s) {
                byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
                b.put(STRING).putInt(bytes.length).put(bytes);
            } else if (v instanceof Boolean x) {
                b.put(BOOLEAN).put((byte) (x ? 1 : 0));
            } else {
                throw new IllegalArgumentException("cannot keep " + v.getClass().getSimpleName() + " in state");
            }
        }

        /** {@link #write} of a long at {@code out[at]}, without boxing it; returns where it ends. */
        static int writeLong(byte[] out, int at, long v) {
            out[at] = LONG;
            BIG_ENDIAN_LONG.set(out, at + 1, v);
            return at + 9;
        }

        static int writeDouble(byte[] out, int at, double v) {
            out[at] = DOUBLE;
            BIG_ENDIAN_LONG.set(out, at + 1, Double.doubleToRawLongBits(v));
            return at + 9;
        }

        /** A string given as its UTF-8 bytes {@code utf8[off .. off + len)}. */
        static int writeString(byte[] out, int at, byte[] utf8, int off, int len) {
            out[at] = STRING;
            BIG_ENDIAN_INT.set(out, at + 1, len);
            System.arraycopy(utf8, off, out, at + 5, len);
            return at + 5 + len;
        }

        /** A NUMERIC value given in {@link NumericBytes}' form at {@code bytes[off]}. */
        static int writeNumeric(byte[] out, int at, byte[] bytes, int off) {
            int n = NumericBytes.size(bytes, off);
            out[at] = NUMERIC;
            System.arraycopy(bytes, off, out, at + 1, n);
            return at + 1 + n;
        }

        static int writeBoolean(byte[] out, int at, boolean v) {
            out[at] = BOOLEAN;
            out[at + 1] = (byte) (v ? 1 : 0);
            return at + 2;
        }

        static int writeNull(byte[] out, int at) {
            out[at] = NULL;
            return at + 1;
        }

        static Object read(ByteBuffer b) {
            byte tag = b.get();
            return switch (tag) {
                case NULL -> null;
                case LONG -> b.getLong();
                case DOUBLE -> b.getDouble();
                case NUMERIC -> {
                    BigDecimal d = NumericBytes.read(b.array(), b.arrayOffset() + b.position());
                    b.position(b.position() + NumericBytes.size(b.array(), b.arrayOffset() + b.position()));
                    yield d;
                }
                case STRING -> {
                    byte[] bytes = new byte[b.getInt()];
                    b.get(bytes);
                    yield new String(bytes, StandardCharsets.UTF_8);
                }
                case BOOLEAN -> b.get() != 0;
                default -> throw new IllegalStateException("unknown value tag " + tag);
            };
        }
    }
}
