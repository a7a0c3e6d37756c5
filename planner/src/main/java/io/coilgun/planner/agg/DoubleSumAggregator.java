package io.coilgun.planner.agg;

import io.coilgun.planner.model.AggregationDef;
import java.nio.ByteBuffer;

/**
 * SUM of a floating-point argument, and AVG of any numeric argument. State: the count of non-null values and an
 * {@link ExactSum}: adding and removing are exact, and the reported sum is the correctly rounded true sum of the
 * window, whatever the order in which values came and went.
 */
final class DoubleSumAggregator extends Aggregator {
    private final boolean average;
    /** For {@link #result} (one task's thread uses an aggregator): the double-double sum, without allocating. */
    private final ByteBuffer scratch = ByteBuffer.allocate(ExactSum.BYTES);
    private final double[] sum = new double[2];

    DoubleSumAggregator(AggregationDef def, boolean average) {
        super(def);
        this.average = average;
    }

    @Override
    public int stateBytes() {
        return 8 + ExactSum.BYTES;
    }

    /** SUM of a double and AVG keep the same state: the count of non-null values and their exact sum. */
    @Override
    public boolean sameStateAs(Aggregator other) {
        return other instanceof DoubleSumAggregator;
    }

    /** Compact: the count of values in the low 56 bits of the exact sum's first long (see {@link ExactSum}). */
    @Override
    public int compactBytes() {
        return ExactSum.COMPACT_BYTES;
    }

    @Override
    public boolean addCompact(ByteBuffer state, int at, Object value) {
        if (value == null) {
            return true;
        }
        if (!ExactSum.addCompact(state, at, ((Number) value).doubleValue())) {
            return false;
        }
        state.putLong(at, state.getLong(at) + 1);
        return true;
    }

    @Override
    public boolean removeCompact(ByteBuffer state, int at, Object value) {
        if (value == null) {
            return true;
        }
        if (!ExactSum.addCompact(state, at, -((Number) value).doubleValue())) {
            return false;
        }
        state.putLong(at, state.getLong(at) - 1);
        return true;
    }

    @Override
    public boolean addCompact(ByteBuffer state, int at, Argument value) {
        if (value.isNull()) {
            return true;
        }
        if (!ExactSum.addCompact(state, at, value.doubleValue())) {
            return false;
        }
        state.putLong(at, state.getLong(at) + 1);
        return true;
    }

    @Override
    public boolean removeCompact(ByteBuffer state, int at, Argument value) {
        if (value.isNull()) {
            return true;
        }
        if (!ExactSum.addCompact(state, at, -value.doubleValue())) {
            return false;
        }
        state.putLong(at, state.getLong(at) - 1);
        return true;
    }

    @Override
    public void add(ByteBuffer state, int at, Argument value) {
        if (!value.isNull()) {
            state.putLong(at, state.getLong(at) + 1);
            ExactSum.add(state, at + 8, value.doubleValue());
        }
    }

    @Override
    public void remove(ByteBuffer state, int at, Argument value) {
        if (!value.isNull()) {
            state.putLong(at, state.getLong(at) - 1);
            ExactSum.remove(state, at + 8, value.doubleValue());
        }
    }

    @Override
    public void widen(ByteBuffer compact, int from, ByteBuffer full, int to) {
        full.putLong(to, compact.getLong(from) & ExactSum.OWNERS_BITS);
        ExactSum.widen(compact, from, full, to + 8);
    }

    @Override
    public boolean narrow(ByteBuffer full, int from, ByteBuffer compact, int to) {
        long n = full.getLong(from);
        if (n < 0 || n > ExactSum.OWNERS_BITS) {
            return false;
        }
        compact.putLong(to, n);
        return ExactSum.narrow(full, from + 8, compact, to);
    }

    @Override
    public void add(ByteBuffer state, int at, Object value) {
        if (value != null) {
            state.putLong(at, state.getLong(at) + 1);
            ExactSum.add(state, at + 8, ((Number) value).doubleValue());
        }
    }

    @Override
    public void remove(ByteBuffer state, int at, Object value) {
        if (value != null) {
            state.putLong(at, state.getLong(at) - 1);
            ExactSum.remove(state, at + 8, ((Number) value).doubleValue());
        }
    }

    @Override
    public Object result(ByteBuffer state, int at) {
        return state.getLong(at) == 0 ? null : (Object) value(state, at);
    }

    @Override
    public void result(ByteBuffer state, int at, Results out, int i) {
        if (state.getLong(at) == 0) {
            out.setNull(i);
        } else {
            out.setDouble(i, value(state, at));
        }
    }

    /** The sum or the average of a window with values in it. */
    private double value(ByteBuffer state, int at) {
        long n = state.getLong(at);
        if (!average) {
            return ExactSum.value(state, at + 8);
        }
        ExactSum.doubleDouble(state, at + 8, scratch, sum);
        // (hi + lo) / n, rounded once
        double q = sum[0] / n;
        double r = (Math.fma(-q, n, sum[0]) + sum[1]) / n;
        return q + r;
    }
}
