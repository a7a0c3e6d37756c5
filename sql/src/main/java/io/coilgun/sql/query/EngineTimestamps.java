package io.coilgun.sql.query;

import io.coilgun.planner.error.CoilgunException;
import io.coilgun.planner.error.SqlState;
import io.coilgun.sql.compile.ValueConverter;
import io.coilgun.sql.parser.TimestampText;
import com.google.common.collect.ImmutableList;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.DateTimeException;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.calcite.adapter.enumerable.EnumerableCalc;
import org.apache.calcite.adapter.enumerable.EnumerableValues;
import org.apache.calcite.linq4j.function.Strict;
import org.apache.calcite.interpreter.Bindables;
import org.apache.calcite.rel.RelHomogeneousShuttle;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Values;
import org.apache.calcite.rel.core.Window;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.rel.type.RelDataTypeField;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexExecutor;
import org.apache.calcite.rex.RexLiteral;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexProgram;
import org.apache.calcite.rex.RexShuttle;
import org.apache.calcite.rex.RexUtil;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.type.ReturnTypes;
import org.apache.calcite.sql.type.SqlReturnTypeInference;
import org.apache.calcite.sql.type.SqlTypeFamily;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.sql.type.SqlTypeUtil;
import org.apache.calcite.util.TimestampString;

/**
 * Timestamps and intervals to the microsecond inside the query engine, as Postgres keeps them. Calcite's engine holds
 * a TIMESTAMP and a day-time interval as a long and reads it as milliseconds where it computes with one; Coilgun's
 * queries hold microseconds in that long instead: the tables give their timestamps in microseconds, the result is
 * read in microseconds, and the optimized plan is rewritten ({@link #of}) so that every place that reads the long as
 * milliseconds reads microseconds:
 * <ul>
 *   <li>a timestamp or interval literal (and a VALUES row's) is its microseconds;
 *   <li>{@code + / -} an interval, the difference of two timestamps, a cast to text, from text or to a coarser
 *   precision, an interval times or divided by a number are Coilgun's functions over microseconds
 *   ({@link PgDatetimeOperators} makes more: EXTRACT, date_trunc);
 *   <li>what compares, sorts, groups, picks or passes a timestamp on ({@code =}, {@code <}, CASE, COALESCE, MIN, MAX,
 *   ORDER BY, joins), and what adds or negates intervals, needs nothing: microseconds order as milliseconds do;
 *   <li>any other function of a timestamp or interval (a cast to a date, now()) is given milliseconds and its
 *   timestamp or interval result is turned into microseconds.
 * </ul>
 * A table scan's own filters and a window frame of an interval over a timestamp are rewritten too.
 */
public final class EngineTimestamps {
    /** A day-time interval in Calcite's engine: milliseconds. */
    private static final long MICROS_PER_MILLI = 1000L;
    /** Calls that compare, choose or pass values on: the same with microseconds. */
    private static final Set<SqlKind> UNIT_FREE = Set.of(SqlKind.EQUALS, SqlKind.NOT_EQUALS, SqlKind.LESS_THAN,
            SqlKind.LESS_THAN_OR_EQUAL, SqlKind.GREATER_THAN, SqlKind.GREATER_THAN_OR_EQUAL, SqlKind.IS_DISTINCT_FROM,
            SqlKind.IS_NOT_DISTINCT_FROM, SqlKind.IS_NULL, SqlKind.IS_NOT_NULL, SqlKind.CASE, SqlKind.COALESCE,
            SqlKind.NULLIF, SqlKind.GREATEST, SqlKind.LEAST, SqlKind.ROW, SqlKind.ITEM, SqlKind.IN, SqlKind.NOT_IN);

