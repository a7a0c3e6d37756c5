package io.coilgun.sql.query;

import io.coilgun.planner.error.CoilgunException;
import io.coilgun.planner.error.SqlState;
import io.coilgun.sql.compile.ValueConverter;
import io.coilgun.sql.parser.TimestampText;
import com.google.common.collect.ImmutableList;
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
import org.apache.calcite.util.TimestampString;

/**
 * Timestamps to the microsecond inside the query engine, as Postgres keeps them. Calcite's engine holds a TIMESTAMP as
 * a long and reads it as milliseconds where it computes with one; Coilgun's queries hold microseconds in that long
 * instead: the tables give their timestamps in microseconds, the result is read in microseconds, and the optimized
 * plan is rewritten ({@link #of}) so that every place that reads the long as milliseconds reads microseconds:
 * <ul>
 *   <li>a timestamp literal (and a VALUES row's) is its microseconds;
 *   <li>{@code + / -} an interval, the difference of two timestamps, a cast to text, from text or to a coarser
 *   precision are Coilgun's functions over microseconds;
 *   <li>what compares, sorts, groups, picks or passes a timestamp on ({@code =}, {@code <}, CASE, COALESCE, MIN, MAX,
 *   ORDER BY, joins) needs nothing: microseconds order as milliseconds do;
 *   <li>any other function of a timestamp (EXTRACT, date_trunc, a cast to a date, now()) is given milliseconds and
 *   its timestamp result is turned into microseconds.
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
    private static final SqlOperator PLUS_MILLIS = function("pg_ts_plus_millis", ReturnTypes.ARG0);
    private static final SqlOperator PLUS_MONTHS = function("pg_ts_plus_months", ReturnTypes.ARG0);
    private static final SqlOperator ROUND = function("pg_ts_round", ReturnTypes.ARG0);
    static final SqlOperator TEXT = function("pg_ts_text", ReturnTypes.explicit(SqlTypeName.VARCHAR));
    /** Text to a timestamp, to the microsecond: what a cast from text becomes ({@link PgConvertlets}). */
    static final SqlOperator PARSE = function("pg_ts_parse", ReturnTypes.explicit(SqlTypeName.TIMESTAMP, 6));
    /** Coilgun's functions: of microseconds already. */
    private static final Set<SqlOperator> OWN = Set.of(LITERAL, TO_MILLIS, TO_MICROS, PLUS_MILLIS, PLUS_MONTHS,
            ROUND, TEXT, PARSE);

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
                if (!mentionsTimestamp(e)) {
                    reducible.add(e);
                }
            }
            List<RexNode> values = new ArrayList<>();
            if (!reducible.isEmpty()) {
                calcite.reduce(rex, reducible, values);
            }
            int next = 0;
            for (RexNode e : constants) {
                reduced.add(mentionsTimestamp(e) ? e : values.get(next++));
            }
        };
    }

    private static boolean mentionsTimestamp(RexNode e) {
        if (isTimestamp(e.getType())) {
            return true;
        }
        return e instanceof RexCall c && c.getOperands().stream().anyMatch(EngineTimestamps::mentionsTimestamp);
    }

    /** The optimized plan with timestamps held in microseconds (see the class comment). */
    static RelNode of(RelNode plan) {
        return plan.accept(new RelHomogeneousShuttle() {
            @Override
            public RelNode visit(RelNode other) {
                RelNode visited = super.visit(other);
                RexBuilder rex = visited.getCluster().getRexBuilder();
                if (visited instanceof Values values && hasTimestamp(values.getRowType())) {
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

    private static boolean hasTimestamp(RelDataType row) {
        return row.getFieldList().stream().anyMatch(f -> isTimestamp(f.getType()));
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

    /** VALUES with timestamps: the same rows, each timestamp projected from its microseconds. */
    private static RelNode values(Values values, RexBuilder rex) {
        RelDataTypeFactory types = rex.getTypeFactory();
        RelDataType bigint = types.createSqlType(SqlTypeName.BIGINT);
        RelDataTypeFactory.Builder row = types.builder();
        for (RelDataTypeField f : values.getRowType().getFieldList()) {
            row.add(f.getName(), isTimestamp(f.getType())
                    ? types.createTypeWithNullability(bigint, f.getType().isNullable()) : f.getType());
        }
        RelDataType rowType = row.build();
        List<List<RexLiteral>> tuples = new ArrayList<>();
        for (List<RexLiteral> tuple : values.getTuples()) {
            List<RexLiteral> t = new ArrayList<>();
            for (int i = 0; i < tuple.size(); i++) {
                RexLiteral v = tuple.get(i);
                t.add(!isTimestamp(values.getRowType().getFieldList().get(i).getType()) ? v : v.isNull()
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
            projects.add(isTimestamp(original) ? rex.makeCall(original, LITERAL, List.of(ref)) : ref);
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

    /** A timestamp literal's microseconds since the epoch. */
    static long micros(RexLiteral literal) {
        TimestampString ts = literal.getValueAs(TimestampString.class);
        LocalDateTime t = LocalDateTime.parse(ts.toString().replace(' ', 'T'));
        return t.toEpochSecond(ZoneOffset.UTC) * 1_000_000L + t.getNano() / 1000;
    }

    private static RexShuttle rewriter(RexBuilder rex) {
        return new RexShuttle() {
            @Override
            public RexNode visitLiteral(RexLiteral literal) {
                if (!isTimestamp(literal.getType()) || literal.isNull()) {
                    return literal;
                }
                RelDataType bigint = rex.getTypeFactory().createSqlType(SqlTypeName.BIGINT);
                return rex.makeCall(literal.getType(), LITERAL, List.of(rex.makeLiteral(micros(literal), bigint)));
            }

            @Override
            public RexNode visitCall(RexCall call) {
                if (call.getKind() == SqlKind.SEARCH && isTimestamp(call.getOperands().get(0).getType())) {
                    return RexUtil.expandSearch(rex, null, call).accept(this); // comparisons with literals
                }
                if (OWN.contains(call.getOperator())) {
                    return call; // of microseconds already
                }
                List<RexNode> operands = new ArrayList<>();
                for (RexNode o : call.getOperands()) {
                    operands.add(o.accept(this));
                }
                return timestamps(call, operands);
            }

            private RexNode timestamps(RexCall call, List<RexNode> operands) {
                boolean anyTimestamp = isTimestamp(call.getType())
                        || operands.stream().anyMatch(o -> isTimestamp(o.getType()));
                if (!anyTimestamp || UNIT_FREE.contains(call.getKind())) {
                    return call.clone(call.getType(), operands);
                }
                if (call.getOperator() == PgConvertlets.TIMESTAMP_TEXT) {
                    return rex.makeCall(call.getType(), TEXT, operands);
                }
                SqlKind kind = call.getKind();
                if ((kind == SqlKind.PLUS || kind == SqlKind.MINUS)
                        && isTimestamp(call.getType()) && operands.size() == 2) {
                    RexNode ts = isTimestamp(operands.get(0).getType()) ? operands.get(0) : operands.get(1);
                    RexNode interval = ts == operands.get(0) ? operands.get(1) : operands.get(0);
                    SqlTypeFamily family = interval.getType().getSqlTypeName().getFamily();
                    if (family == SqlTypeFamily.INTERVAL_YEAR_MONTH || family == SqlTypeFamily.INTERVAL_DAY_TIME) {
                        RexNode sign = rex.makeLiteral(kind == SqlKind.MINUS ? -1 : 1,
                                rex.getTypeFactory().createSqlType(SqlTypeName.INTEGER));
                        return rex.makeCall(call.getType(), family == SqlTypeFamily.INTERVAL_YEAR_MONTH ? PLUS_MONTHS
                                : PLUS_MILLIS, List.of(ts, interval, sign));
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
                // any other: Calcite's function of milliseconds, its timestamp result in microseconds
                List<RexNode> millis = new ArrayList<>();
                for (RexNode o : operands) {
                    millis.add(isTimestamp(o.getType()) ? rex.makeCall(o.getType(), TO_MILLIS, List.of(o)) : o);
                }
                RexNode c = call.clone(call.getType(), millis);
                return isTimestamp(call.getType()) ? rex.makeCall(call.getType(), TO_MICROS, List.of(c)) : c;
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

    /** A timestamp plus ({@code sign} 1) or minus (-1) a day-time interval (Calcite's milliseconds). */
    @Strict
    public static long pg_ts_plus_millis(long micros, long millis, int sign) {
        return Math.addExact(micros, Math.multiplyExact(millis * sign, MICROS_PER_MILLI));
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

    private static long fromLocal(LocalDateTime t) {
        return Math.addExact(Math.multiplyExact(t.toEpochSecond(ZoneOffset.UTC), 1_000_000L), t.getNano() / 1000);
    }
}
