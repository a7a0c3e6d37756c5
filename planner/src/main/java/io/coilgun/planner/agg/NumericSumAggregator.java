package io.coilgun.planner.agg;

import io.coilgun.planner.event.NumericBytes;
import io.coilgun.planner.model.AggregationDef;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;

/**
 * SUM and AVG of a NUMERIC column, exact, as Postgres computes them: the sum of the window's values with the largest
 * scale among them ({@code 1.5 + 2.25} is 3.75, {@code 1.50 + 2} is 3.50), the average that sum divided by the count
 * to Postgres' quotient scale ({@link NumericQuotient}).
 *
 * <p>State: the count of non-null values; the sum, unscaled, in 128 bits ({@link Int128}) at a scale kept beside it
 * (raised when a value of a larger scale comes); an overflow mark, set when the sum leaves 128 bits (about 38 digits
 * at its scale) and cleared when the window empties, which makes the result an error meanwhile (the task then fails
 * the event that took the sum there, and goes on without it). A column declared
 * without a scale ({@code NUMERIC}) also counts its values per scale (0 to 15, and one count for larger ones), so
 * that the sum's scale falls again when the values of the largest scale leave the window.
 */
final class NumericSumAggregator extends Aggregator {
    private static final int COUNT = 0;
    private static final int SUM = 8;
    private static final int SCALE = SUM + Int128.BYTES;
    private static final int OVERFLOW = SCALE + 2;
    private static final int BASE_BYTES = OVERFLOW + 2;
    /** Scales counted one by one; larger ones share the last count. */
    private static final int COUNTED_SCALES = 16;
    private static final int SCALES_BYTES = (COUNTED_SCALES + 1) * 4;

    private final boolean average;
    /** Whether values keep their own scale (a column without one): the counts per scale are kept. */
    private final boolean ownScales;
    /** For a term that does not fit in a long: (high, low). One task's thread uses an aggregator. */
    private final long[] split = new long[2];

    NumericSumAggregator(AggregationDef def, boolean average, boolean ownScales) {
        super(def);
        this.average = average;
        this.ownScales = ownScales;
    }

    @Override
    public int stateBytes() {
        return ownScales ? BASE_BYTES + SCALES_BYTES : BASE_BYTES;
    }

    @Override
    public boolean sameStateAs(Aggregator other) {
        return other instanceof NumericSumAggregator n && n.ownScales == ownScales;
    }

    @Override
    public void add(ByteBuffer state, int at, Object value) {
        if (value != null) {
            BigDecimal d = NumericBytes.normal((BigDecimal) value);
            change(state, at, d.unscaledValue(), 0, d.scale(), 1);
        }
    }

    @Override
    public void remove(ByteBuffer state, int at, Object value) {
        if (value != null) {
            BigDecimal d = NumericBytes.normal((BigDecimal) value);
            change(state, at, d.unscaledValue(), 0, d.scale(), -1);
        }
    }

    @Override
    public void add(ByteBuffer state, int at, Argument value) {
        changeBy(state, at, value, 1);
    }

    @Override
    public void remove(ByteBuffer state, int at, Argument value) {
        changeBy(state, at, value, -1);
    }

    private void changeBy(ByteBuffer state, int at, Argument value, int sign) {
        if (value.isNull()) {
            return;
        }
        byte[] bytes = value.numericBytes();
        if (bytes == null) {
            BigDecimal d = NumericBytes.normal((BigDecimal) value.value());
            change(state, at, d.unscaledValue(), 0, d.scale(), sign);
            return;
        }
        int off = value.numericOffset();
        int scale = NumericBytes.scale(bytes, off);
        if (NumericBytes.fitsLong(bytes, off)) {
            change(state, at, null, NumericBytes.unscaledLong(bytes, off), scale, sign);
        } else {
            change(state, at, NumericBytes.read(bytes, off).unscaledValue(), 0, scale, sign);
        }
    }

    /**
     * Adds ({@code sign} 1) or removes (-1) the value {@code unscaled × 10^-scale}; {@code unscaled} is {@code big}
     * when not null, else {@code small}.
     */
    private void change(ByteBuffer state, int at, BigInteger big, long small, int scale, int sign) {
        long count = state.getLong(at + COUNT) + sign;
        state.putLong(at + COUNT, count);
        if (ownScales) {
            int c = at + BASE_BYTES + 4 * Math.min(scale, COUNTED_SCALES);
            state.putInt(c, state.getInt(c) + sign);
        }
        if (count == 0) { // the window is empty: so is the sum, whatever happened to it
            state.putLong(at + SUM, 0).putLong(at + SUM + 8, 0).putShort(at + SCALE, (short) 0);
            state.put(at + OVERFLOW, (byte) 0);
            return;
        }
        if (state.get(at + OVERFLOW) != 0) {
            return;
        }
        int sumScale = state.getShort(at + SCALE);
        if (scale > sumScale) {
            if (sign < 0 || !Int128.multiplyByPowerOfTen(state, at + SUM, scale - sumScale)) {
                overflow(state, at);
                return;
            }
            sumScale = scale;
            state.putShort(at + SCALE, (short) scale);
        }
        int shift = sumScale - scale;
        boolean done;
        if (big == null && shift < Int128.POWERS_OF_TEN.length) {
            long p = Int128.POWERS_OF_TEN[shift];
            long hi = Math.multiplyHigh(small, p);
            long lo = small * p;
            done = sign > 0 ? Int128.add(state, at + SUM, hi, lo) : Int128.subtract(state, at + SUM, hi, lo);
        } else {
            BigInteger term = (big == null ? BigInteger.valueOf(small) : big).multiply(BigInteger.TEN.pow(shift));
            done = Int128.split(term, split) && (sign > 0 ? Int128.add(state, at + SUM, split[0], split[1])
                    : Int128.subtract(state, at + SUM, split[0], split[1]));
        }
        if (!done) {
            overflow(state, at);
        } else if (sign < 0 && ownScales) {
            lowerScale(state, at, sumScale);
        }
    }

    private static void overflow(ByteBuffer state, int at) {
        state.put(at + OVERFLOW, (byte) 1);
    }

    /** The largest scale among the window's values, when it is counted (else the sum's own). */
    private static int largestScale(ByteBuffer state, int at, int sumScale) {
        int counts = at + BASE_BYTES;
        if (state.getInt(counts + 4 * COUNTED_SCALES) > 0) {
            return sumScale;
        }
        for (int s = Math.min(sumScale, COUNTED_SCALES - 1); s > 0; s--) {
            if (state.getInt(counts + 4 * s) > 0) {
                return s;
            }
        }
        return 0;
    }

    /** After a removal: the sum at the largest scale left, exactly (each value left is a multiple of its unit). */
    private static void lowerScale(ByteBuffer state, int at, int sumScale) {
        int largest = largestScale(state, at, sumScale);
        if (largest < sumScale) {
            BigInteger lowered = Int128.get(state, at + SUM).divide(BigInteger.TEN.pow(sumScale - largest));
            Int128.set(state, at + SUM, lowered);
            state.putShort(at + SCALE, (short) largest);
        }
    }

    @Override
    public Object result(ByteBuffer state, int at) {
        long count = state.getLong(at + COUNT);
        if (count == 0) {
            return null;
        }
        if (state.get(at + OVERFLOW) != 0) {
            throw new ArithmeticException("numeric field overflow: the window's sum has more than 38 digits");
        }
        BigDecimal sum = new BigDecimal(Int128.get(state, at + SUM), state.getShort(at + SCALE));
        return average ? NumericQuotient.divide(sum, BigDecimal.valueOf(count)) : sum;
    }
}
