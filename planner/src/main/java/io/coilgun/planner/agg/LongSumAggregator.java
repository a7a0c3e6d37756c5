package io.coilgun.planner.agg;

import io.coilgun.planner.model.AggregationDef;
import java.nio.ByteBuffer;

/**
 * SUM of an integer column: exact. State: count of non-null values, sum. The sum wraps on overflow the
 * same way when adding and removing, so it is exact whenever the window's true sum fits in a long.
 */
final class LongSumAggregator extends Aggregator {
    LongSumAggregator(AggregationDef def) {
        super(def);
    }

    @Override
    public int stateBytes() {
        return 16;
    }

    @Override
    public void add(ByteBuffer state, int at, Object value) {
        if (value != null) {
            state.putLong(at, state.getLong(at) + 1);
            state.putLong(at + 8, state.getLong(at + 8) + ((Number) value).longValue());
        }
    }

    @Override
    public void remove(ByteBuffer state, int at, Object value) {
        if (value != null) {
            state.putLong(at, state.getLong(at) - 1);
            state.putLong(at + 8, state.getLong(at + 8) - ((Number) value).longValue());
        }
    }

    @Override
    public Object result(ByteBuffer state, int at) {
        return state.getLong(at) == 0 ? null : state.getLong(at + 8);
    }
}
