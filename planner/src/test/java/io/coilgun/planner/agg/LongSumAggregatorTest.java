package io.coilgun.planner.agg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.coilgun.planner.model.AggregationDef;
import io.coilgun.planner.model.AggregationKind;
import io.coilgun.planner.model.ColumnType;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** SUM of integers is exact in 128 bits: no window of longs overflows it, and removing undoes adding. */
class LongSumAggregatorTest {
    private static Aggregator sum(ColumnType result) {
        return Aggregator.of(new AggregationDef(AggregationKind.SUM, 0, "s", result), ColumnType.BIGINT);
    }

    @Test
    void bigintSumsBeyondTheLongRangeAreExactNumerics() {
        Aggregator agg = sum(ColumnType.NUMERIC);
        ByteBuffer state = ByteBuffer.allocate(agg.stateBytes());
        assertNull(agg.result(state, 0));
        Random rnd = new Random(1);
        BigInteger exact = BigInteger.ZERO;
        long[] added = new long[2000];
        for (int i = 0; i < added.length; i++) {
            added[i] = rnd.nextBoolean() ? Long.MAX_VALUE - rnd.nextInt(100) : Long.MIN_VALUE + rnd.nextInt(100);
            if (i < 1000) {
                added[i] = Math.abs(added[i] % 2) == 0 ? Long.MAX_VALUE : added[i]; // run far above 2^63 first
            }
            agg.add(state, 0, added[i]);
            exact = exact.add(BigInteger.valueOf(added[i]));
            assertEquals(0, new BigDecimal(exact).compareTo(decimal(agg.result(state, 0))), "after " + i);
        }
        for (int i = 0; i < added.length - 1; i++) {
            agg.remove(state, 0, added[i]);
            exact = exact.subtract(BigInteger.valueOf(added[i]));
            assertEquals(0, new BigDecimal(exact).compareTo(decimal(agg.result(state, 0))), "removing " + i);
        }
        assertEquals(added[added.length - 1], agg.result(state, 0)); // back in the long range: a Long again
    }

    @Test
    void anIntegerSumBeyondBigintIsAnError() {
        Aggregator agg = sum(ColumnType.BIGINT);
        ByteBuffer state = ByteBuffer.allocate(agg.stateBytes());
        agg.add(state, 0, Long.MAX_VALUE);
        agg.add(state, 0, 1L);
        assertThrows(ArithmeticException.class, () -> agg.result(state, 0));
        agg.remove(state, 0, Long.MAX_VALUE);
        assertEquals(1L, agg.result(state, 0));
    }

    private static BigDecimal decimal(Object v) {
        return v instanceof BigDecimal d ? d : BigDecimal.valueOf((Long) v);
    }
}
