package io.coilgun.sql.compile;

import io.coilgun.planner.error.CoilgunException;
import io.coilgun.planner.error.SqlState;
import io.coilgun.sql.compile.ValueConverter.Literal;
import io.coilgun.sql.compile.ValueConverter.LiteralKind;
import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.time.DateTimeException;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;
import org.apache.calcite.sql.SqlBasicCall;
import org.apache.calcite.sql.SqlCharStringLiteral;
import org.apache.calcite.sql.SqlDynamicParam;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlLiteral;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNumericLiteral;
import org.apache.calcite.sql.type.SqlTypeName;

/**
 * A constant expression written as an INSERT value ({@code TIMESTAMP '…' - INTERVAL '1' HOUR}, {@code -5 * 2},
 * {@code 'm' || $1}, {@code upper('c1')}), computed here exactly as Postgres would: numbers as decimals, timestamps to
 * the microsecond, calendar months for year-month intervals. The operands are the literals, parameters, casts and
 * {@code now()} that {@link ValueConverter} reads, or expressions again. Supported: {@code + - * / %} and unary
 * minus on numbers, timestamp ± interval, timestamp - timestamp, {@code ||}, and the functions of
 * {@link #function}. Anything else is refused with 0A000 and its position.
 */
final class ConstantExpression {
    private static final Literal NULL = new Literal(LiteralKind.NULL, null, null, 0);
    /** Digits before or after the point a computed number may have (a double's range is 10^308). */
    private static final int MAX_DIGITS = 1000;

    private final SqlText sql;
    private final Function<SqlNode, Literal> operand;

    private ConstantExpression(SqlText sql, Function<SqlNode, Literal> operand) {
        this.sql = sql;
        this.operand = operand;
    }

    /** The value of {@code call}, reading its operands with {@code operand} (which comes back here for calls). */
    static Literal evaluate(SqlText sql, SqlBasicCall call, Function<SqlNode, Literal> operand) {
        try {
            return new ConstantExpression(sql, operand).call(call);
        } catch (ArithmeticException | DateTimeException e) {
            throw sql.error(SqlState.NUMERIC_VALUE_OUT_OF_RANGE, "value out of range: " + e.getMessage(), call);
        } catch (IndexOutOfBoundsException e) {
            throw sql.error(SqlState.UNDEFINED_FUNCTION, "function " + call.getOperator().getName()
                    + " does not take " + call.operandCount() + " arguments", call);
        }
    }

    private Literal call(SqlBasicCall call) {
        SqlKind kind = call.getKind();
        List<SqlNode> nodes = call.getOperandList();
        switch (kind) {
            case PLUS, MINUS, TIMES, DIVIDE, MOD -> {
                boolean integers = integral(nodes.get(0)) && integral(nodes.get(1));
                return arithmetic(call, kind, operand.apply(nodes.get(0)), operand.apply(nodes.get(1)), integers);
            }
            case MINUS_PREFIX -> {
                Literal v = operand.apply(nodes.get(0));
                return switch (v.kind()) {
                    case NULL -> NULL;
                    case NUMBER -> number(v.number().negate());
                    case INTERVAL -> interval(-v.number().longValueExact(), -v.micros());
                    default -> throw unsupported(call, "unary minus of " + v.kind().pgName);
                };
            }
            case PLUS_PREFIX -> {
                return operand.apply(nodes.get(0));
            }
            default -> {
                String name = call.getOperator().getName().toLowerCase(Locale.ROOT);
                if (name.equals("||")) {
                    return concat(List.of(operand.apply(nodes.get(0)), operand.apply(nodes.get(1))), true);
                }
                return function(call, name, nodes);
            }
        }
    }

