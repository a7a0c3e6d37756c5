package io.coilgun.sql.compile;

import io.coilgun.planner.error.CoilgunException;
import io.coilgun.planner.event.NumericBytes;
import io.coilgun.planner.error.SqlState;
import io.coilgun.planner.model.ColumnType;
import io.coilgun.planner.model.Durations;
import io.coilgun.planner.model.StreamColumn;
import io.coilgun.sql.parser.Intervals;
import io.coilgun.sql.parser.TimestampText;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Clock;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.Set;
import org.apache.calcite.sql.SqlBasicCall;
import org.apache.calcite.sql.SqlCharStringLiteral;
import org.apache.calcite.sql.SqlDataTypeSpec;
import org.apache.calcite.sql.SqlDateLiteral;
import org.apache.calcite.sql.SqlDynamicParam;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlIntervalLiteral;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlLiteral;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNumericLiteral;
import org.apache.calcite.sql.SqlTimestampLiteral;
import org.apache.calcite.sql.SqlUnknownLiteral;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.util.DateString;
import org.apache.calcite.util.TimestampString;

/**
 * Turns the literal values of an INSERT into column values, with Postgres' rules for assignment: a quoted string
 * is read as the column's type ({@code '12'} into a BIGINT), numbers convert between numeric types (rounding half
 * away from zero into integers), anything else is a type mismatch (42804). Also judges event times against the
 * server clock: docs/sql.md rejects events more than {@link #maxFutureMicros()} past it.
 */
public final class ValueConverter {
    /** Postgres' limits of a numeric value: digits before the point, and after it. */
    private static final int NUMERIC_MAX_INTEGER_DIGITS = 131_072;
    private static final int NUMERIC_MAX_SCALE = 16_383;
    /** docs/sql.md's default bound on how far past the server clock an event time may be. */
    public static final long DEFAULT_MAX_FUTURE_MICROS = Durations.MINUTE;

    /** Timestamps as Postgres reads them without a zone: date, optional time (T or space), optional fraction. */
    private static final DateTimeFormatter TIMESTAMP_TEXT = TimestampText.FORMAT;

    /** The functions that give the statement's time (Postgres: the transaction's; here the server clock). */
    private static final Set<String> NOW = Set.of("NOW", "CURRENT_TIMESTAMP", "LOCALTIMESTAMP",
            "TRANSACTION_TIMESTAMP", "STATEMENT_TIMESTAMP", "CLOCK_TIMESTAMP");

    private final Clock clock;
    private final long maxFutureMicros;

    public ValueConverter(Clock clock) {
        this(clock, DEFAULT_MAX_FUTURE_MICROS);
    }

    public ValueConverter(Clock clock, long maxFutureMicros) {
        this.clock = clock;
        this.maxFutureMicros = maxFutureMicros;
    }

    public long maxFutureMicros() {
        return maxFutureMicros;
    }

    /**
     * The value of {@code expr} for {@code column}: a {@link ColumnType#javaClass()} object, or null for NULL.
     *
     * @throws CoilgunException 22P02/22007 for text that is not a value of the type, 22003 when out of range,
     *     42804 for a value of another type, 0A000 for an expression that is not a literal
     */
    Object convert(SqlText sql, SqlNode expr, StreamColumn column) {
        if (expr instanceof SqlDynamicParam param && column.type() != ColumnType.TIMESTAMP
                && column.type() != ColumnType.NUMERIC) {
            // A bound value already of the column's Java type (a Long for BIGINT, ...) is the value: the common
            // case of a prepared INSERT, taken without a detour through a literal.
            Object value = sql.value(param);
            if (value != null && value.getClass() == column.type().javaClass()) {
                return value;
            }
        }
        Literal lit = literal(sql, expr);
        if (lit.kind == LiteralKind.NULL) {
            return null;
        }
        ColumnType type = column.type();
        return switch (type) {
            case BIGINT, INTEGER -> toIntegral(sql, expr, column, lit);
            case DOUBLE -> toDouble(sql, expr, column, lit);
            case VARCHAR -> switch (lit.kind) {
                case TEXT -> lit.text;
                case NUMBER -> lit.number.toString();
                case BOOLEAN -> lit.text;
                default -> throw mismatch(sql, expr, column, lit);
            };
            case BOOLEAN -> toBoolean(sql, expr, column, lit);
            case TIMESTAMP -> toTimestamp(sql, expr, column, lit);
            case NUMERIC -> toNumeric(sql, expr, column, lit);
        };
    }

