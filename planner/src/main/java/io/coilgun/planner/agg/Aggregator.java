package io.coilgun.planner.agg;

import io.coilgun.planner.model.AggregationDef;
import io.coilgun.planner.model.ColumnType;
import java.nio.ByteBuffer;

/**
 * One invertible aggregation over a window, kept in a fixed-size slot of a group's state buffer.
 * {@link #add} takes an event into the window and {@link #remove} takes it out again; both see the
 * aggregation's argument value (null for a NULL column; COUNT(*) gets a non-null marker).
 *
 * <p>The invertible aggregations: COUNT, SUM, AVG, STDDEV, STDDEV_POP. MIN/MAX, LAST/PREV and COUNT(DISTINCT) need
 * auxiliary state and are not here yet.
 */
public abstract class Aggregator {
    private final AggregationDef def;

    protected Aggregator(AggregationDef def) {
        this.def = def;
    }

    public AggregationDef def() {
        return def;
    }

    /** Bytes this aggregation takes in a group's state. */
    public abstract int stateBytes();

    public abstract void add(ByteBuffer state, int at, Object value);

    public abstract void remove(ByteBuffer state, int at, Object value);

    /**
     * Bytes this aggregation takes in a group's slot in memory (its <em>compact</em> form, {@link #addCompact}); the
     * full form ({@link #stateBytes}) is used where the compact one does not fit. The same unless overridden.
     */
    public int compactBytes() {
        return stateBytes();
    }

    /** {@link #add} on the compact form; false, leaving the state unchanged, when the result does not fit in it. */
    public boolean addCompact(ByteBuffer state, int at, Object value) {
        add(state, at, value);
        return true;
    }

    /** {@link #remove} on the compact form; false, leaving the state unchanged, when the result does not fit. */
    public boolean removeCompact(ByteBuffer state, int at, Object value) {
        remove(state, at, value);
        return true;
    }

    /** {@link #add(ByteBuffer, int, Object)} of an argument read in place (boxed unless overridden). */
    public void add(ByteBuffer state, int at, Argument value) {
        add(state, at, value.value());
    }

    /** {@link #remove(ByteBuffer, int, Object)} of an argument read in place (boxed unless overridden). */
    public void remove(ByteBuffer state, int at, Argument value) {
        remove(state, at, value.value());
    }

    /**
     * {@link #addCompact(ByteBuffer, int, Object)} of an argument read in place: {@link #add(ByteBuffer, int,
     * Argument)} unless overridden (the compact form is the full one unless {@link #compactBytes} says otherwise).
     */
    public boolean addCompact(ByteBuffer state, int at, Argument value) {
        add(state, at, value);
        return true;
    }

    /** {@link #removeCompact(ByteBuffer, int, Object)} of an argument read in place; see {@link #addCompact}. */
    public boolean removeCompact(ByteBuffer state, int at, Argument value) {
        remove(state, at, value);
        return true;
    }

    /** Writes the full form of the compact state at {@code from} to {@code to} of {@code full}. */
    public void widen(ByteBuffer compact, int from, ByteBuffer full, int to) {
        System.arraycopy(compact.array(), from, full.array(), to, stateBytes());
    }

    /** Writes the compact form of the full state at {@code from}, when it has one (else returns false). */
    public boolean narrow(ByteBuffer full, int from, ByteBuffer compact, int to) {
        System.arraycopy(full.array(), from, compact.array(), to, stateBytes());
        return true;
    }

    /**
     * Whether this aggregator keeps the same state as {@code other} for the same argument (one state can then serve
     * both: see RowLayout); false unless overridden.
     */
    public boolean sameStateAs(Aggregator other) {
        return false;
    }

    /** The value reported for the window: a Long, a Double, a BigDecimal or null. */
    public abstract Object result(ByteBuffer state, int at);

    /** Writes {@link #result} into value {@code i} of {@code out}, without boxing it where overridden. */
    public void result(ByteBuffer state, int at, Results out, int i) {
        out.set(i, result(state, at));
    }

    public static Aggregator of(AggregationDef def, ColumnType argumentType) {
        return of(def, argumentType, false);
    }

    /**
     * The aggregator of {@code def} over an argument of {@code argumentType}; {@code ownScales}: a NUMERIC column
     * without a declared scale, whose values keep their own.
     */
    public static Aggregator of(AggregationDef def, ColumnType argumentType, boolean ownScales) {
        boolean numeric = argumentType == ColumnType.NUMERIC;
        return switch (def.kind()) {
            case COUNT_STAR, COUNT -> new CountAggregator(def);
            case SUM -> argumentType.isIntegral() ? new LongSumAggregator(def)
                    : numeric ? new NumericSumAggregator(def, false, ownScales) : new DoubleSumAggregator(def, false);
            case AVG -> numeric ? new NumericSumAggregator(def, true, ownScales) : new DoubleSumAggregator(def, true);
            case STDDEV -> new VarianceAggregator(def, true);
            case STDDEV_POP -> new VarianceAggregator(def, false);
            default -> throw new IllegalArgumentException(def.kind() + " is not supported yet");
        };
    }
}
