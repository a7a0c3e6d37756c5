package io.coilgun.planner.agg;

import io.coilgun.planner.model.AggregationDef;
import io.coilgun.planner.model.ColumnType;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;

/**
 * SUM of an integer argument, exact: the sum is kept in 128 bits (two's complement, high and low long), which no
 * window of 64-bit values can overflow. State: count of non-null values, high, low. Reported as a Long when it fits
 * in one (the usual case: no allocation beyond the box), else as a BigDecimal for a numeric result; a sum of int4
 * values (an int8 result, as in Postgres) that leaves the int8 range is an error, as in Postgres.
 */
final class LongSumAggregator extends Aggregator {
    private final boolean numeric;

    LongSumAggregator(AggregationDef def) {
        super(def);
        this.numeric = def.resultType() == ColumnType.NUMERIC;
    }

    @Override
    public int stateBytes() {
        return 24;
    }

    @Override
    public void add(ByteBuffer state, int at, Object value) {
        if (value != null) {
            addLong(state, at, ((Number) value).longValue());
        }
    }

    @Override
    public void remove(ByteBuffer state, int at, Object value) {
        if (value != null) {
            removeLong(state, at, ((Number) value).longValue());
        }
    }

    @Override
    public void add(ByteBuffer state, int at, Argument value) {
        if (!value.isNull()) {
            addLong(state, at, value.longValue());
        }
    }

    @Override
    public void remove(ByteBuffer state, int at, Argument value) {
        if (!value.isNull()) {
            removeLong(state, at, value.longValue());
        }
    }

    private static void addLong(ByteBuffer state, int at, long v) {
        long lo = state.getLong(at + 16);
        long sum = lo + v;
        long carry = Long.compareUnsigned(sum, lo) < 0 ? 1 : 0;
        state.putLong(at, state.getLong(at) + 1);
        state.putLong(at + 8, state.getLong(at + 8) + (v >> 63) + carry);
        state.putLong(at + 16, sum);
    }

    private static void removeLong(ByteBuffer state, int at, long v) {
        long lo = state.getLong(at + 16);
        long borrow = Long.compareUnsigned(lo, v) < 0 ? 1 : 0;
        state.putLong(at, state.getLong(at) - 1);
        state.putLong(at + 8, state.getLong(at + 8) - (v >> 63) - borrow);
        state.putLong(at + 16, lo - v);
    }

    @Override
    public void result(ByteBuffer state, int at, Results out, int i) {
        long lo = state.getLong(at + 16);
        if (state.getLong(at) != 0 && state.getLong(at + 8) == lo >> 63) {
            out.setLong(i, lo); // fits in a long
        } else {
            out.set(i, result(state, at));
        }
    }

    @Override
    public Object result(ByteBuffer state, int at) {
        if (state.getLong(at) == 0) {
            return null;
        }
        long hi = state.getLong(at + 8);
        long lo = state.getLong(at + 16);
        if (hi == lo >> 63) {
            return lo; // fits in a long
        }
        if (!numeric) {
            throw new ArithmeticException("bigint out of range");
        }
        return new BigDecimal(BigInteger.valueOf(hi).shiftLeft(64).add(
                new BigInteger(Long.toUnsignedString(lo))));
    }
}