    private static final SqlOperator LITERAL = function("pg_ts_literal", ReturnTypes.ARG0);
    private static final SqlOperator TO_MILLIS = function("pg_ts_millis", ReturnTypes.ARG0);
    private static final SqlOperator TO_MICROS = function("pg_ts_micros", ReturnTypes.ARG0);
    private static final SqlOperator PLUS_MICROS = function("pg_ts_plus_micros", ReturnTypes.ARG0);
    private static final SqlOperator PLUS_MONTHS = function("pg_ts_plus_months", ReturnTypes.ARG0);
    private static final SqlOperator ROUND = function("pg_ts_round", ReturnTypes.ARG0);
    static final SqlOperator TEXT = function("pg_ts_text", ReturnTypes.explicit(SqlTypeName.VARCHAR));
    /** Text to a timestamp, to the microsecond: what a cast from text becomes ({@link PgConvertlets}). */
    static final SqlOperator PARSE = function("pg_ts_parse", ReturnTypes.explicit(SqlTypeName.TIMESTAMP, 6));
    /** A day-time interval's microseconds, as they are (also PgDatetimeOperators' literals past the millisecond). */
    static final SqlOperator INTERVAL_LITERAL = function("pg_iv_literal", ReturnTypes.ARG0);
    private static final SqlOperator INTERVAL_MILLIS = function("pg_iv_millis", ReturnTypes.ARG0);
    private static final SqlOperator INTERVAL_MICROS = function("pg_iv_micros", ReturnTypes.ARG0);
    private static final SqlOperator INTERVAL_TIMES = function("pg_iv_times", ReturnTypes.ARG0);
    private static final SqlOperator INTERVAL_TIMES_EXACT = function("pg_iv_times_exact", ReturnTypes.ARG0);
    private static final SqlOperator INTERVAL_DIVIDE = function("pg_iv_divide", ReturnTypes.ARG0);
    static final SqlOperator INTERVAL_TEXT = function("pg_iv_text",
            ReturnTypes.explicit(SqlTypeName.VARCHAR));
    static final SqlOperator MONTHS_TEXT = function("pg_months_text",
            ReturnTypes.explicit(SqlTypeName.VARCHAR));
    /** Coilgun's functions: of microseconds already. */
    private static final Set<SqlOperator> OWN = Set.of(LITERAL, TO_MILLIS, TO_MICROS, PLUS_MICROS, PLUS_MONTHS,
            ROUND, TEXT, PARSE, INTERVAL_LITERAL, INTERVAL_MILLIS, INTERVAL_MICROS, INTERVAL_TIMES,
            INTERVAL_TIMES_EXACT, INTERVAL_DIVIDE, INTERVAL_TEXT, MONTHS_TEXT);
    /** Calls that add, subtract or negate intervals: the same with microseconds. */
    private static final Set<SqlKind> LINEAR = Set.of(SqlKind.PLUS, SqlKind.MINUS, SqlKind.MINUS_PREFIX,
            SqlKind.PLUS_PREFIX, SqlKind.CHECKED_PLUS, SqlKind.CHECKED_MINUS, SqlKind.CHECKED_MINUS_PREFIX);
    private static final Set<SqlKind> TIMES = Set.of(SqlKind.TIMES, SqlKind.CHECKED_TIMES);
    private static final Set<SqlKind> DIVIDE = Set.of(SqlKind.DIVIDE, SqlKind.CHECKED_DIVIDE);

    private EngineTimestamps() {
    }

    private static SqlOperator function(String name, SqlReturnTypeInference type) {
        return PgConvertlets.function(EngineTimestamps.class, name, type);
    }

    /**
     * The planner's reduction of constant expressions, except those with a timestamp anywhere in them: Calcite
     * computes those in milliseconds ({@code TIMESTAMP '… .123456' + INTERVAL '1' SECOND} would come out at the
     * millisecond); they are left to the query, which computes them in microseconds.
     */
    static RexExecutor withoutTimestamps(RexExecutor calcite) {
        return (rex, constants, reduced) -> {
            List<RexNode> reducible = new ArrayList<>();
            for (RexNode e : constants) {
                if (!mentionsMicros(e)) {
                    reducible.add(e);
                }
            }
            List<RexNode> values = new ArrayList<>();
            if (!reducible.isEmpty()) {
                calcite.reduce(rex, reducible, values);
            }
            int next = 0;
            for (RexNode e : constants) {
                reduced.add(mentionsMicros(e) ? e : values.get(next++));
            }
        };
    }

    private static boolean mentionsMicros(RexNode e) {
        if (isMicros(e.getType())) {
            return true;
        }
        return e instanceof RexCall c && c.getOperands().stream().anyMatch(EngineTimestamps::mentionsMicros);
    }

