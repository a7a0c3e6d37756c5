package io.coilgun.sql.query;

import io.coilgun.planner.agg.NumericQuotient;
import io.coilgun.planner.error.CoilgunException;
import io.coilgun.planner.error.SqlState;
import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.util.Locale;
import ch.obermuhlner.math.big.BigDecimalMath;

/**
 * Postgres' {@code numeric} arithmetic where Calcite's differs, called from the code Calcite generates (see {@link
 * PgConvertlets}): a value cast to the unconstrained numeric keeps its own scale ({@code '1.50'::numeric} is 1.50, Calcite
 * would round it to the type's scale), and a quotient or a power has Postgres' scale ({@link NumericQuotient}).
 */
public final class PgNumeric {
    /** Postgres' minimum significant digits of a power. */
    private static final int MIN_SIGNIFICANT_DIGITS = 16;
    /** Postgres' largest scale a quotient is given. */
    private static final int MAX_DISPLAY_SCALE = 1000;
    /** Digits before the point of the largest numeric. */
    private static final int NUMERIC_MAX_WEIGHT_DIGITS = 131_072;
    /** The largest integer exponent computed by repeated multiplication (beyond it, by logarithms). */
    private static final int MAX_EXACT_EXPONENT = 100_000;
    private static final MathContext FLOAT8_DIGITS = new MathContext(15, RoundingMode.HALF_EVEN);
    private static final MathContext FLOAT4_DIGITS = new MathContext(6, RoundingMode.HALF_EVEN);

    private PgNumeric() {
    }

    /** {@code value::numeric}: the same value with its own scale; a float with 15 significant digits (6 for real). */
    public static BigDecimal pg_numeric(Object value) {
        if (value == null) {
            return null;
        }
        BigDecimal d;
        if (value instanceof BigDecimal b) {
            d = b;
        } else if (value instanceof Long || value instanceof Integer || value instanceof Short
                || value instanceof Byte) {
            d = BigDecimal.valueOf(((Number) value).longValue());
        } else if (value instanceof Double x) {
            d = fromFloat(x, FLOAT8_DIGITS);
        } else if (value instanceof Float x) {
            d = fromFloat(x, FLOAT4_DIGITS);
        } else if (value instanceof String s) {
            d = fromText(s);
        } else {
            throw new CoilgunException(SqlState.CANNOT_COERCE, "cannot cast type "
                    + value.getClass().getSimpleName().toLowerCase(Locale.ROOT) + " to numeric", 0);
        }
        return d.scale() < 0 ? d.setScale(0) : d;
    }

    /** {@code a / b} of numerics, to Postgres' scale, rounded half away from zero. */
    public static BigDecimal pg_numeric_divide(BigDecimal a, BigDecimal b) {
        if (a == null || b == null) {
            return null;
        }
        if (b.signum() == 0) {
            throw new CoilgunException(SqlState.DIVISION_BY_ZERO, "division by zero", 0);
        }
        return NumericQuotient.divide(a, b);
    }

    /**
     * {@code base ^ exponent} of numerics, rounded half away from zero to Postgres' scale: for an integer exponent 16
     * decimals (exact before rounding), else 16 significant digits; never fewer decimals than either operand.
     */
    public static BigDecimal pg_numeric_power(BigDecimal base, BigDecimal exponent) {
        if (base == null || exponent == null) {
            return null;
        }
        boolean integral = exponent.signum() == 0 || exponent.stripTrailingZeros().scale() <= 0;
        if (base.signum() == 0 && exponent.signum() < 0) {
            throw new CoilgunException(SqlState.INVALID_ARGUMENT_FOR_POWER_FUNCTION,
                    "zero raised to a negative power is undefined", 0);
        }
        if (base.signum() < 0 && !integral) {
            throw new CoilgunException(SqlState.INVALID_ARGUMENT_FOR_POWER_FUNCTION,
                    "a negative number raised to a non-integer power yields a complex result", 0);
        }
        if (base.signum() == 0) {
            return (exponent.signum() == 0 ? BigDecimal.ONE : BigDecimal.ZERO).setScale(powerScale(0, base, exponent));
        }
        // log10 of the result, estimated: the digits it needs, and whether it fits at all
        double log10 = exponent.doubleValue() * Math.log10(base.abs().doubleValue());
        if (log10 > NUMERIC_MAX_WEIGHT_DIGITS) {
            throw new CoilgunException(SqlState.NUMERIC_VALUE_OUT_OF_RANGE, "value overflows numeric format", 0);
        }
        int scale = powerScale(integral ? 0 : (int) log10, base, exponent);
        MathContext digits = new MathContext(Math.max(1, (int) Math.ceil(log10)) + scale + 10);
        BigDecimal result;
        if (integral && exponent.abs().compareTo(BigDecimal.valueOf(MAX_EXACT_EXPONENT)) <= 0) {
            int n = exponent.intValueExact();
            result = n >= 0 ? base.pow(n) : BigDecimal.ONE.divide(base.pow(-n), digits);
        } else {
            result = BigDecimalMath.pow(base, exponent, digits);
        }
        return result.setScale(scale, RoundingMode.HALF_UP);
    }

    /** 16 significant digits for a result of about 10^log10, and no fewer decimals than either operand. */
    private static int powerScale(int log10, BigDecimal base, BigDecimal exponent) {
        int scale = MIN_SIGNIFICANT_DIGITS - log10;
        scale = Math.max(scale, Math.max(base.scale(), 0));
        scale = Math.max(scale, Math.max(exponent.scale(), 0));
        return Math.min(scale, MAX_DISPLAY_SCALE);
    }

    private static BigDecimal fromFloat(double x, MathContext digits) {
        if (Double.isNaN(x) || Double.isInfinite(x)) {
            throw new CoilgunException(SqlState.FEATURE_NOT_SUPPORTED, "numeric " + (Double.isNaN(x) ? "NaN"
                    : x > 0 ? "Infinity" : "-Infinity") + " is not supported", 0);
        }
        return new BigDecimal(x).round(digits).stripTrailingZeros();
    }

    private static BigDecimal fromText(String s) {
        try {
            return new BigDecimal(s.strip());
        } catch (NumberFormatException e) {
            throw new CoilgunException(SqlState.INVALID_TEXT_REPRESENTATION,
                    "invalid input syntax for type numeric: \"" + s + "\"", 0);
        }
    }
}
