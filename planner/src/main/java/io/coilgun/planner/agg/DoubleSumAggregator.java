package io.coilgun.planner.agg;

import io.coilgun.planner.model.AggregationDef;
import java.nio.ByteBuffer;

/**
 * SUM of a floating-point column, and AVG of any numeric column. State: count of non-null values, sum and
 * its compensation term. Adding and removing are Neumaier (compensated) steps, so the pair (sum, compensation)
 * carries the running sum to about twice double precision: values that leave a long window do not leave
 * rounding error behind.
 */
final class DoubleSumAggregator extends Aggregator {
    private final boolean average;

    DoubleSumAggregator(AggregationDef def, boolean average) {
        super(def);
        this.average = average;
    }

    @Override
    public int stateBytes() {
        return 24;
    }

    @Override
    public void add(ByteBuffer state, int at, Object value) {
        if (value != null) {
            state.putLong(at, state.getLong(at) + 1);
            accumulate(state, at + 8, ((Number) value).doubleValue());
        }
    }

    @Override
    public void remove(ByteBuffer state, int at, Object value) {
        if (value != null) {
            long n = state.getLong(at) - 1;
            state.putLong(at, n);
            if (n == 0) {
                // An empty window is exactly zero; do not carry the rounding residue of everything that left.
                state.putDouble(at + 8, 0.0).putDouble(at + 16, 0.0);
            } else {
                accumulate(state, at + 8, -((Number) value).doubleValue());
            }
        }
    }

    private static void accumulate(ByteBuffer state, int at, double x) {
        double sum = state.getDouble(at);
        double comp = state.getDouble(at + 8);
        double t = sum + x;
        if (Math.abs(sum) >= Math.abs(x)) {
            comp += (sum - t) + x;
        } else {
            comp += (x - t) + sum;
        }
        state.putDouble(at, t).putDouble(at + 8, comp);
    }

    @Override
    public Object result(ByteBuffer state, int at) {
        long n = state.getLong(at);
        if (n == 0) {
            return null;
        }
        double sum = state.getDouble(at + 8) + state.getDouble(at + 16);
        return average ? sum / n : sum;
    }
}