    /**
     * Whether {@code node} is of an integer type as Postgres types it (an integer literal, an integer parameter, a
     * cast to an integer type, arithmetic of those): integer / integer truncates, as Postgres' int division does.
     */
    private boolean integral(SqlNode node) {
        if (node instanceof SqlNumericLiteral n) {
            return n.isExact() && n.getScale() != null && n.getScale() == 0;
        }
        if (node instanceof SqlDynamicParam p) {
            Object v = sql.value(p);
            return v instanceof Long || v instanceof Integer || v instanceof Short;
        }
        if (node instanceof SqlCharStringLiteral c) {
            return c.getValueAs(String.class).trim().matches("[+-]?\\d+"); // unknown, read as an integer
        }
        if (node instanceof SqlBasicCall c) {
            switch (c.getKind()) {
                case CAST -> {
                    String type = c.operand(1).toString().toUpperCase(Locale.ROOT);
                    return type.equals("INTEGER") || type.equals("BIGINT") || type.equals("SMALLINT")
                            || type.equals("TINYINT");
                }
                case MINUS_PREFIX, PLUS_PREFIX -> {
                    return integral(c.operand(0));
                }
                case PLUS, MINUS, TIMES, DIVIDE, MOD -> {
                    return integral(c.operand(0)) && integral(c.operand(1));
                }
                default -> {
                    String name = c.getOperator().getName().toLowerCase(Locale.ROOT);
                    return (name.equals("abs") && integral(c.operand(0))) || name.equals("length")
                            || name.equals("char_length") || name.equals("character_length");
                }
            }
        }
        return false;
    }

    private Literal arithmetic(SqlBasicCall call, SqlKind kind, Literal a, Literal b, boolean integers) {
        if (a.kind() == LiteralKind.NULL || b.kind() == LiteralKind.NULL) {
            return NULL;
        }
        if (isNumber(a) && isNumber(b)) {
            BigDecimal x = numberOf(call, a);
            BigDecimal y = numberOf(call, b);
            return switch (kind) {
                case PLUS -> number(x.add(y));
                case MINUS -> number(x.subtract(y));
                case TIMES -> number(x.multiply(y));
                case DIVIDE, MOD -> {
                    if (y.signum() == 0) {
                        throw sql.error(SqlState.DIVISION_BY_ZERO, "division by zero", call);
                    }
                    if (kind == SqlKind.MOD) {
                        yield number(x.remainder(y));
                    }
                    // integer / integer truncates, as Postgres' int division does
                    yield number(integers ? x.divide(y, 0, RoundingMode.DOWN)
                            : x.divide(y, MathContext.DECIMAL128).stripTrailingZeros());
                }
                default -> throw unsupported(call, kind.sql);
            };
        }
        LiteralKind ka = a.kind();
        LiteralKind kb = b.kind();
        if (kind == SqlKind.PLUS && ka == LiteralKind.TIMESTAMP && kb == LiteralKind.INTERVAL) {
            return plus(call, a.micros(), b, 1);
        }
        if (kind == SqlKind.PLUS && ka == LiteralKind.INTERVAL && kb == LiteralKind.TIMESTAMP) {
            return plus(call, b.micros(), a, 1);
        }
        if (kind == SqlKind.MINUS && ka == LiteralKind.TIMESTAMP && kb == LiteralKind.INTERVAL) {
            return plus(call, a.micros(), b, -1);
        }
        if (kind == SqlKind.MINUS && ka == LiteralKind.TIMESTAMP && kb == LiteralKind.TIMESTAMP) {
            return interval(0, Math.subtractExact(a.micros(), b.micros()));
        }
        if ((kind == SqlKind.PLUS || kind == SqlKind.MINUS) && ka == LiteralKind.INTERVAL
                && kb == LiteralKind.INTERVAL) {
            int sign = kind == SqlKind.PLUS ? 1 : -1;
            return interval(a.number().longValueExact() + sign * b.number().longValueExact(),
                    Math.addExact(a.micros(), sign * b.micros()));
        }
        if (kind == SqlKind.TIMES && ka == LiteralKind.INTERVAL && isNumber(b)) {
            return scale(call, a, numberOf(call, b));
        }
        if (kind == SqlKind.TIMES && isNumber(a) && kb == LiteralKind.INTERVAL) {
            return scale(call, b, numberOf(call, a));
        }
        throw sql.error(SqlState.UNDEFINED_FUNCTION, "operator does not exist: " + ka.pgName + " " + kind.sql + " "
                + kb.pgName, call);
    }