    /** Rejects an event time more than {@link #maxFutureMicros()} past the server clock (22008). */
    void checkEventTime(SqlText sql, SqlNode expr, long micros) {
        long now = Math.multiplyExact(clock.millis(), 1000L);
        if (micros > now + maxFutureMicros) {
            throw sql.error(SqlState.DATETIME_FIELD_OVERFLOW, "event time " + formatMicros(micros)
                    + " is more than " + Durations.format(maxFutureMicros).toLowerCase(Locale.ROOT)
                    + " past the server clock (" + formatMicros(now) + ")", expr);
        }
    }

    private static Object toIntegral(SqlText sql, SqlNode expr, StreamColumn column, Literal lit) {
        BigDecimal n;
        if (lit.kind == LiteralKind.NUMBER) {
            n = lit.number;
        } else if (lit.kind == LiteralKind.TEXT) {
            try {
                n = new BigDecimal(lit.text.trim());
                if (n.scale() > 0 && n.stripTrailingZeros().scale() > 0) {
                    throw new NumberFormatException(); // Postgres reads '1.5' as no integer at all
                }
            } catch (NumberFormatException e) {
                throw sql.error(SqlState.INVALID_TEXT_REPRESENTATION, "invalid input syntax for type "
                        + PgTypeNames.of(column.type()) + ": \"" + lit.text + "\"", expr);
            }
        } else {
            throw mismatch(sql, expr, column, lit);
        }
        try {
            long v = n.setScale(0, RoundingMode.HALF_UP).longValueExact();
            if (column.type() == ColumnType.INTEGER) {
                return Math.toIntExact(v);
            }
            return v;
        } catch (ArithmeticException e) {
            throw sql.error(SqlState.NUMERIC_VALUE_OUT_OF_RANGE, PgTypeNames.of(column.type()) + " out of range", expr);
        }
    }

    private static Object toDouble(SqlText sql, SqlNode expr, StreamColumn column, Literal lit) {
        double d;
        if (lit.kind == LiteralKind.NUMBER) {
            d = lit.number.doubleValue();
        } else if (lit.kind == LiteralKind.TEXT) {
            String t = lit.text.trim();
            d = switch (t.toLowerCase(Locale.ROOT)) {
                case "nan" -> Double.NaN;
                case "infinity", "+infinity", "inf", "+inf" -> Double.POSITIVE_INFINITY;
                case "-infinity", "-inf" -> Double.NEGATIVE_INFINITY;
                default -> {
                    try {
                        yield new BigDecimal(t).doubleValue();
                    } catch (NumberFormatException e) {
                        throw sql.error(SqlState.INVALID_TEXT_REPRESENTATION,
                                "invalid input syntax for type double precision: \"" + lit.text + "\"", expr);
                    }
                }
            };
            if (Double.isNaN(d) || Double.isInfinite(d)) {
                return d;
            }
        } else {
            throw mismatch(sql, expr, column, lit);
        }
        if (Double.isInfinite(d)) {
            throw sql.error(SqlState.NUMERIC_VALUE_OUT_OF_RANGE,
                    "value out of range: overflow for type double precision", expr);
        }
        return d;
    }

    private static Object toNumeric(SqlText sql, SqlNode expr, StreamColumn column, Literal lit) {
        BigDecimal n;
        if (lit.kind == LiteralKind.NUMBER) {
            n = lit.number;
        } else if (lit.kind == LiteralKind.TEXT) {
            String t = lit.text.trim();
            try {
                n = new BigDecimal(t);
            } catch (NumberFormatException e) {
                if (t.equalsIgnoreCase("nan") || t.toLowerCase(Locale.ROOT).matches("[+-]?inf(inity)?")) {
                    throw sql.error(SqlState.FEATURE_NOT_SUPPORTED, "a NUMERIC stream column does not keep NaN or "
                            + "infinity (a DOUBLE column does)", expr);
                }
                throw sql.error(SqlState.INVALID_TEXT_REPRESENTATION, "invalid input syntax for type numeric: \""
                        + lit.text + "\"", expr);
            }
        } else {
            throw mismatch(sql, expr, column, lit);
        }
        return numeric(sql, expr, column, n);
    }

