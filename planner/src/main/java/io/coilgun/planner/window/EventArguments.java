package io.coilgun.planner.window;

import io.coilgun.planner.agg.Argument;
import io.coilgun.planner.event.EventView;
import io.coilgun.planner.event.NumericBytes;
import io.coilgun.planner.expr.CompiledExpression;
import io.coilgun.planner.expr.Expressions;
import io.coilgun.planner.model.ColumnType;
import io.coilgun.planner.model.MetricDef;
import io.coilgun.planner.model.StreamDef;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * The arguments of a metric's aggregations, read from an event in place ({@link EventView}): a column's value as a
 * primitive ({@link #of}, no boxing), COUNT(*)'s marker, or an expression's value (evaluated over the boxed event).
 * {@link #encode} writes them in {@link Candidates.Values}' form for the zones, without a boxed value for columns.
 * Single-threaded; the {@link Argument} {@link #of} returns is reused.
 */
final class EventArguments {
    /** Per aggregation, the column it reads, or -1 for COUNT(*) (and for an expression). */
    private final int[] columns;
    private final MetricDef def;
    private ColumnType[] types;
    /** Per aggregation, its argument expression, or null when it reads a column (or is COUNT(*)). */
    private CompiledExpression[] expressions;
    private final Cursor cursor = new Cursor();
    /** The expression arguments' values of the event {@link #encode} writes (reused). */
    private final Object[] evaluated;

    EventArguments(MetricDef def, StreamDef stream) {
        this.def = def;
        this.columns = new int[def.aggregations().size()];
        this.evaluated = new Object[columns.length];
        for (int i = 0; i < columns.length; i++) {
            columns[i] = def.aggregations().get(i).argument();
        }
        streamChanged(stream);
    }

    /** Compiles the expression arguments once, over the stream's columns. */
    void streamChanged(StreamDef stream) {
        List<String> names = stream.columns().stream().map(c -> c.name()).toList();
        types = stream.columns().stream().map(c -> c.type()).toArray(ColumnType[]::new);
        expressions = new CompiledExpression[columns.length];
        for (int i = 0; i < columns.length; i++) {
            String e = def.aggregations().get(i).expression();
            expressions[i] = e == null ? null : Expressions.compile(e, names);
        }
    }

    /** Aggregation {@code i}'s argument of event {@code e}, boxed (null for NULL, TRUE for COUNT(*)). */
    Object value(EventView e, int i) {
        if (expressions[i] != null) {
            return expressions[i].evaluate(e.values());
        }
        int column = columns[i];
        return column < 0 ? Boolean.TRUE : e.value(column);
    }

    /** Aggregation {@code i}'s argument of event {@code e}, read in place; valid until the next call. */
    Argument of(EventView e, int i) {
        cursor.event = e;
        cursor.column = columns[i];
        cursor.boxed = expressions[i] != null;
        if (cursor.boxed) {
            cursor.value = expressions[i].evaluate(e.values());
        }
        return cursor;
    }

    /** Every aggregation's argument of {@code e}, boxed (for candidates). */
    Object[] values(EventView e) {
        Object[] args = new Object[columns.length];
        for (int i = 0; i < args.length; i++) {
            args[i] = value(e, i);
        }
        return args;
    }

    /**
     * Writes every aggregation's argument of {@code e} into {@code out} from 0 ({@link Candidates.Values}' form):
     * returns the length, larger than {@code out.length} when it did not fit (the caller grows it and asks again).
     */
    int encode(EventView e, byte[] out) {
        int size = 0;
        for (int i = 0; i < columns.length; i++) {
            if (expressions[i] != null) {
                evaluated[i] = value(e, i); // once: written below from here
                size += Candidates.Values.size(evaluated[i]);
            } else {
                size += encodedSize(e, columns[i]);
            }
        }
        if (size > out.length) {
            return size;
        }
        int at = 0;
        for (int i = 0; i < columns.length; i++) {
            int c = columns[i];
            if (expressions[i] != null) {
                ByteBuffer b = ByteBuffer.wrap(out, at, out.length - at);
                Candidates.Values.write(b, evaluated[i]);
                at = b.position();
            } else if (c < 0) {
                at = Candidates.Values.writeBoolean(out, at, true); // COUNT(*)
            } else if (e.isNull(c)) {
                at = Candidates.Values.writeNull(out, at);
            } else {
                at = switch (types[c]) {
                    case DOUBLE -> Candidates.Values.writeDouble(out, at, e.getDouble(c));
                    case VARCHAR -> Candidates.Values.writeString(out, at, e.data(), e.stringOffset(c),
                            e.stringLength(c));
                    case BOOLEAN -> Candidates.Values.writeBoolean(out, at, e.getBoolean(c));
                    case NUMERIC -> Candidates.Values.writeNumeric(out, at, e.data(), e.numericOffset(c));
                    default -> Candidates.Values.writeLong(out, at, e.getLong(c));
                };
            }
        }
        return size;
    }

    private int encodedSize(EventView e, int column) {
        if (column < 0) {
            return 2; // COUNT(*)'s TRUE
        }
        if (e.isNull(column)) {
            return 1;
        }
        return switch (types[column]) {
            case VARCHAR -> 1 + 4 + e.stringLength(column);
            case BOOLEAN -> 2;
            case NUMERIC -> 1 + NumericBytes.size(e.data(), e.numericOffset(column));
            default -> 9;
        };
    }

    /** An argument of the event at hand: a column read in place, or an expression's value. */
    private static final class Cursor implements Argument {
        private EventView event;
        private int column;
        private boolean boxed;
        private Object value;

        @Override
        public boolean isNull() {
            return boxed ? value == null : column >= 0 && event.isNull(column);
        }

        @Override
        public long longValue() {
            return boxed ? ((Number) value).longValue() : column < 0 ? 1 : event.getLong(column);
        }

        @Override
        public double doubleValue() {
            return boxed ? ((Number) value).doubleValue() : column < 0 ? 1 : event.getDouble(column);
        }

        @Override
        public Object value() {
            return boxed ? value : column < 0 ? Boolean.TRUE : event.value(column);
        }

        @Override
        public byte[] numericBytes() {
            return !boxed && column >= 0 && event.type(column) == ColumnType.NUMERIC ? event.data() : null;
        }

        @Override
        public int numericOffset() {
            return event.numericOffset(column);
        }
    }
}
