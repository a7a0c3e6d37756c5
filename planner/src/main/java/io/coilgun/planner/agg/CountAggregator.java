package io.coilgun.planner.agg;

import io.coilgun.planner.model.AggregationDef;
import java.nio.ByteBuffer;

/** COUNT(*) and COUNT(x): the number of events in the window (with a non-null argument). */
final class CountAggregator extends Aggregator {
    CountAggregator(AggregationDef def) {
        super(def);
    }

    @Override
    public int stateBytes() {
        return 8;
    }

    @Override
    public void add(ByteBuffer state, int at, Object value) {
        if (value != null) {
            state.putLong(at, state.getLong(at) + 1);
        }
    }

    @Override
    public void remove(ByteBuffer state, int at, Object value) {
        if (value != null) {
            state.putLong(at, state.getLong(at) - 1);
        }
    }

    @Override
    public void add(ByteBuffer state, int at, Argument value) {
        if (!value.isNull()) {
            state.putLong(at, state.getLong(at) + 1);
        }
    }

    @Override
    public void remove(ByteBuffer state, int at, Argument value) {
        if (!value.isNull()) {
            state.putLong(at, state.getLong(at) - 1);
        }
    }

    @Override
    public void result(ByteBuffer state, int at, Results out, int i) {
        out.setLong(i, state.getLong(at));
    }

    @Override
    public Object result(ByteBuffer state, int at) {
        return state.getLong(at);
    }
}
