package io.coilgun.planner.expr;

import java.math.BigDecimal;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * SQL semantics for translated expressions, the {@code sql:} namespace of {@link Expressions}: three-valued logic
 * (NULL is unknown, and a filter keeps an event only when its condition is TRUE), NULL-propagating comparisons and
 * arithmetic, integer arithmetic on integers (exact: overflow is an error, as in Postgres) and double arithmetic
 * otherwise. Values are Boolean, Integer, Long, Double, String or null (timestamps are Long microseconds).
 *
 * <p>Names avoid JEXL's operator words ({@code and or not eq ne lt le gt ge div mod}), which cannot follow a
 * namespace.
 */
public final class SqlFunctions {
    private SqlFunctions() {
    }

    public static Boolean all(Object a, Object b) {
        if (Boolean.FALSE.equals(a) || Boolean.FALSE.equals(b)) {
            return false;
        }
        return a == null || b == null ? null : true;
    }

    public static Boolean any(Object a, Object b) {
        if (Boolean.TRUE.equals(a) || Boolean.TRUE.equals(b)) {
            return true;
        }
        return a == null || b == null ? null : false;
    }

    public static Boolean negate(Object a) {
        return a == null ? null : !((Boolean) a);
    }

    /** True only for TRUE: what a WHERE clause keeps. */
    public static boolean isTrue(Object a) {
        return Boolean.TRUE.equals(a);
    }

    public static boolean isNull(Object a) {
        return a == null;
    }

    public static Boolean equal(Object a, Object b) {
        Integer c = compare(a, b);
        return c == null ? null : c == 0;
    }

    public static Boolean notEqual(Object a, Object b) {
        Integer c = compare(a, b);
        return c == null ? null : c != 0;
    }

    public static Boolean less(Object a, Object b) {
        Integer c = compare(a, b);
        return c == null ? null : c < 0;
    }

    public static Boolean lessOrEqual(Object a, Object b) {
        Integer c = compare(a, b);
        return c == null ? null : c <= 0;
    }

    public static Boolean greater(Object a, Object b) {
        Integer c = compare(a, b);
        return c == null ? null : c > 0;
    }

    public static Boolean greaterOrEqual(Object a, Object b) {
        Integer c = compare(a, b);
        return c == null ? null : c >= 0;
    }

    /** {@code a BETWEEN lo AND hi}. */
    public static Boolean between(Object a, Object lo, Object hi) {
        return all(greaterOrEqual(a, lo), lessOrEqual(a, hi));
    }

    /** {@code a IN (v1, v2, ...)}: TRUE if equal to one, NULL if none is equal but one is NULL. */
    public static Boolean oneOf(Object a, Object... values) {
        if (a == null) {
            return null;
        }
        boolean unknown = false;
        for (Object v : values) {
            Boolean e = equal(a, v);
            if (Boolean.TRUE.equals(e)) {
                return true;
            }
            unknown |= e == null;
        }
        return unknown ? null : false;
    }

    /** {@code a LIKE pattern}, the pattern already translated to a Java regex by the compiler. */
    public static Boolean like(Object a, String regex) {
        return a == null ? null : Pattern.compile(regex, Pattern.DOTALL).matcher((String) a).matches();
    }

    private static Integer compare(Object a, Object b) {
        if (a == null || b == null) {
            return null;
        }
        if (a instanceof Number x && b instanceof Number y) {
            return compareNumbers(x, y);
        }
        if (a instanceof String x && b instanceof String y) {
            return compareText(x, y);
        }
        if (a instanceof Boolean x && b instanceof Boolean y) {
            return Boolean.compare(x, y);
        }
        throw new IllegalArgumentException("cannot compare " + a.getClass().getSimpleName() + " with "
                + b.getClass().getSimpleName());
    }

    /**
     * Numbers as SQL compares them: integers exactly, numeric (BigDecimal) exactly against integers and numerics,
     * doubles otherwise.
     */
    public static int compareNumbers(Number x, Number y) {
        if (isIntegral(x) && isIntegral(y)) {
            return Long.compare(x.longValue(), y.longValue());
        }
        if ((x instanceof BigDecimal || isIntegral(x)) && (y instanceof BigDecimal || isIntegral(y))) {
            return decimal(x).compareTo(decimal(y));
        }
        return Double.compare(x.doubleValue(), y.doubleValue());
    }

    private static BigDecimal decimal(Number n) {
        return n instanceof BigDecimal d ? d : BigDecimal.valueOf(n.longValue());
    }

