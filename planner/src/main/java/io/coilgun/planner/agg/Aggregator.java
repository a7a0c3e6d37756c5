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

    /** The value reported for the window: a Long, a Double or null. */
    public abstract Object result(ByteBuffer state, int at);

    public static Aggregator of(AggregationDef def, ColumnType argumentType) {
        return switch (def.kind()) {
            case COUNT_STAR, COUNT -> new CountAggregator(def);
            case SUM -> argumentType.isIntegral() ? new LongSumAggregator(def) : new DoubleSumAggregator(def, false);
            case AVG -> new DoubleSumAggregator(def, true);
            case STDDEV -> new VarianceAggregator(def, true);
            case STDDEV_POP -> new VarianceAggregator(def, false);
            default -> throw new IllegalArgumentException(def.kind() + " is not supported yet");
        };
    }
}