    /** The optimized plan with timestamps held in microseconds (see the class comment). */
    static RelNode of(RelNode plan) {
        return plan.accept(new RelHomogeneousShuttle() {
            @Override
            public RelNode visit(RelNode other) {
                RelNode visited = super.visit(other);
                RexBuilder rex = visited.getCluster().getRexBuilder();
                if (visited instanceof Values values && hasMicros(values.getRowType())) {
                    return values(values, rex);
                }
                if (visited instanceof Bindables.BindableTableScan scan && !scan.filters.isEmpty()) {
                    // the filters a table scan applies itself (the interpreter evaluates them)
                    RexShuttle rewriter = rewriter(rex);
                    return Bindables.BindableTableScan.create(scan.getCluster(), scan.getTable(),
                            scan.filters.stream().map(f -> f.accept(rewriter)).toList(), scan.projects);
                }
                if (visited instanceof Window window) {
                    return frames(window, rex);
                }
                return visited.accept(rewriter(rex));
            }
        });
    }

    private static boolean isTimestamp(RelDataType t) {
        return t.getSqlTypeName() == SqlTypeName.TIMESTAMP;
    }

    private static boolean isInterval(RelDataType t) {
        return t.getSqlTypeName().getFamily() == SqlTypeFamily.INTERVAL_DAY_TIME;
    }

    /**
     * Whether a day-time interval type has a day field ({@code INTERVAL '1' DAY}, {@code ts - ts}): Postgres would
     * hold its whole days as days; without ({@code INTERVAL '25' HOUR}) all of it is time.
     */
    static boolean withDays(RelDataType t) {
        return t.getIntervalQualifier() != null
                && t.getIntervalQualifier().timeUnitRange.startUnit == org.apache.calcite.avatica.util.TimeUnit.DAY;
    }

    /** A timestamp or a day-time interval: microseconds in the engine. */
    private static boolean isMicros(RelDataType t) {
        return isTimestamp(t) || isInterval(t);
    }

    private static boolean hasMicros(RelDataType row) {
        return row.getFieldList().stream().anyMatch(f -> isMicros(f.getType()));
    }

    /**
     * A window whose frame is an interval over a timestamp ({@code ORDER BY ts RANGE INTERVAL '1' HOUR PRECEDING}):
     * its bounds in microseconds, as the timestamps are (Calcite's day-time intervals are milliseconds).
     */
    private static RelNode frames(Window window, RexBuilder rex) {
        boolean overTimestamps = window.groups.stream().anyMatch(g -> !g.isRows && !g.orderKeys.getKeys().isEmpty()
                && isTimestamp(window.getInput().getRowType().getFieldList().get(g.orderKeys.getKeys().get(0))
                        .getType()));
        if (!overTimestamps) {
            return window;
        }
        List<RexLiteral> constants = new ArrayList<>();
        for (RexLiteral c : window.constants) {
            SqlTypeName t = c.getType().getSqlTypeName();
            constants.add(t.getFamily() == SqlTypeFamily.INTERVAL_DAY_TIME && !c.isNull()
                    ? (RexLiteral) rex.makeIntervalLiteral(c.getValueAs(java.math.BigDecimal.class)
                            .multiply(java.math.BigDecimal.valueOf(MICROS_PER_MILLI)),
                            c.getType().getIntervalQualifier())
                    : c);
        }
        return window.copy(constants);
    }

    /** VALUES with timestamps or intervals: the same rows, each projected from its microseconds. */
    private static RelNode values(Values values, RexBuilder rex) {
        RelDataTypeFactory types = rex.getTypeFactory();
        RelDataType bigint = types.createSqlType(SqlTypeName.BIGINT);
        RelDataTypeFactory.Builder row = types.builder();
        for (RelDataTypeField f : values.getRowType().getFieldList()) {
            row.add(f.getName(), isMicros(f.getType())
                    ? types.createTypeWithNullability(bigint, f.getType().isNullable()) : f.getType());
        }
        RelDataType rowType = row.build();
        List<List<RexLiteral>> tuples = new ArrayList<>();
        for (List<RexLiteral> tuple : values.getTuples()) {
            List<RexLiteral> t = new ArrayList<>();
            for (int i = 0; i < tuple.size(); i++) {
                RexLiteral v = tuple.get(i);
                t.add(!isMicros(values.getRowType().getFieldList().get(i).getType()) ? v : v.isNull()
                        ? (RexLiteral) rex.makeNullLiteral(rowType.getFieldList().get(i).getType())
                        : (RexLiteral) rex.makeLiteral(micros(v), rowType.getFieldList().get(i).getType()));
            }
            tuples.add(t);
        }
        RelNode micros = EnumerableValues.create(values.getCluster(), rowType,
                ImmutableList.copyOf(tuples.stream().map(ImmutableList::copyOf).toList()));
        List<RexNode> projects = new ArrayList<>();
        for (int i = 0; i < rowType.getFieldCount(); i++) {
            RelDataType original = values.getRowType().getFieldList().get(i).getType();
            RexNode ref = rex.makeInputRef(micros, i);
            projects.add(isMicros(original) ? rex.makeCall(original, LITERAL, List.of(ref)) : ref);
        }
        return EnumerableCalc.create(micros, RexProgram.create(rowType, projects, null, values.getRowType(), rex));
    }