    /**
     * {@code n} as column {@code column} keeps it, as Postgres stores it: rounded half away from zero to the
     * column's scale; 22003 when it has more digits before the point than the column's precision allows.
     */
    static BigDecimal numeric(SqlText sql, SqlNode expr, StreamColumn column, BigDecimal n) {
        if (column.precision() < 0) {
            if (n.precision() - n.scale() > NUMERIC_MAX_INTEGER_DIGITS || n.scale() > NUMERIC_MAX_SCALE) {
                throw sql.error(SqlState.NUMERIC_VALUE_OUT_OF_RANGE, "value overflows numeric format", expr);
            }
            return NumericBytes.normal(n);
        }
        BigDecimal v = n.setScale(column.scale(), RoundingMode.HALF_UP);
        if (v.signum() != 0 && v.precision() - v.scale() > column.precision() - column.scale()) {
            throw sql.error(SqlState.NUMERIC_VALUE_OUT_OF_RANGE, "numeric field overflow: a field with precision "
                    + column.precision() + ", scale " + column.scale() + " must round to an absolute value less "
                    + "than " + (column.precision() == column.scale() ? "1" : "10^"
                            + (column.precision() - column.scale())), expr);
        }
        return v;
    }

    private static Object toBoolean(SqlText sql, SqlNode expr, StreamColumn column, Literal lit) {
        if (lit.kind == LiteralKind.BOOLEAN) {
            return Boolean.parseBoolean(lit.text);
        }
        if (lit.kind == LiteralKind.TEXT) {
            Boolean b = booleanText(lit.text);
            if (b == null) {
                throw sql.error(SqlState.INVALID_TEXT_REPRESENTATION,
                        "invalid input syntax for type boolean: \"" + lit.text + "\"", expr);
            }
            return b;
        }
        throw mismatch(sql, expr, column, lit);
    }

    /** A boolean's text as Postgres reads it ({@code t}, {@code yes}, {@code on}, {@code 1}, …), or null. */
    public static Boolean booleanText(String text) {
        return switch (text.trim().toLowerCase(Locale.ROOT)) {
            case "t", "true", "y", "yes", "on", "1" -> Boolean.TRUE;
            case "f", "false", "n", "no", "off", "0" -> Boolean.FALSE;
            default -> null;
        };
    }

    private static Object toTimestamp(SqlText sql, SqlNode expr, StreamColumn column, Literal lit) {
        if (lit.kind == LiteralKind.TIMESTAMP) {
            return lit.micros;
        }
        if (lit.kind != LiteralKind.TEXT) {
            throw mismatch(sql, expr, column, lit);
        }
        try {
            return toMicros(TimestampText.parse(lit.text));
        } catch (DateTimeParseException e) {
            throw sql.error(SqlState.INVALID_DATETIME_FORMAT,
                    "invalid input syntax for type timestamp: \"" + lit.text + "\"", expr);
        } catch (DateTimeException | ArithmeticException e) {
            throw sql.error(SqlState.DATETIME_FIELD_OVERFLOW, "timestamp out of range: \"" + lit.text + "\"", expr);
        }
    }

    private static CoilgunException mismatch(SqlText sql, SqlNode expr, StreamColumn column, Literal lit) {
        return sql.error(SqlState.DATATYPE_MISMATCH, "column \"" + column.name() + "\" is of type "
                + PgTypeNames.of(column.type()) + " but expression is of type " + lit.kind.pgName, expr);
    }

    static long toMicros(LocalDateTime t) {
        long seconds = t.toEpochSecond(ZoneOffset.UTC);
        return Math.addExact(Math.multiplyExact(seconds, 1_000_000L), t.getNano() / 1000);
    }

