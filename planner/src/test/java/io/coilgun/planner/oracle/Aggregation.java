package io.coilgun.planner.oracle;

import io.coilgun.planner.agg.NumericQuotient;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;

/**
 * The aggregations of docs/sql.md (CREATE METRIC) over the non-NULL arguments of a window, given in (event time,
 * arrival) order. Arguments are of their SQL type's Java class: {@code Integer} (integer), {@code Long} (bigint),
 * {@code Double} (double precision), {@code BigDecimal} (numeric), {@code String} (character varying), {@code
 * Boolean}, {@code LocalDateTime} (timestamp); so are the results, with {@code Long} for the counts, {@code Double}
 * for the standard deviations and AVG but of numerics (exact: the sum divided to Postgres' quotient scale), and for
 * SUM: {@code Long} of integers, an exact {@code BigDecimal} of bigints and numerics (Postgres' numeric, of the
 * largest scale of the values), {@code Double} of doubles. Integer sums are exact; sums, averages and standard deviations of doubles are computed
 * in doubles (the engine's are exact sums, correctly rounded: compare them within a tolerance). No value gives COUNT
 * 0 and NULL for the others; STDDEV needs two.
 */
public enum Aggregation {
    COUNT, COUNT_DISTINCT, SUM, AVG, STDDEV, STDDEV_POP, MIN, MAX, LAST, PREV;

    /** Its value over {@code values}: the window's non-NULL arguments in (event time, arrival) order. */
    public Object over(List<?> values) {
        int n = values.size();
        return switch (this) {
            case COUNT -> (long) n;
            case COUNT_DISTINCT -> (long) new HashSet<>(values.stream().map(Aggregation::distinct).toList()).size();
            case SUM -> n == 0 ? null : sum(values);
            case AVG -> n == 0 ? null : values.get(0) instanceof BigDecimal
                    ? NumericQuotient.divide((BigDecimal) sum(values), BigDecimal.valueOf(n)) : doubleSum(values) / n;
            case STDDEV -> n < 2 ? null : standardDeviation(values, n - 1);
            case STDDEV_POP -> n == 0 ? null : standardDeviation(values, n);
            case MIN -> n == 0 ? null : extreme(values, -1);
            case MAX -> n == 0 ? null : extreme(values, 1);
            case LAST -> n == 0 ? null : values.get(n - 1);
            case PREV -> n < 2 ? null : values.get(n - 2);
        };
    }

    private static Object sum(List<?> values) {
        Object first = values.get(0);
        if (first instanceof Integer) {
            long sum = 0;
            for (Object v : values) {
                sum = Math.addExact(sum, (Integer) v); // an integer sum leaving the bigint range is an error
            }
            return sum;
        }
        if (first instanceof Long) {
            BigInteger sum = BigInteger.ZERO; // what did not fit in a long
            long part = 0;
            for (Object v : values) {
                try {
                    part = Math.addExact(part, (Long) v);
                } catch (ArithmeticException overflow) {
                    sum = sum.add(BigInteger.valueOf(part));
                    part = (Long) v;
                }
            }
            return new BigDecimal(sum.add(BigInteger.valueOf(part)));
        }
        if (first instanceof Double) {
            return doubleSum(values);
        }
        if (first instanceof BigDecimal) {
            BigDecimal sum = BigDecimal.ZERO; // of the largest scale of the values, as Postgres' numeric sum
            for (Object v : values) {
                sum = sum.add((BigDecimal) v);
            }
            return sum;
        }
        throw new IllegalArgumentException("Postgres has no sum of " + first.getClass().getSimpleName());
    }

    private static double doubleSum(List<?> values) {
        double sum = 0;
        for (Object v : values) {
            sum += number(v);
        }
        return sum;
    }

    /** The square root of the sum of squared deviations from the mean divided by {@code divisor} (n or n - 1). */
    private static double standardDeviation(List<?> values, int divisor) {
        double mean = doubleSum(values) / values.size();
        double deviations = 0;
        for (Object v : values) {
            double d = number(v) - mean;
            deviations += d * d;
        }
        return Math.sqrt(deviations / divisor);
    }

    private static double number(Object v) {
        if (v instanceof Double || v instanceof Integer || v instanceof Long || v instanceof BigDecimal) {
            return ((Number) v).doubleValue();
        }
        throw new IllegalArgumentException("not a number: " + v.getClass().getSimpleName());
    }

    /** A value as DISTINCT tells values apart: numerics by value ({@code 1.5} and {@code 1.50} are one). */
    private static Object distinct(Object v) {
        return v instanceof BigDecimal d ? (d.signum() == 0 ? BigDecimal.ZERO : d.stripTrailingZeros()) : v;
    }

    /** The first smallest ({@code sign} -1) or largest ({@code sign} 1) value; text by C collation. */
    private static Object extreme(List<?> values, int sign) {
        Object best = values.get(0);
        for (Object v : values) {
            if (Integer.signum(compare(v, best)) == sign) {
                best = v;
            }
        }
        return best;
    }

    /** Values of one SQL type in its order; text in Postgres' C collation (by UTF-8 bytes: code point order). */
    @SuppressWarnings("unchecked")
    private static int compare(Object a, Object b) {
        if (a instanceof String x && b instanceof String y) {
            return Arrays.compare(x.codePoints().toArray(), y.codePoints().toArray());
        }
        if (a instanceof Boolean) {
            throw new IllegalArgumentException("Postgres has no min or max of boolean");
        }
        return ((Comparable<Object>) a).compareTo(b);
    }
}
