package io.coilgun.pgwire.types;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.util.function.Predicate;

/**
 * {@code float4out}/{@code float8out} of Postgres 12+ with {@code extra_float_digits >= 1}: the shortest
 * decimal that reads back as the same binary value (closest to the exact value when several have that
 * length), printed in fixed notation when the decimal exponent is in {@code [-4, 6)} for float4 or
 * {@code [-4, 15)} for float8, otherwise as {@code d.ddde±XX} with at least two exponent digits.
 *
 * <p>Java 17's {@link Double#toString} is not always shortest (JDK-4511638), so the digits are found by
 * rounding the exact binary value to ever fewer significant digits and checking the round trip.
 */
final class PgFloatText {
    private static final int FLOAT8_FIXED_LIMIT = 15;
    private static final int FLOAT4_FIXED_LIMIT = 6;
    private static final int FLOAT8_MAX_DIGITS = 17;
    private static final int FLOAT4_MAX_DIGITS = 9;

    private PgFloatText() {
    }

    static String float8(double value) {
        String special = special(value, Double.doubleToRawLongBits(value) < 0);
        if (special != null) {
            return special;
        }
        BigDecimal digits = shortest(new BigDecimal(value), FLOAT8_MAX_DIGITS,
                candidate -> Double.parseDouble(candidate.toString()) == value);
        return layout(digits, FLOAT8_FIXED_LIMIT);
    }

    static String float4(float value) {
        String special = special(value, Float.floatToRawIntBits(value) < 0);
        if (special != null) {
            return special;
        }
        BigDecimal digits = shortest(new BigDecimal(value), FLOAT4_MAX_DIGITS,
                candidate -> Float.parseFloat(candidate.toString()) == value);
        return layout(digits, FLOAT4_FIXED_LIMIT);
    }

    private static String special(double value, boolean negative) {
        if (Double.isNaN(value)) {
            return "NaN";
        }
        if (Double.isInfinite(value)) {
            return negative ? "-Infinity" : "Infinity";
        }
        if (value == 0) {
            return negative ? "-0" : "0";
        }
        return null;
    }

    /**
     * The fewest significant digits that round-trip. Monotonic in the digit count (a p-digit decimal is
     * also a (p+1)-digit one), so a binary search over {@code 1..maxDigits} finds it.
     */
    private static BigDecimal shortest(BigDecimal exact, int maxDigits, Predicate<BigDecimal> roundTrips) {
        int low = 1;
        int high = maxDigits;
        while (low < high) {
            int mid = (low + high) >>> 1;
            if (closestRoundTripping(exact, mid, roundTrips) != null) {
                high = mid;
            } else {
                low = mid + 1;
            }
        }
        BigDecimal result = closestRoundTripping(exact, low, roundTrips);
        return result != null ? result : exact;
    }

    /**
     * Of the two {@code digits}-digit decimals around the exact value (any such decimal that round-trips lies
     * between one of them and the exact value, so one of them round-trips too), the closest that round-trips.
     */
    private static BigDecimal closestRoundTripping(BigDecimal exact, int digits, Predicate<BigDecimal> roundTrips) {
        BigDecimal down = exact.round(new MathContext(digits, RoundingMode.DOWN));
        BigDecimal up = exact.round(new MathContext(digits, RoundingMode.UP));
        boolean downOk = roundTrips.test(down);
        boolean upOk = roundTrips.test(up);
        if (downOk && upOk) {
            int cmp = exact.subtract(down).abs().compareTo(up.subtract(exact).abs());
            if (cmp != 0) {
                return cmp < 0 ? down : up;
            }
            return down.unscaledValue().testBit(0) ? up : down;
        }
        return downOk ? down : upOk ? up : null;
    }

    private static String layout(BigDecimal value, int fixedLimit) {
        BigDecimal stripped = value.stripTrailingZeros();
        String digits = stripped.unscaledValue().abs().toString();
        int exponent = digits.length() - 1 - stripped.scale();
        String sign = stripped.signum() < 0 ? "-" : "";
        if (exponent >= -4 && exponent < fixedLimit) {
            return sign + stripped.abs().toPlainString();
        }
        StringBuilder out = new StringBuilder(digits.length() + 8).append(sign).append(digits.charAt(0));
        if (digits.length() > 1) {
            out.append('.').append(digits, 1, digits.length());
        }
        out.append('e').append(exponent < 0 ? '-' : '+');
        int magnitude = Math.abs(exponent);
        if (magnitude < 10) {
            out.append('0');
        }
        return out.append(magnitude).toString();
    }
}