    /** {@code 2026-01-01 10:00:00[.ffffff]}, as Postgres prints a timestamp. */
    public static String formatMicros(long micros) {
        LocalDateTime t = LocalDateTime.ofEpochSecond(Math.floorDiv(micros, 1_000_000L),
                (int) Math.floorMod(micros, 1_000_000L) * 1000, ZoneOffset.UTC);
        String s = t.toLocalDate() + " " + String.format(Locale.ROOT, "%02d:%02d:%02d", t.getHour(), t.getMinute(),
                t.getSecond());
        return t.getNano() == 0 ? s : s + "." + String.format(Locale.ROOT, "%06d", t.getNano() / 1000)
                .replaceAll("0+$", "");
    }

    /**
     * {@code TIMESTAMP '...'} and {@code DATE '...'}: Calcite's parser leaves their text to the validator; read it
     * here with Postgres' rules and messages.
     */
    private static Literal typedLiteral(SqlText sql, SqlNode expr, SqlUnknownLiteral typed) {
        String tag = typed.tag.toUpperCase(Locale.ROOT);
        String text = typed.getValue();
        if (!tag.equals("TIMESTAMP") && !tag.equals("DATE")) {
            throw sql.error(SqlState.FEATURE_NOT_SUPPORTED,
                    "literals of type " + tag + " are not supported in INSERT yet", expr);
        }
        try {
            LocalDateTime t = TimestampText.parse(text);
            if (tag.equals("DATE") && !t.toLocalTime().equals(LocalTime.MIDNIGHT)) {
                throw new DateTimeParseException("a date has no time", text, 0);
            }
            return new Literal(LiteralKind.TIMESTAMP, null, null, toMicros(t));
        } catch (DateTimeParseException e) {
            throw sql.error(SqlState.INVALID_DATETIME_FORMAT, "invalid input syntax for type "
                    + (tag.equals("DATE") ? "date" : "timestamp") + ": \"" + text + "\"", expr);
        } catch (DateTimeException | ArithmeticException e) {
            throw sql.error(SqlState.DATETIME_FIELD_OVERFLOW, "timestamp out of range: \"" + text + "\"", expr);
        }
    }

    /**
     * A bound parameter's value as a literal: text as a quoted string (read as the column's type), numbers, booleans
     * and date/times as such (a timestamptz at the session time zone, UTC, as Postgres assigns it to a timestamp).
     */
    private static Literal parameter(SqlText sql, SqlDynamicParam param, Object value) {
        if (value == null) {
            return new Literal(LiteralKind.NULL, null, null, 0);
        }
        if (value instanceof String s) {
            return new Literal(LiteralKind.TEXT, s, null, 0);
        }
        if (value instanceof Boolean b) {
            return new Literal(LiteralKind.BOOLEAN, b.toString(), null, 0);
        }
        if (value instanceof Double || value instanceof Float) {
            double d = ((Number) value).doubleValue();
            return Double.isNaN(d) || Double.isInfinite(d) ? new Literal(LiteralKind.TEXT, value.toString(), null, 0)
                    : new Literal(LiteralKind.NUMBER, null, BigDecimal.valueOf(d), 0);
        }
        if (value instanceof BigDecimal n) {
            return new Literal(LiteralKind.NUMBER, null, n, 0);
        }
        if (value instanceof Long || value instanceof Integer || value instanceof Short) {
            return new Literal(LiteralKind.NUMBER, null, BigDecimal.valueOf(((Number) value).longValue()), 0);
        }
        try {
            if (value instanceof LocalDateTime t) {
                return new Literal(LiteralKind.TIMESTAMP, null, null, toMicros(t));
            }
            if (value instanceof OffsetDateTime t) {
                return new Literal(LiteralKind.TIMESTAMP, null, null,
                        toMicros(t.withOffsetSameInstant(ZoneOffset.UTC).toLocalDateTime()));
            }
            if (value instanceof LocalDate d) {
                return new Literal(LiteralKind.TIMESTAMP, null, null, toMicros(d.atStartOfDay()));
            }
        } catch (DateTimeException | ArithmeticException e) {
            throw sql.error(SqlState.DATETIME_FIELD_OVERFLOW, "timestamp out of range: \"" + value + "\"", param);
        }
        throw sql.error(SqlState.FEATURE_NOT_SUPPORTED, "parameter $" + sql.number(param) + " of type "
                + value.getClass().getSimpleName() + " is not supported here", param);
    }