    /** {@code micros} (a timestamp) moved by {@code sign} times the interval: its months first, then its time. */
    private Literal plus(SqlBasicCall call, long micros, Literal interval, int sign) {
        try {
            LocalDateTime t = LocalDateTime.ofEpochSecond(Math.floorDiv(micros, 1_000_000L),
                    (int) Math.floorMod(micros, 1_000_000L) * 1000, ZoneOffset.UTC);
            t = t.plusMonths(sign * interval.number().longValueExact());
            return timestamp(Math.addExact(ValueConverter.toMicros(t), sign * interval.micros()));
        } catch (ArithmeticException | DateTimeException e) {
            throw sql.error(SqlState.DATETIME_FIELD_OVERFLOW, "timestamp out of range", call);
        }
    }

    private Literal scale(SqlBasicCall call, Literal interval, BigDecimal factor) {
        if (interval.number().signum() != 0 && factor.stripTrailingZeros().scale() > 0) {
            throw unsupported(call, "a fraction of an interval with months");
        }
        return interval(interval.number().multiply(factor).longValueExact(),
                BigDecimal.valueOf(interval.micros()).multiply(factor).setScale(0, RoundingMode.HALF_UP)
                        .longValueExact());
    }

    private Literal function(SqlBasicCall call, String name, List<SqlNode> nodes) {
        List<Literal> args = new ArrayList<>();
        for (SqlNode n : nodes) {
            // TRIM's flag (BOTH, LEADING, TRAILING) is a symbol, not a value
            args.add(n instanceof SqlLiteral lit && lit.getTypeName() == SqlTypeName.SYMBOL
                    ? new Literal(LiteralKind.TEXT, String.valueOf(lit.getValue()), null, 0) : operand.apply(n));
        }
        switch (name) {
            case "coalesce" -> {
                return args.stream().filter(a -> a.kind() != LiteralKind.NULL).findFirst().orElse(NULL);
            }
            case "concat" -> {
                return concat(args, false);
            }
            case "greatest", "least" -> {
                // NULLs are left out, as in Postgres; NULL only when every argument is
                Literal best = NULL;
                for (Literal a : args) {
                    if (a.kind() != LiteralKind.NULL && (best.kind() == LiteralKind.NULL
                            || (name.equals("greatest") ? compare(call, a, best) > 0 : compare(call, a, best) < 0))) {
                        best = a;
                    }
                }
                return best;
            }
            default -> {
            }
        }
        if (args.stream().anyMatch(a -> a.kind() == LiteralKind.NULL)) {
            if (name.equals("nullif")) {
                return args.get(0);
            }
            return NULL; // every other function here is strict
        }
        switch (name) {
            case "upper" -> {
                return text(textOf(call, args.get(0)).toUpperCase(Locale.ROOT));
            }
            case "lower" -> {
                return text(textOf(call, args.get(0)).toLowerCase(Locale.ROOT));
            }
            case "trim" -> {
                // Calcite's TRIM([BOTH|LEADING|TRAILING] chars FROM text): flag, characters, text
                String flag = textOf(call, args.get(0));
                String chars = textOf(call, args.get(1));
                String s = textOf(call, args.get(2));
                return text(trim(s, chars, !flag.equals("TRAILING"), !flag.equals("LEADING")));
            }
            case "btrim", "ltrim", "rtrim" -> {
                String chars = args.size() > 1 ? textOf(call, args.get(1)) : " ";
                return text(trim(textOf(call, args.get(0)), chars, !name.equals("rtrim"), !name.equals("ltrim")));
            }
            case "replace" -> {
                return text(textOf(call, args.get(0)).replace(textOf(call, args.get(1)), textOf(call, args.get(2))));
            }
            case "length", "char_length", "character_length" -> {
                String s = textOf(call, args.get(0));
                return number(BigDecimal.valueOf(s.codePointCount(0, s.length())));
            }
            case "abs" -> {
                return number(numberOf(call, args.get(0)).abs());
            }
            case "round" -> {
                int places = args.size() > 1 ? numberOf(call, args.get(1)).intValueExact() : 0;
                if (Math.abs(places) > MAX_DIGITS) {
                    throw sql.error(SqlState.NUMERIC_VALUE_OUT_OF_RANGE, "value out of range", call);
                }
                return number(numberOf(call, args.get(0)).setScale(places, RoundingMode.HALF_UP));
            }
            case "floor" -> {
                return number(numberOf(call, args.get(0)).setScale(0, RoundingMode.FLOOR));
            }
            case "ceil", "ceiling" -> {
                return number(numberOf(call, args.get(0)).setScale(0, RoundingMode.CEILING));
            }
            case "nullif" -> {
                return compare(call, args.get(0), args.get(1)) == 0 ? NULL : args.get(0);
            }
            case "to_timestamp" -> {
                // seconds since the epoch, at the session time zone (UTC)
                BigDecimal micros = numberOf(call, args.get(0)).movePointRight(6).setScale(0, RoundingMode.HALF_UP);
                return timestamp(micros.longValueExact());
            }
            default -> throw unsupported(call, "function " + name + "()");
        }
    }