    /** Text cast to {@code type}, a timestamp, to its precision. */
    static RexNode parse(RexBuilder rex, RelDataType type, RexNode text) {
        RexNode parsed = rex.makeCall(type, PARSE, List.of(text));
        int precision = type.getPrecision();
        return precision >= 6 ? parsed : rex.makeCall(type, ROUND, List.of(parsed,
                rex.makeLiteral(precision, rex.getTypeFactory().createSqlType(SqlTypeName.INTEGER))));
    }

    /** A timestamp literal's microseconds since the epoch, a day-time interval literal's microseconds. */
    static long micros(RexLiteral literal) {
        if (isInterval(literal.getType())) {
            return literal.getValueAs(BigDecimal.class).multiply(BigDecimal.valueOf(MICROS_PER_MILLI))
                    .setScale(0, RoundingMode.HALF_UP).longValueExact();
        }
        TimestampString ts = literal.getValueAs(TimestampString.class);
        LocalDateTime t = LocalDateTime.parse(ts.toString().replace(' ', 'T'));
        return t.toEpochSecond(ZoneOffset.UTC) * 1_000_000L + t.getNano() / 1000;
    }

    private static RexShuttle rewriter(RexBuilder rex) {
        return new RexShuttle() {
            @Override
            public RexNode visitLiteral(RexLiteral literal) {
                if (!isMicros(literal.getType()) || literal.isNull()) {
                    return literal;
                }
                RelDataType bigint = rex.getTypeFactory().createSqlType(SqlTypeName.BIGINT);
                return rex.makeCall(literal.getType(), isTimestamp(literal.getType()) ? LITERAL : INTERVAL_LITERAL,
                        List.of(rex.makeLiteral(micros(literal), bigint)));
            }

            @Override
            public RexNode visitCall(RexCall call) {
                if (call.getKind() == SqlKind.SEARCH && isTimestamp(call.getOperands().get(0).getType())) {
                    return RexUtil.expandSearch(rex, null, call).accept(this); // comparisons with literals
                }
                List<RexNode> operands = new ArrayList<>();
                for (RexNode o : call.getOperands()) {
                    operands.add(o.accept(this));
                }
                SqlOperator op = call.getOperator();
                if (OWN.contains(op) || PgDatetimeOperators.OF_MICROS.contains(op)) {
                    return call.clone(call.getType(), operands); // of microseconds already
                }
                return ofMicros(call, operands);
            }

            private RexNode ofMicros(RexCall call, List<RexNode> operands) {
                boolean anyMicros = isMicros(call.getType()) || operands.stream().anyMatch(o -> isMicros(o.getType()));
                if (!anyMicros || UNIT_FREE.contains(call.getKind())) {
                    return call.clone(call.getType(), operands);
                }
                boolean anyTimestamp = isTimestamp(call.getType())
                        || operands.stream().anyMatch(o -> isTimestamp(o.getType()));
                if (!anyTimestamp) {
                    RexNode interval = intervals(call, operands);
                    if (interval != null) {
                        return interval;
                    }
                }
                if (call.getOperator() == PgConvertlets.TIMESTAMP_TEXT) {
                    return rex.makeCall(call.getType(), TEXT, operands);
                }
                SqlKind kind = call.getKind();
                boolean minus = kind == SqlKind.MINUS || kind == SqlKind.CHECKED_MINUS;
                if (minus && isInterval(call.getType()) && operands.size() == 2
                        && operands.stream().allMatch(o -> isTimestamp(o.getType()))) {
                    return rex.makeCall(call.getType(), PgDatetimeOperators.TIMESTAMP_MINUS, operands); // (a - b) DAY TO SECOND
                }
                if ((minus || kind == SqlKind.PLUS || kind == SqlKind.CHECKED_PLUS)
                        && isTimestamp(call.getType()) && operands.size() == 2) {
                    RexNode ts = isTimestamp(operands.get(0).getType()) ? operands.get(0) : operands.get(1);
                    RexNode interval = ts == operands.get(0) ? operands.get(1) : operands.get(0);
                    SqlTypeFamily family = interval.getType().getSqlTypeName().getFamily();
                    if (family == SqlTypeFamily.INTERVAL_YEAR_MONTH || family == SqlTypeFamily.INTERVAL_DAY_TIME) {
                        RexNode sign = rex.makeLiteral(minus ? -1 : 1,
                                rex.getTypeFactory().createSqlType(SqlTypeName.INTEGER));
                        return rex.makeCall(call.getType(), family == SqlTypeFamily.INTERVAL_YEAR_MONTH ? PLUS_MONTHS
                                : PLUS_MICROS, List.of(ts, interval, sign));
                    }
                }
                if (kind == SqlKind.CAST && operands.size() == 1) {
                    RelDataType from = operands.get(0).getType();
                    if (isTimestamp(from) && isTimestamp(call.getType())) {
                        int precision = call.getType().getPrecision();
                        return precision >= 6 ? rex.makeCall(call.getType(), LITERAL, operands)
                                : rex.makeCall(call.getType(), ROUND, List.of(operands.get(0),
                                        rex.makeLiteral(precision, rex.getTypeFactory().createSqlType(SqlTypeName.INTEGER))));
                    }
                    if (isTimestamp(call.getType()) && (from.getSqlTypeName() == SqlTypeName.VARCHAR
                            || from.getSqlTypeName() == SqlTypeName.CHAR)) {
                        return parse(rex, call.getType(), operands.get(0));
                    }
                }
                // any other: Calcite's function of milliseconds, its result in microseconds
                List<RexNode> millis = new ArrayList<>();
                for (RexNode o : operands) {
                    millis.add(!isMicros(o.getType()) ? o
                            : rex.makeCall(o.getType(), isTimestamp(o.getType()) ? TO_MILLIS : INTERVAL_MILLIS, List.of(o)));
                }
                RexNode c = call.clone(call.getType(), millis);
                return !isMicros(call.getType()) ? c : rex.makeCall(call.getType(),
                        isTimestamp(call.getType()) ? TO_MICROS : INTERVAL_MICROS, List.of(c));
            }

            /** A call of day-time intervals (no timestamp) computed over microseconds, or null for another. */
            private RexNode intervals(RexCall call, List<RexNode> operands) {
                SqlKind kind = call.getKind();
                if (LINEAR.contains(kind) && isInterval(call.getType())
                        && operands.stream().allMatch(o -> isInterval(o.getType()))) {
                    return call.clone(call.getType(), operands);
                }
                if ((TIMES.contains(kind) || DIVIDE.contains(kind)) && isInterval(call.getType())
                        && operands.size() == 2) {
                    RexNode interval = isInterval(operands.get(0).getType()) ? operands.get(0) : operands.get(1);
                    RexNode factor = interval == operands.get(0) ? operands.get(1) : operands.get(0);
                    boolean exact = SqlTypeUtil.isIntType(factor.getType());
                    SqlOperator op = DIVIDE.contains(kind) ? INTERVAL_DIVIDE
                            : exact ? INTERVAL_TIMES_EXACT : INTERVAL_TIMES;
                    RelDataType number = rex.getTypeFactory().createTypeWithNullability(rex.getTypeFactory()
                            .createSqlType(exact && TIMES.contains(kind) ? SqlTypeName.BIGINT : SqlTypeName.DOUBLE),
                            factor.getType().isNullable());
                    return rex.makeCall(call.getType(), op, List.of(interval, rex.makeCast(number, factor)));
                }
                return null;
            }
        };
    }