    /** The kinds of value an INSERT's expressions compute (see {@link ConstantExpression}). */
    enum LiteralKind {
        NULL("unknown"), NUMBER("numeric"), TEXT("unknown"), BOOLEAN("boolean"), TIMESTAMP("timestamp"),
        INTERVAL("interval");

        final String pgName;

        LiteralKind(String pgName) {
            this.pgName = pgName;
        }
    }

    /**
     * A value of an INSERT expression: text (also booleans' and unknown literals'), a number, a timestamp in
     * micros, or an interval (months in {@code number}, the rest in {@code micros}).
     */
    record Literal(LiteralKind kind, String text, BigDecimal number, long micros) {
    }

    /**
     * {@code CAST(value AS type)} or {@code value::type} of a literal (what psycopg2 writes for a bound datetime,
     * {@code '2026-11-24T19:30:05.123456'::timestamp}): the literal read as that type with Postgres' input rules.
     */
    private Literal cast(SqlText sql, SqlNode value, SqlTypeName type) {
        Literal inner = literal(sql, value);
        if (inner.kind == LiteralKind.NULL || type == null) {
            return inner;
        }
        switch (type) {
            case TIMESTAMP, DATE -> {
                if (inner.kind != LiteralKind.TEXT) {
                    return inner;
                }
                String name = type == SqlTypeName.DATE ? "date" : "timestamp";
                try {
                    LocalDateTime t = TimestampText.parse(inner.text);
                    return new Literal(LiteralKind.TIMESTAMP, null, null,
                            toMicros(type == SqlTypeName.DATE ? t.toLocalDate().atStartOfDay() : t));
                } catch (DateTimeParseException e) {
                    throw sql.error(SqlState.INVALID_DATETIME_FORMAT, "invalid input syntax for type " + name + ": \""
                            + inner.text + "\"", value);
                } catch (DateTimeException | ArithmeticException e) {
                    throw sql.error(SqlState.DATETIME_FIELD_OVERFLOW, name + " out of range: \"" + inner.text + "\"",
                            value);
                }
            }
            case TINYINT, SMALLINT, INTEGER, BIGINT, DECIMAL, FLOAT, REAL, DOUBLE -> {
                boolean integer = type == SqlTypeName.TINYINT || type == SqlTypeName.SMALLINT
                        || type == SqlTypeName.INTEGER || type == SqlTypeName.BIGINT;
                if (inner.kind == LiteralKind.NUMBER && integer) {
                    // a cast to an integer type rounds half away from zero, as Postgres' does
                    return new Literal(LiteralKind.NUMBER, null, inner.number.setScale(0, RoundingMode.HALF_UP), 0);
                }
                if (inner.kind != LiteralKind.TEXT) {
                    return inner;
                }
                try {
                    return new Literal(LiteralKind.NUMBER, null, new BigDecimal(inner.text.trim()), 0);
                } catch (NumberFormatException e) {
                    // NaN and Infinity stay text: a double column reads them
                    if (type == SqlTypeName.DOUBLE || type == SqlTypeName.FLOAT || type == SqlTypeName.REAL) {
                        return inner;
                    }
                    throw sql.error(SqlState.INVALID_TEXT_REPRESENTATION, "invalid input syntax for type "
                            + type.getName().toLowerCase(Locale.ROOT) + ": \"" + inner.text + "\"", value);
                }
            }
            case CHAR, VARCHAR -> {
                return inner.kind == LiteralKind.TEXT ? inner : new Literal(LiteralKind.TEXT,
                        inner.kind == LiteralKind.NUMBER ? inner.number.toPlainString()
                                : inner.kind == LiteralKind.TIMESTAMP ? formatMicros(inner.micros) : inner.text, null,
                        0);
            }
            default -> {
                return inner;
            }
        }
    }

