package io.coilgun.planner.agg;

import java.math.BigDecimal;
import java.math.RoundingMode;

/**
 * A quotient of numerics to Postgres' scale ({@code select_div_scale}): at least 16 significant digits, and no fewer
 * decimals than either operand ({@code 1::numeric / 3} is 0.33333333333333333333, {@code 10::numeric / 4} is
 * 2.5000000000000000), rounded half away from zero. Queries' division and {@code avg} of a NUMERIC column use it.
 */
public final class NumericQuotient {
    /** Postgres' minimum significant digits of a quotient. */
    private static final int MIN_SIGNIFICANT_DIGITS = 16;
    /** Postgres' largest scale a quotient is given. */
    private static final int MAX_DISPLAY_SCALE = 1000;
    /** Decimal digits in one of Postgres' base-10,000 numeric digits. */
    private static final int DEC_DIGITS = 4;

    private NumericQuotient() {
    }

    /** {@code a / b} ({@code b} not zero). */
    public static BigDecimal divide(BigDecimal a, BigDecimal b) {
        return a.divide(b, scale(a, b), RoundingMode.HALF_UP);
    }

    /** The scale Postgres gives {@code a / b}: digits by its base-10,000 weights of the operands. */
    public static int scale(BigDecimal a, BigDecimal b) {
        int weight1 = weight(a);
        int weight2 = weight(b);
        int quotientWeight = weight1 - weight2;
        if (firstDigit(a, weight1) <= firstDigit(b, weight2)) {
            quotientWeight--;
        }
        int scale = MIN_SIGNIFICANT_DIGITS - quotientWeight * DEC_DIGITS;
        scale = Math.max(scale, Math.max(a.scale(), 0));
        scale = Math.max(scale, Math.max(b.scale(), 0));
        return Math.min(scale, MAX_DISPLAY_SCALE);
    }

    /** The power of 10,000 of the value's leading base-10,000 digit (0 for zero). */
    private static int weight(BigDecimal v) {
        if (v.signum() == 0) {
            return 0;
        }
        int exponent = v.precision() - v.scale() - 1; // of the leading decimal digit
        return Math.floorDiv(exponent, DEC_DIGITS);
    }

    private static int firstDigit(BigDecimal v, int weight) {
        return v.signum() == 0 ? 0 : v.abs().movePointLeft(weight * DEC_DIGITS).intValue();
    }
}