    // ---- the functions, over microseconds (primitive: the generated code passes primitives; NULL never reaches
    // them, Calcite answers NULL for a NULL argument) ----

    /** Microseconds, as they are: a literal's value, a cast between precisions that keeps them all. */
    @Strict
    public static long pg_ts_literal(long micros) {
        return micros;
    }

    /** Microseconds to the milliseconds Calcite's own functions read (towards negative infinity). */
    @Strict
    public static long pg_ts_millis(long micros) {
        return Math.floorDiv(micros, MICROS_PER_MILLI);
    }

    /** Milliseconds of Calcite's functions to microseconds. */
    @Strict
    public static long pg_ts_micros(long millis) {
        return Math.multiplyExact(millis, MICROS_PER_MILLI);
    }

    /** A timestamp plus ({@code sign} 1) or minus (-1) a day-time interval. */
    @Strict
    public static long pg_ts_plus_micros(long micros, long interval, int sign) {
        return Math.addExact(micros, Math.multiplyExact(interval, sign));
    }

    /** A day-time interval literal's microseconds, as they are. */
    @Strict
    public static long pg_iv_literal(long micros) {
        return micros;
    }

    /** A day-time interval's microseconds to the milliseconds Calcite's functions read (toward zero). */
    @Strict
    public static long pg_iv_millis(long micros) {
        return micros / MICROS_PER_MILLI;
    }