    /** The value of {@code expr}: a literal, a parameter, a cast, {@code now()} or a constant expression. */
    private Literal literal(SqlText sql, SqlNode expr) {
        if (expr instanceof SqlDynamicParam param) {
            return parameter(sql, param, sql.value(param));
        }
        if (expr instanceof SqlBasicCall call
                && (call.getKind() == SqlKind.MINUS_PREFIX || call.getKind() == SqlKind.PLUS_PREFIX)
                && call.operand(0) instanceof SqlNumericLiteral n) {
            BigDecimal v = n.getValueAs(BigDecimal.class);
            return new Literal(LiteralKind.NUMBER, null, call.getKind() == SqlKind.MINUS_PREFIX ? v.negate() : v, 0);
        }
        // now() is a call; CURRENT_TIMESTAMP and LOCALTIMESTAMP without parentheses parse as identifiers
        if ((expr instanceof SqlBasicCall now && now.operandCount() == 0
                && NOW.contains(now.getOperator().getName().toUpperCase(Locale.ROOT)))
                || (expr instanceof SqlIdentifier id && id.isSimple()
                        && NOW.contains(id.getSimple().toUpperCase(Locale.ROOT)))) {
            Instant t = clock.instant();
            return new Literal(LiteralKind.TIMESTAMP, null, null,
                    Math.addExact(Math.multiplyExact(t.getEpochSecond(), 1_000_000L), t.getNano() / 1000));
        }
        if (expr instanceof SqlBasicCall call && call.getKind() == SqlKind.CAST
                && call.operand(1) instanceof SqlDataTypeSpec spec) {
            return cast(sql, call.operand(0), SqlTypeName.get(spec.getTypeName().getSimple().toUpperCase(Locale.ROOT)));
        }
        if (expr instanceof SqlBasicCall call) {
            return ConstantExpression.evaluate(sql, call, node -> literal(sql, node));
        }
        if (!(expr instanceof SqlLiteral lit)) {
            throw sql.error(SqlState.FEATURE_NOT_SUPPORTED,
                    "INSERT values are constant expressions: a column or a subquery is not one", expr);
        }
        if (lit instanceof SqlIntervalLiteral interval) {
            long[] parts;
            try {
                parts = Intervals.monthsAndMicros(interval);
            } catch (CoilgunException e) {
                throw sql.error(e.state(), e.getMessage(), expr);
            }
            return ConstantExpression.interval(parts[0], parts[1]);
        }
        if (lit.getTypeName() == SqlTypeName.NULL) {
            return new Literal(LiteralKind.NULL, null, null, 0);
        }
        if (lit instanceof SqlNumericLiteral n) {
            return new Literal(LiteralKind.NUMBER, null, n.getValueAs(BigDecimal.class), 0);
        }
        if (lit instanceof SqlCharStringLiteral) {
            return new Literal(LiteralKind.TEXT, lit.getValueAs(String.class), null, 0);
        }
        if (lit.getTypeName() == SqlTypeName.BOOLEAN) {
            return new Literal(LiteralKind.BOOLEAN, String.valueOf(lit.booleanValue()), null, 0);
        }
        if (lit instanceof SqlUnknownLiteral typed) {
            return typedLiteral(sql, expr, typed);
        }
        try {
            if (lit instanceof SqlTimestampLiteral) {
                TimestampString ts = lit.getValueAs(TimestampString.class);
                return new Literal(LiteralKind.TIMESTAMP, null, null,
                        toMicros(LocalDateTime.parse(ts.toString(), TIMESTAMP_TEXT)));
            }
            if (lit instanceof SqlDateLiteral) {
                DateString d = lit.getValueAs(DateString.class);
                return new Literal(LiteralKind.TIMESTAMP, null, null,
                        toMicros(LocalDateTime.parse(d.toString(), TIMESTAMP_TEXT)));
            }
        } catch (DateTimeException | ArithmeticException e) {
            throw sql.error(SqlState.DATETIME_FIELD_OVERFLOW, "timestamp out of range: " + lit, expr);
        }
        throw sql.error(SqlState.FEATURE_NOT_SUPPORTED,
                "literals of type " + lit.getTypeName() + " are not supported in INSERT yet", expr);
    }
}
