package io.coilgun.planner.agg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.coilgun.planner.event.NumericBytes;
import io.coilgun.planner.model.AggregationDef;
import io.coilgun.planner.model.AggregationKind;
import io.coilgun.planner.model.ColumnType;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * SUM and AVG of a NUMERIC column against BigDecimal arithmetic, which is Postgres' for these: a sum has the largest
 * scale of its terms ({@link BigDecimal#add} does the same), an average is that sum divided to Postgres' quotient
 * scale. Values of many scales and sizes (some beyond a long) come and go in window order and out of it, read as
 * objects and in place.
 */
class NumericSumAggregatorTest {
    private static Aggregator aggregator(AggregationKind kind, boolean ownScales) {
        return Aggregator.of(new AggregationDef(kind, 0, "a", ColumnType.NUMERIC), ColumnType.NUMERIC, ownScales);
    }

    @Test
    void sumsAndAveragesOfValuesOfTheirOwnScalesAreExact() {
        Random rnd = new Random(7);
        for (int round = 0; round < 20; round++) {
            check(rnd, true, () -> value(rnd, rnd.nextInt(rnd.nextBoolean() ? 16 : 21)));
        }
    }

    @Test
    void aColumnOfOneScaleSumsAtIt() {
        Random rnd = new Random(8);
        for (int round = 0; round < 10; round++) {
            int scale = rnd.nextInt(6);
            check(rnd, false, () -> value(rnd, scale));
        }
    }

    @Test
    void theSumsScaleFallsWhenItsLargestScaleLeavesTheWindow() {
        Aggregator sum = aggregator(AggregationKind.SUM, true);
        ByteBuffer state = ByteBuffer.allocate(sum.stateBytes());
        sum.add(state, 0, new BigDecimal("1.125"));
        sum.add(state, 0, new BigDecimal("2.5"));
        sum.add(state, 0, new BigDecimal("3"));
        assertEquals(new BigDecimal("6.625"), sum.result(state, 0));
        sum.remove(state, 0, new BigDecimal("1.125"));
        assertEquals("5.5", sum.result(state, 0).toString());
        sum.remove(state, 0, new BigDecimal("2.5"));
        assertEquals("3", sum.result(state, 0).toString());
        sum.remove(state, 0, new BigDecimal("3"));
        assertNull(sum.result(state, 0));
    }

    @Test
    void aSumPastThirtyEightDigitsIsAnErrorUntilTheWindowEmpties() {
        Aggregator sum = aggregator(AggregationKind.SUM, true);
        ByteBuffer state = ByteBuffer.allocate(sum.stateBytes());
        BigDecimal big = new BigDecimal("9".repeat(37) + ".5");
        sum.add(state, 0, big);
        sum.add(state, 0, big);
        sum.add(state, 0, big);
        assertThrows(ArithmeticException.class, () -> sum.result(state, 0));
        sum.remove(state, 0, big);
        assertThrows(ArithmeticException.class, () -> sum.result(state, 0)); // not known again until empty
        sum.remove(state, 0, big);
        sum.remove(state, 0, big);
        assertNull(sum.result(state, 0));
        sum.add(state, 0, new BigDecimal("0.25"));
        assertEquals(new BigDecimal("0.25"), sum.result(state, 0));
    }

    private interface Values {
        BigDecimal next();
    }

    /** A window of random length: values come, the oldest (or, a tenth of the time, any) leave. */
    private static void check(Random rnd, boolean ownScales, Values values) {
        Aggregator sum = aggregator(AggregationKind.SUM, ownScales);
        Aggregator avg = aggregator(AggregationKind.AVG, ownScales);
        ByteBuffer state = ByteBuffer.allocate(sum.stateBytes());
        Deque<BigDecimal> window = new ArrayDeque<>();
        int length = 1 + rnd.nextInt(30);
        for (int i = 0; i < 400; i++) {
            if (window.size() >= length || (!window.isEmpty() && rnd.nextInt(4) == 0)) {
                BigDecimal leaving;
                if (rnd.nextInt(10) == 0) {
                    List<BigDecimal> all = new ArrayList<>(window);
                    leaving = all.get(rnd.nextInt(all.size()));
                    window.removeFirstOccurrence(leaving);
                } else {
                    leaving = window.removeFirst();
                }
                if (rnd.nextBoolean()) {
                    sum.remove(state, 0, leaving);
                } else {
                    sum.remove(state, 0, inPlace(leaving));
                }
            } else {
                BigDecimal v = values.next();
                window.addLast(v);
                if (rnd.nextBoolean()) {
                    sum.add(state, 0, v);
                } else {
                    sum.add(state, 0, inPlace(v));
                }
            }
            BigDecimal expected = window.stream().reduce(BigDecimal::add).orElse(null);
            BigDecimal got = (BigDecimal) sum.result(state, 0);
            if (window.stream().allMatch(v -> v.scale() <= 15)) { // the scales counted one by one: Postgres' scale
                assertEquals(expected, got, "sum of " + window);
                assertEquals(expected == null ? null
                        : NumericQuotient.divide(expected, BigDecimal.valueOf(window.size())), avg.result(state, 0),
                        "avg of " + window);
            } else { // the same value, at the largest scale since those values came
                assertEquals(0, expected.compareTo(got), "sum of " + window + ": " + got);
            }
        }
    }

    /**
     * A value of {@code scale} digits after the point, small or (a fifth of the time, at a scale of 7 or more) with
     * an unscaled value beyond a long, any sign; below 10^15, so that 30 of them at scale 20 fit in 38 digits.
     */
    private static BigDecimal value(Random rnd, int scale) {
        BigInteger unscaled = scale >= 7 && rnd.nextInt(5) == 0 ? new BigInteger(64 + rnd.nextInt(6), rnd)
                : BigInteger.valueOf(rnd.nextInt(2_000_000));
        return new BigDecimal(rnd.nextBoolean() ? unscaled : unscaled.negate(), scale);
    }

    /** The value as a column of an event gives it: its bytes, read in place. */
    private static Argument inPlace(BigDecimal v) {
        ByteBuffer b = ByteBuffer.allocate(NumericBytes.HEADER + NumericBytes.unscaled(v).length + 3);
        b.put(new byte[3]); // not at the start of the array
        NumericBytes.write(b, v);
        byte[] bytes = b.array();
        return new Argument() {
            @Override
            public boolean isNull() {
                return false;
            }

            @Override
            public long longValue() {
                throw new UnsupportedOperationException();
            }

            @Override
            public double doubleValue() {
                throw new UnsupportedOperationException();
            }

            @Override
            public Object value() {
                throw new UnsupportedOperationException("read in place");
            }

            @Override
            public byte[] numericBytes() {
                return bytes;
            }

            @Override
            public int numericOffset() {
                return 3;
            }
        };
    }
}