    /** Milliseconds of Calcite's functions to an interval's microseconds. */
    @Strict
    public static long pg_iv_micros(long millis) {
        return Math.multiplyExact(millis, MICROS_PER_MILLI);
    }

    /** An interval times a whole number. */
    @Strict
    public static long pg_iv_times_exact(long micros, long factor) {
        return Math.multiplyExact(micros, factor);
    }

    /** An interval times a number, to the nearest microsecond (as Postgres rounds). */
    @Strict
    public static long pg_iv_times(long micros, double factor) {
        return intervalOf(micros * factor);
    }

    /** An interval divided by a number, to the nearest microsecond. */
    @Strict
    public static long pg_iv_divide(long micros, double divisor) {
        if (divisor == 0) {
            throw new CoilgunException(SqlState.DIVISION_BY_ZERO, "division by zero", 0);
        }
        return intervalOf(micros / divisor);
    }

    private static long intervalOf(double micros) {
        if (Double.isNaN(micros) || Math.abs(micros) >= 0x1p63) {
            throw new CoilgunException(SqlState.DATETIME_FIELD_OVERFLOW, "interval out of range", 0);
        }
        return (long) Math.rint(micros);
    }

    /**
     * A day-time interval as Postgres' text: {@code 1 day 02:00:00.5}, {@code -00:00:01}; {@code withDays}: its
     * type has a day field (else {@code INTERVAL '25' HOUR} is {@code 25:00:00}).
     */
    @Strict
    public static String pg_iv_text(long micros, boolean withDays) {
        return IntervalText.ofMicros(micros, withDays);
    }

    /** A year-month interval as Postgres' text: {@code 1 year 2 mons}. */
    @Strict
    public static String pg_months_text(int months) {
        return IntervalText.ofMonths(months);
    }

    /** A timestamp plus or minus months, as Postgres adds them: the day of month kept, or the month's last. */
    @Strict
    public static long pg_ts_plus_months(long micros, int months, int sign) {
        return fromLocal(toLocal(micros).plusMonths((long) months * sign));
    }

    /** A timestamp rounded to {@code precision} digits after the second, as a cast to timestamp(p) rounds. */
    @Strict
    public static long pg_ts_round(long micros, int precision) {
        if (precision >= 6) {
            return micros;
        }
        long unit = (long) Math.pow(10, 6 - Math.max(precision, 0));
        return Math.floorDiv(micros + unit / 2, unit) * unit;
    }

    /** A timestamp as Postgres' text: {@code 2026-01-02 10:00:00.123456}, trailing zeros of the fraction dropped. */
    @Strict
    public static String pg_ts_text(long micros) {
        return ValueConverter.formatMicros(micros);
    }

    /** Text read as a timestamp by Postgres' input rules, to the microsecond. */
    public static Long pg_ts_parse(String text) {
        if (text == null) {
            return null;
        }
        try {
            return fromLocal(TimestampText.parse(text));
        } catch (DateTimeParseException e) {
            throw new CoilgunException(SqlState.INVALID_DATETIME_FORMAT, "invalid input syntax for type timestamp: \""
                    + text + "\"", 0);
        } catch (DateTimeException | ArithmeticException e) {
            throw new CoilgunException(SqlState.DATETIME_FIELD_OVERFLOW, "timestamp out of range: \"" + text + "\"",
                    0);
        }
    }

    static LocalDateTime toLocal(long micros) {
        return LocalDateTime.ofEpochSecond(Math.floorDiv(micros, 1_000_000L),
                (int) Math.floorMod(micros, 1_000_000L) * 1000, ZoneOffset.UTC);
    }

    static long fromLocal(LocalDateTime t) {
        return Math.addExact(Math.multiplyExact(t.toEpochSecond(ZoneOffset.UTC), 1_000_000L), t.getNano() / 1000);
    }
}