    /**
     * Text in Postgres' C collation: by the bytes of its UTF-8 encoding, which is the order of its code points (not
     * {@link String#compareTo}, which orders by UTF-16 units: a character above U+FFFF would sort before U+E000).
     */
    public static int compareText(String a, String b) {
        int n = Math.min(a.length(), b.length());
        for (int i = 0; i < n; i++) {
            char x = a.charAt(i);
            char y = b.charAt(i);
            if (x != y) {
                if (Character.isSurrogate(x) || Character.isSurrogate(y)) {
                    return Integer.compare(a.codePointAt(i), b.codePointAt(i));
                }
                return Character.compare(x, y);
            }
        }
        return Integer.compare(a.length(), b.length());
    }

    private static boolean isIntegral(Number n) {
        return n instanceof Long || n instanceof Integer || n instanceof Short || n instanceof Byte;
    }

    public static Object neg(Object a) {
        if (a == null) {
            return null;
        }
        Number n = (Number) a;
        return isIntegral(n) ? (Object) Math.negateExact(n.longValue()) : (Object) (-n.doubleValue());
    }

    public static Object add(Object a, Object b) {
        if (a == null || b == null) {
            return null;
        }
        Number x = (Number) a;
        Number y = (Number) b;
        return isIntegral(x) && isIntegral(y) ? (Object) Math.addExact(x.longValue(), y.longValue())
                : (Object) (x.doubleValue() + y.doubleValue());
    }

    public static Object sub(Object a, Object b) {
        if (a == null || b == null) {
            return null;
        }
        Number x = (Number) a;
        Number y = (Number) b;
        return isIntegral(x) && isIntegral(y) ? (Object) Math.subtractExact(x.longValue(), y.longValue())
                : (Object) (x.doubleValue() - y.doubleValue());
    }

    public static Object mul(Object a, Object b) {
        if (a == null || b == null) {
            return null;
        }
        Number x = (Number) a;
        Number y = (Number) b;
        return isIntegral(x) && isIntegral(y) ? (Object) Math.multiplyExact(x.longValue(), y.longValue())
                : (Object) (x.doubleValue() * y.doubleValue());
    }

    /** Division: integer division (truncating) for integers, as in Postgres; division by zero is an error. */
    public static Object divide(Object a, Object b) {
        if (a == null || b == null) {
            return null;
        }
        Number x = (Number) a;
        Number y = (Number) b;
        if (isIntegral(x) && isIntegral(y)) {
            if (y.longValue() == 0) {
                throw new ArithmeticException("division by zero");
            }
            return x.longValue() / y.longValue();
        }
        if (y.doubleValue() == 0.0) {
            throw new ArithmeticException("division by zero");
        }
        return x.doubleValue() / y.doubleValue();
    }

    public static Object modulo(Object a, Object b) {
        if (a == null || b == null) {
            return null;
        }
        long y = ((Number) b).longValue();
        if (y == 0) {
            throw new ArithmeticException("division by zero");
        }
        return ((Number) a).longValue() % y;
    }

    public static Object abs(Object a) {
        if (a == null) {
            return null;
        }
        Number n = (Number) a;
        return isIntegral(n) ? (Object) Math.absExact(n.longValue()) : (Object) Math.abs(n.doubleValue());
    }

    public static Object lower(Object a) {
        return a == null ? null : ((String) a).toLowerCase(Locale.ROOT);
    }

    public static Object upper(Object a) {
        return a == null ? null : ((String) a).toUpperCase(Locale.ROOT);
    }

    public static Object length(Object a) {
        return a == null ? null : (long) ((String) a).codePointCount(0, ((String) a).length());
    }

    public static Object concat(Object a, Object b) {
        return a == null || b == null ? null : String.valueOf(a) + b;
    }

    /** {@code CASE WHEN c THEN x ELSE y END}: x when c is TRUE, else y (NULL counts as not TRUE). */
    public static Object when(Object condition, Object then, Object otherwise) {
        return Boolean.TRUE.equals(condition) ? then : otherwise;
    }

    public static Object coalesce(Object a, Object b) {
        return a != null ? a : b;
    }

    /** A number as a double (CAST to DOUBLE / REAL). */
    public static Object toDouble(Object a) {
        return a == null ? null : ((Number) a).doubleValue();
    }

    /** A number as a long, rounding half away from zero (CAST to an integer type, as Postgres rounds). */
    public static Object toLong(Object a) {
        if (a == null) {
            return null;
        }
        Number n = (Number) a;
        return isIntegral(n) ? n.longValue() : (long) Math.round(n.doubleValue());
    }
}
