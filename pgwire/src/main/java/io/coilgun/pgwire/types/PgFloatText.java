package io.coilgun.pgwire.types;

import com.fasterxml.jackson.core.io.schubfach.DoubleToDecimal;
import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.util.function.Predicate;

/**
 * {@code float4out}/{@code float8out} of Postgres 12+ with {@code extra_float_digits >= 1}: the shortest
 * decimal that reads back as the same binary value (closest to the exact value when several have that
 * length), printed in fixed notation when the decimal exponent is in {@code [-4, 6)} for float4 or
 * {@code [-4, 15)} for float8, otherwise as {@code d.ddde±XX} with at least two exponent digits.
 *
 * <p>Java 17's {@link Double#toString} is not always shortest (JDK-4511638). A normal double's digits come from
 * Raffaello Giulietti's Schubfach (the algorithm of Java 19's {@code Double.toString}, as Jackson ships it), which
 * gives the same digits as Postgres' Ryu: the shortest that round-trip, the closest of them to the exact value.
 * Subnormals, where Java 19 prefers two close digits to one far digit, and float4 values take an exact search:
 * round the exact binary value to ever fewer significant digits and check the round trip.
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
        TextBuffer out = new TextBuffer(26);
        float8(value, out);
        return out.string(0);
    }

    /** {@link #float8(double)} written into {@code out}. */
    static void float8(double value, TextBuffer out) {
        String special = special(value, Double.doubleToRawLongBits(value) < 0);
        if (special != null) {
            out.utf8(special);
        } else if (Math.abs(value) >= Double.MIN_NORMAL) {
            fromShortestDigits(DoubleToDecimal.toString(value), FLOAT8_FIXED_LIMIT, out);
        } else {
            out.utf8(float8Exact(value));
        }
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
     * Postgres' text of the digits Schubfach gives ({@code 123.45}, {@code 1.0E-5}, {@code -2.5E20}, as Java 19's
     * {@code Double.toString}): the shortest that round-trip, closest to the exact value, so only the layout
     * changes. Works on a Java 17 string too when it has at most 15 significant digits.
     */
    private static void fromShortestDigits(String java, int fixedLimit, TextBuffer out) {
        boolean negative = java.charAt(0) == '-';
        int e = java.indexOf('E');
        int mantissaEnd = e < 0 ? java.length() : e;
        int exponentOfPoint = e < 0 ? 0 : Integer.parseInt(java, e + 1, java.length(), 10);
        byte[] digits = new byte[FLOAT8_MAX_DIGITS + 2];
        int n = 0;
        int pointAt = -1; // digits before the decimal point
        for (int i = negative ? 1 : 0; i < mantissaEnd; i++) {
            char c = java.charAt(i);
            if (c == '.') {
                pointAt = n;
            } else if (c != '0' || n > 0) {
                digits[n++] = (byte) c;
            } else if (pointAt >= 0) {
                exponentOfPoint--; // a leading zero after the point: 0.001 is 1e-3
            }
        }
        if (pointAt < 0) {
            pointAt = n;
        }
        // digits d1 d2 … with the point after pointAt of them (leading zeros taken out of the exponent)
        int exponent = exponentOfPoint + (pointAt > 0 ? pointAt - 1 : -1);
        while (n > 1 && digits[n - 1] == '0') {
            n--;
        }
        layout(negative, digits, n, exponent, fixedLimit, out);
    }

    private static String layout(BigDecimal value, int fixedLimit) {
        BigDecimal stripped = value.stripTrailingZeros();
        byte[] digits = stripped.unscaledValue().abs().toString().getBytes(StandardCharsets.US_ASCII);
        int exponent = digits.length - 1 - stripped.scale();
        TextBuffer out = new TextBuffer(digits.length + 8);
        layout(stripped.signum() < 0, digits, digits.length, exponent, fixedLimit, out);
        return out.string(0);
    }

    /** The text of {@code d1.d2d3… × 10^exponent} ({@code n} ASCII digits): fixed or scientific, as Postgres prints it. */
    private static void layout(boolean negative, byte[] digits, int n, int exponent, int fixedLimit, TextBuffer out) {
        out.ensure(n + 26);
        if (negative) {
            out.put((byte) '-');
        }
        if (exponent >= -4 && exponent < fixedLimit) {
            if (exponent < 0) {
                out.put((byte) '0').put((byte) '.');
                for (int i = -1; i > exponent; i--) {
                    out.put((byte) '0');
                }
                put(digits, 0, n, out);
            } else if (n <= exponent + 1) {
                put(digits, 0, n, out);
                for (int i = n; i <= exponent; i++) {
                    out.put((byte) '0');
                }
            } else {
                put(digits, 0, exponent + 1, out);
                out.put((byte) '.');
                put(digits, exponent + 1, n, out);
            }
            return;
        }
        out.put(digits[0]);
        if (n > 1) {
            out.put((byte) '.');
            put(digits, 1, n, out);
        }
        out.put((byte) 'e').put((byte) (exponent < 0 ? '-' : '+'));
        int magnitude = Math.abs(exponent);
        if (magnitude < 10) {
            out.put((byte) '0');
        }
        out.decimal(magnitude);
    }

    private static void put(byte[] digits, int from, int to, TextBuffer out) {
        for (int i = from; i < to; i++) {
            out.put(digits[i]);
        }
    }
}
