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
 * rounding the exact binary value to ever fewer significant digits and checking the round trip. Except where
 * {@code Double.toString} gives at most 15 significant digits (amounts, counts, most sums): every decimal of at
 * most 15 digits is the only one of that length or shorter that reads back as its double (a normal double has
 * more than 15 digits of precision), so those digits are the shortest, found with no arithmetic.
 */
final class PgFloatText {
    private static final int FLOAT8_FIXED_LIMIT = 15;
    private static final int FLOAT4_FIXED_LIMIT = 6;
    private static final int FLOAT8_MAX_DIGITS = 17;
    /** DBL_DIG: a decimal of at most this many significant digits survives a round trip through a double. */
    private static final int FLOAT8_UNIQUE_DIGITS = 15;
    private static final int FLOAT4_MAX_DIGITS = 9;

    private PgFloatText() {
    }

    static String float8(double value) {
        String special = special(value, Double.doubleToRawLongBits(value) < 0);
        if (special != null) {
            return special;
        }
        if (Math.abs(value) >= Double.MIN_NORMAL) {
            String fast = fromJavaDigits(Double.toString(value), FLOAT8_FIXED_LIMIT);
            if (fast != null) {
                return fast;
            }
        }
        return float8Exact(value);
    }

    /** {@link #float8} by the exact search alone (tests compare the shortcut with it). */
    static String float8Exact(double value) {
        String special = special(value, Double.doubleToRawLongBits(value) < 0);
        if (special != null) {
            return special;
        }
        // a normal double's shortest decimal, if it has at most 15 digits, is the only one of 15 that round-trips:
        // the search starts there
        int fewest = Math.abs(value) >= Double.MIN_NORMAL ? FLOAT8_UNIQUE_DIGITS : 1;
        BigDecimal digits = shortest(new BigDecimal(value), fewest, FLOAT8_MAX_DIGITS,
                candidate -> Double.parseDouble(candidate.toString()) == value);
        return layout(digits, FLOAT8_FIXED_LIMIT);
    }

    static String float4(float value) {
        String special = special(value, Float.floatToRawIntBits(value) < 0);
        if (special != null) {
            return special;
        }
        BigDecimal digits = shortest(new BigDecimal(value), 1, FLOAT4_MAX_DIGITS,
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
     * The fewest significant digits that round-trip, at least {@code minDigits} (trailing zeros are stripped later).
     * Monotonic in the digit count (a p-digit decimal is also a (p+1)-digit one), so a binary search over
     * {@code minDigits..maxDigits} finds it.
     */
    private static BigDecimal shortest(BigDecimal exact, int minDigits, int maxDigits,
            Predicate<BigDecimal> roundTrips) {
        int low = minDigits;
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

    /**
     * Postgres' text from Java's ({@code 123.45}, {@code 1.0E-5}, {@code -2.5E20}) when it has at most
     * {@link #FLOAT8_UNIQUE_DIGITS} significant digits, else null.
     */
    private static String fromJavaDigits(String java, int fixedLimit) {
        boolean negative = java.charAt(0) == '-';
        int e = java.indexOf('E');
        int mantissaEnd = e < 0 ? java.length() : e;
        int exponentOfPoint = e < 0 ? 0 : Integer.parseInt(java, e + 1, java.length(), 10);
        StringBuilder digits = new StringBuilder(20);
        int pointAt = -1; // digits before the decimal point
        for (int i = negative ? 1 : 0; i < mantissaEnd; i++) {
            char c = java.charAt(i);
            if (c == '.') {
                pointAt = digits.length();
            } else if (c != '0' || digits.length() > 0) {
                digits.append(c);
            } else if (pointAt >= 0) {
                exponentOfPoint--; // a leading zero after the point: 0.001 is 1e-3
            }
        }
        if (pointAt < 0) {
            pointAt = digits.length();
        }
        // digits d1 d2 … with the point after pointAt of them (leading zeros taken out of the exponent)
        int exponent = exponentOfPoint + (pointAt > 0 ? pointAt - 1 : -1);
        int n = digits.length();
        while (n > 1 && digits.charAt(n - 1) == '0') {
            n--;
        }
        if (n > FLOAT8_UNIQUE_DIGITS) {
            return null;
        }
        digits.setLength(n);
        return layout(negative ? "-" : "", digits.toString(), exponent, fixedLimit);
    }

    private static String layout(BigDecimal value, int fixedLimit) {
        BigDecimal stripped = value.stripTrailingZeros();
        String digits = stripped.unscaledValue().abs().toString();
        int exponent = digits.length() - 1 - stripped.scale();
        return layout(stripped.signum() < 0 ? "-" : "", digits, exponent, fixedLimit);
    }

    /** The text of {@code d1.d2d3… × 10^exponent}: fixed or scientific, as Postgres prints it. */
    private static String layout(String sign, String digits, int exponent, int fixedLimit) {
        if (exponent >= -4 && exponent < fixedLimit) {
            StringBuilder out = new StringBuilder(digits.length() + 8).append(sign);
            if (exponent < 0) {
                out.append("0.");
                for (int i = -1; i > exponent; i--) {
                    out.append('0');
                }
                return out.append(digits).toString();
            }
            if (digits.length() <= exponent + 1) {
                out.append(digits);
                for (int i = digits.length(); i <= exponent; i++) {
                    out.append('0');
                }
                return out.toString();
            }
            return out.append(digits, 0, exponent + 1).append('.').append(digits, exponent + 1, digits.length())
                    .toString();
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