    private int compare(SqlBasicCall call, Literal a, Literal b) {
        if (isNumber(a) && isNumber(b)) {
            return numberOf(call, a).compareTo(numberOf(call, b));
        }
        if (a.kind() == LiteralKind.TIMESTAMP && b.kind() == LiteralKind.TIMESTAMP) {
            return Long.compare(a.micros(), b.micros());
        }
        return textOf(call, a).compareTo(textOf(call, b));
    }

    /** {@code ||} (NULL if either side is, as in Postgres) or {@code concat()} (NULLs skipped). */
    private Literal concat(List<Literal> parts, boolean strict) {
        StringBuilder b = new StringBuilder();
        for (Literal p : parts) {
            if (p.kind() == LiteralKind.NULL) {
                if (strict) {
                    return NULL;
                }
                continue;
            }
            b.append(textOf(null, p));
        }
        return text(b.toString());
    }

    private static String trim(String s, String chars, boolean leading, boolean trailing) {
        int start = 0;
        int end = s.length();
        while (leading && start < end && chars.indexOf(s.charAt(start)) >= 0) {
            start++;
        }
        while (trailing && end > start && chars.indexOf(s.charAt(end - 1)) >= 0) {
            end--;
        }
        return s.substring(start, end);
    }

    private static boolean isNumber(Literal v) {
        return v.kind() == LiteralKind.NUMBER || v.kind() == LiteralKind.TEXT && looksNumeric(v.text());
    }

    private static boolean looksNumeric(String text) {
        try {
            new BigDecimal(text.trim());
            return true;
        } catch (NumberFormatException e) {
            return false;
        }
    }

    private BigDecimal numberOf(SqlBasicCall call, Literal v) {
        BigDecimal n = null;
        if (v.kind() == LiteralKind.NUMBER) {
            n = v.number();
        } else if (v.kind() == LiteralKind.TEXT && looksNumeric(v.text())) {
            n = new BigDecimal(v.text().trim()); // an unknown-typed literal, read as the number it must be
        }
        if (n != null) {
            // no column holds more than a double's range: refuse before BigDecimal spends minutes on 1e400000000
            if (n.precision() - n.scale() > MAX_DIGITS || n.scale() > MAX_DIGITS) {
                throw sql.error(SqlState.NUMERIC_VALUE_OUT_OF_RANGE, "value out of range: " + v.kind().pgName, call);
            }
            return n;
        }
        throw sql.error(SqlState.DATATYPE_MISMATCH, "a number is needed here, not a value of type "
                + v.kind().pgName, call);
    }

    private static String textOf(SqlBasicCall call, Literal v) {
        return switch (v.kind()) {
            case TEXT, BOOLEAN -> v.text();
            case NUMBER -> v.number().toPlainString();
            case TIMESTAMP -> ValueConverter.formatMicros(v.micros());
            case INTERVAL -> v.number() + " mons " + v.micros() + " us";
            case NULL -> "";
        };
    }

    private CoilgunException unsupported(SqlBasicCall call, String what) {
        return sql.error(SqlState.FEATURE_NOT_SUPPORTED, what + " is not supported in INSERT values (constant "
                + "expressions: + - * / % || on numbers, text, timestamps and intervals, casts, now(), and a few "
                + "functions; see docs/sql.md)", call);
    }

    private static Literal number(BigDecimal n) {
        return new Literal(LiteralKind.NUMBER, null, n, 0);
    }

    private static Literal text(String s) {
        return new Literal(LiteralKind.TEXT, s, null, 0);
    }

    private static Literal timestamp(long micros) {
        return new Literal(LiteralKind.TIMESTAMP, null, null, micros);
    }

    static Literal interval(long months, long micros) {
        return new Literal(LiteralKind.INTERVAL, null, BigDecimal.valueOf(months), micros);
    }
}
