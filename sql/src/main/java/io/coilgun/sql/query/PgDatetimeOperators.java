package io.coilgun.sql.query;

import io.coilgun.sql.query.DatetimeFields.Field;
import java.math.BigDecimal;
import java.util.List;
import java.util.Set;
import org.apache.calcite.avatica.util.TimeUnitRange;
import org.apache.calcite.linq4j.function.Strict;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.sql.SqlBasicCall;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlFunction;
import org.apache.calcite.sql.SqlFunctionCategory;
import org.apache.calcite.sql.SqlIntervalLiteral;
import org.apache.calcite.sql.SqlIntervalQualifier;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlLiteral;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNodeList;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.SqlOperatorBinding;
import org.apache.calcite.sql.SqlWindow;
import org.apache.calcite.sql.SqlWriter;
import org.apache.calcite.sql.SqlUnresolvedFunction;
import org.apache.calcite.sql.fun.SqlExtractFunction;
import org.apache.calcite.sql.fun.SqlLibraryOperators;
import org.apache.calcite.sql.fun.SqlMonotonicBinaryOperator;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.sql.parser.SqlParserUtil;
import org.apache.calcite.sql.type.InferTypes;
import org.apache.calcite.sql.type.OperandTypes;
import org.apache.calcite.sql.type.ReturnTypes;
import org.apache.calcite.sql.type.SqlTypeFamily;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.sql.util.SqlBasicVisitor;
import org.apache.calcite.sql.validate.SqlValidator;
import org.apache.calcite.sql.validate.SqlValidatorScope;
import org.apache.calcite.sql2rel.SqlRexConvertlet;
import org.apache.calcite.sql2rel.StandardConvertletTable;

/**
 * Postgres' date and time operators where Calcite's differ, put in a parsed query's place of Calcite's before it is
 * validated ({@link #replace}):
 * <ul>
 *   <li>{@code -}: the difference of two timestamps is an interval, of two dates a number of days (Calcite wants
 *   {@code (a - b) DAY TO SECOND});
 *   <li>{@code EXTRACT} is a numeric to the microsecond ({@code EXTRACT(SECOND …)} is {@code 1.000005}; Calcite's a
 *   bigint from milliseconds), with Postgres' fields ({@code DOW} 0 on Sunday; an interval's hours past a day);
 *   <li>an interval literal with microseconds ({@code INTERVAL '0.000005' SECOND}) keeps them (Calcite's stop at
 *   the millisecond).
 * </ul>
 * Each becomes a function over the engine's microseconds ({@link EngineTimestamps}).
 */
public final class PgDatetimeOperators {
    /** {@code -}, also of two timestamps or two dates. */
    static final SqlMonotonicBinaryOperator MINUS = new SqlMonotonicBinaryOperator("-", SqlKind.MINUS, 40, true,
            PgDatetimeOperators::minusType, InferTypes.FIRST_KNOWN, OperandTypes.MINUS_OPERATOR
                    .or(OperandTypes.family(SqlTypeFamily.TIMESTAMP, SqlTypeFamily.TIMESTAMP))
                    .or(OperandTypes.family(SqlTypeFamily.DATE, SqlTypeFamily.DATE))) {
        @Override
        public RelDataType deriveType(SqlValidator validator, SqlValidatorScope scope, SqlCall call) {
            return typedAsItself(this, validator, scope, call);
        }
    };

    /** {@code EXTRACT(field FROM value)}, a numeric. */
    static final SqlExtractFunction EXTRACT = new SqlExtractFunction("EXTRACT", false) {
        @Override
        public RelDataType inferReturnType(SqlOperatorBinding binding) {
            RelDataTypeFactory types = binding.getTypeFactory();
            return types.createTypeWithNullability(types.createSqlType(SqlTypeName.DECIMAL),
                    binding.getOperandType(1).isNullable());
        }

        @Override
        public RelDataType deriveType(SqlValidator validator, SqlValidatorScope scope, SqlCall call) {
            return typedAsItself(this, validator, scope, call);
        }
    };

    /** {@code date_trunc(field, timestamp)} (Calcite's grammar reads it as BigQuery's). */
    static final SqlFunction DATE_TRUNC = new SqlFunction("DATE_TRUNC", SqlKind.OTHER_FUNCTION,
            binding -> timestamp(binding), null, OperandTypes.family(SqlTypeFamily.CHARACTER, SqlTypeFamily.DATETIME),
            SqlFunctionCategory.TIMEDATE) {
        @Override
        public RelDataType deriveType(SqlValidator validator, SqlValidatorScope scope, SqlCall call) {
            return typedAsItself(this, validator, scope, call);
        }
    };

    /** {@code date_part(field, value)}: EXTRACT's value as a double precision. */
    static final SqlFunction DATE_PART = new SqlFunction("DATE_PART", SqlKind.OTHER_FUNCTION,
            ReturnTypes.DOUBLE_NULLABLE, null, OperandTypes.family(SqlTypeFamily.CHARACTER, SqlTypeFamily.ANY),
            SqlFunctionCategory.TIMEDATE) {
        @Override
        public RelDataType deriveType(SqlValidator validator, SqlValidatorScope scope, SqlCall call) {
            return typedAsItself(this, validator, scope, call);
        }
    };

    /** An interval literal's microseconds (operand 0) and its qualifier (operand 1). */
    static final SqlFunction INTERVAL_MICROS = new SqlFunction("pg_interval_micros", SqlKind.OTHER_FUNCTION,
            ReturnTypes.ARG1, null, OperandTypes.ANY_ANY, SqlFunctionCategory.SYSTEM) {
        @Override
        public RelDataType deriveType(SqlValidator validator, SqlValidatorScope scope, SqlCall call) {
            return typedAsItself(this, validator, scope, call);
        }

        @Override
        public void unparse(SqlWriter writer, SqlCall call, int leftPrec, int rightPrec) {
            writer.literal("INTERVAL '" + BigDecimal.valueOf(((SqlLiteral) call.operand(0))
                    .getValueAs(Long.class), 6).toPlainString() + "' SECOND");
        }
    };

    static final SqlOperator TIMESTAMP_MINUS = function("pg_ts_minus", SqlTypeName.BIGINT);
    private static final SqlOperator DATE_MINUS = function("pg_date_minus", SqlTypeName.INTEGER);
    private static final SqlOperator EXTRACT_TIMESTAMP = function("pg_extract_ts", SqlTypeName.DECIMAL);
    private static final SqlOperator EXTRACT_DATE = function("pg_extract_date", SqlTypeName.DECIMAL);
    private static final SqlOperator EXTRACT_TIME = function("pg_extract_time", SqlTypeName.DECIMAL);
    private static final SqlOperator EXTRACT_INTERVAL = function("pg_extract_iv", SqlTypeName.DECIMAL);
    private static final SqlOperator EXTRACT_MONTHS = function("pg_extract_months", SqlTypeName.DECIMAL);
    private static final SqlOperator TRUNCATE = function("pg_date_trunc", SqlTypeName.TIMESTAMP);
    /** The functions above: of the engine's microseconds already. */
    static final Set<SqlOperator> OF_MICROS = Set.of(TIMESTAMP_MINUS, EXTRACT_TIMESTAMP, EXTRACT_INTERVAL, TRUNCATE);

    private PgDatetimeOperators() {
    }

    private static SqlOperator function(String name, SqlTypeName type) {
        return PgConvertlets.function(PgDatetimeOperators.class, name, ReturnTypes.explicit(type));
    }

    /** Typed as itself: Calcite's default would look the operator up by its name and find its own. */
    private static RelDataType typedAsItself(SqlOperator op, SqlValidator validator, SqlValidatorScope scope,
            SqlCall call) {
        for (SqlNode operand : call.getOperandList()) {
            validator.deriveType(scope, operand);
        }
        return op.validateOperands(validator, scope, call);
    }

    private static RelDataType timestamp(SqlOperatorBinding binding) {
        RelDataTypeFactory types = binding.getTypeFactory();
        return types.createTypeWithNullability(types.createSqlType(SqlTypeName.TIMESTAMP, 6),
                binding.getOperandType(0).isNullable() || binding.getOperandType(1).isNullable());
    }

    private static RelDataType minusType(SqlOperatorBinding binding) {
        RelDataType a = binding.getOperandType(0);
        RelDataType b = binding.getOperandType(1);
        RelDataTypeFactory types = binding.getTypeFactory();
        SqlTypeName name = a.getSqlTypeName() == SqlTypeName.TIMESTAMP && b.getSqlTypeName() == SqlTypeName.TIMESTAMP
                ? SqlTypeName.INTERVAL_DAY_SECOND
                : a.getSqlTypeName() == SqlTypeName.DATE && b.getSqlTypeName() == SqlTypeName.DATE
                        ? SqlTypeName.INTEGER : null;
        if (name == null) {
            return SqlStdOperatorTable.MINUS.inferReturnType(binding);
        }
        RelDataType type = name == SqlTypeName.INTEGER ? types.createSqlType(name) : types.createSqlIntervalType(
                new SqlIntervalQualifier(TimeUnitRange.DAY.startUnit, TimeUnitRange.SECOND.startUnit,
                        org.apache.calcite.sql.parser.SqlParserPos.ZERO));
        return types.createTypeWithNullability(type, a.isNullable() || b.isNullable());
    }

    /** Puts Postgres' operators in {@code statement}'s place of Calcite's (see the class comment), in place. */
    static void replace(SqlNode statement) {
        statement.accept(new SqlBasicVisitor<Void>() {
            @Override
            public Void visit(SqlCall call) {
                if (call instanceof SqlWindow) {
                    return null; // a frame's bounds must stay literals
                }
                super.visit(call);
                if (call instanceof SqlBasicCall basic) {
                    if (call.getOperator() == SqlStdOperatorTable.MINUS) {
                        basic.setOperator(MINUS);
                    } else if (call.getOperator() == SqlStdOperatorTable.EXTRACT) {
                        basic.setOperator(EXTRACT);
                    } else if (call.getOperator() == SqlLibraryOperators.DATE_TRUNC && call.operandCount() == 2
                            && !(call.operand(1) instanceof SqlIntervalQualifier)) {
                        basic.setOperator(DATE_TRUNC);
                    } else if (call.getOperator() instanceof SqlUnresolvedFunction f
                            && f.getName().equalsIgnoreCase("date_part") && call.operandCount() == 2) {
                        basic.setOperator(DATE_PART);
                    }
                }
                List<SqlNode> operands = call.getOperandList();
                for (int i = 0; i < operands.size(); i++) {
                    SqlNode micros = micros(operands.get(i));
                    if (micros != null) {
                        call.setOperand(i, micros);
                    }
                }
                return null;
            }

            @Override
            public Void visit(SqlNodeList list) {
                super.visit(list);
                for (int i = 0; i < list.size(); i++) {
                    SqlNode micros = micros(list.get(i));
                    if (micros != null) {
                        list.set(i, micros);
                    }
                }
                return null;
            }
        });
    }

    /** A day-time interval literal with digits past the millisecond as {@link #INTERVAL_MICROS}, else null. */
    private static SqlNode micros(SqlNode node) {
        if (!(node instanceof SqlIntervalLiteral literal)) {
            return null;
        }
        SqlIntervalLiteral.IntervalValue value = literal.getValueAs(SqlIntervalLiteral.IntervalValue.class);
        SqlIntervalQualifier qualifier = value.getIntervalQualifier();
        String text = value.getIntervalLiteral().trim();
        int point = text.lastIndexOf('.');
        if (qualifier.isYearMonth() || point < 0 || text.length() - point - 1 <= 3) {
            return null;
        }
        String fraction = (text.substring(point + 1) + "000000").substring(0, 6);
        long beyondMillis = Long.parseLong(fraction.substring(3));
        long millis = SqlParserUtil.intervalToMillis(text, qualifier);
        boolean negative = (value.getSign() < 0) != text.startsWith("-");
        long micros = Math.addExact(Math.multiplyExact(Math.abs(millis), 1000L), beyondMillis);
        return INTERVAL_MICROS.createCall(literal.getParserPosition(),
                SqlLiteral.createExactNumeric(Long.toString(negative ? -micros : micros), literal.getParserPosition()),
                qualifier);
    }

    /** What this class's operators become in relational expressions, or null for another operator. */
    static SqlRexConvertlet convertlet(SqlCall call) {
        if (call.getOperator() == MINUS) {
            return PgDatetimeOperators::minus;
        }
        if (call.getOperator() == EXTRACT) {
            return (cx, c) -> extract(cx, c, cx.getRexBuilder().makeLiteral(
                    ((SqlIntervalQualifier) c.operand(0)).timeUnitRange.name()));
        }
        if (call.getOperator() == DATE_PART) {
            return (cx, c) -> cx.getRexBuilder().makeCast(cx.getValidator().getValidatedNodeType(c),
                    extract(cx, c, cx.convertExpression(c.operand(0))));
        }
        if (call.getOperator() == DATE_TRUNC) {
            return (cx, c) -> {
                RexBuilder rex = cx.getRexBuilder();
                RelDataType type = cx.getValidator().getValidatedNodeType(c);
                RexNode value = cx.convertExpression(c.operand(1));
                if (value.getType().getSqlTypeName() != SqlTypeName.TIMESTAMP) {
                    value = rex.makeCast(type, value); // a date: its midnight
                }
                return rex.makeCall(type, TRUNCATE, List.of(cx.convertExpression(c.operand(0)), value));
            };
        }
        if (call.getOperator() == INTERVAL_MICROS) {
            return (cx, c) -> {
                RexBuilder rex = cx.getRexBuilder();
                long micros = ((SqlLiteral) c.operand(0)).getValueAs(Long.class);
                return rex.makeCall(cx.getValidator().getValidatedNodeType(c), EngineTimestamps.INTERVAL_LITERAL,
                        List.of(rex.makeBigintLiteral(BigDecimal.valueOf(micros))));
            };
        }
        return null;
    }

    private static RexNode minus(org.apache.calcite.sql2rel.SqlRexContext cx, SqlCall c) {
        RexBuilder rex = cx.getRexBuilder();
        RelDataType type = cx.getValidator().getValidatedNodeType(c);
        RexNode a = cx.convertExpression(c.operand(0));
        RexNode b = cx.convertExpression(c.operand(1));
        SqlTypeName ta = a.getType().getSqlTypeName();
        SqlTypeName tb = b.getType().getSqlTypeName();
        if (ta == SqlTypeName.TIMESTAMP && tb == SqlTypeName.TIMESTAMP) {
            return rex.makeCall(type, TIMESTAMP_MINUS, List.of(a, b));
        }
        if (ta == SqlTypeName.DATE && tb == SqlTypeName.DATE) {
            return rex.makeCall(type, DATE_MINUS, List.of(a, b));
        }
        if (SqlTypeFamily.DATETIME.contains(a.getType())) {
            return rex.makeCall(type, SqlStdOperatorTable.MINUS_DATE, List.of(a, b)); // as Calcite's own
        }
        SqlCall calcites = SqlStdOperatorTable.MINUS.createCall(c.getParserPosition(), c.getOperandList());
        return StandardConvertletTable.INSTANCE.convertCall(cx, calcites);
    }

    /** {@code EXTRACT(field FROM value)} as a numeric: {@code c}'s operand 1 is the value. */
    private static RexNode extract(org.apache.calcite.sql2rel.SqlRexContext cx, SqlCall c, RexNode field) {
        RexBuilder rex = cx.getRexBuilder();
        RelDataType value0 = cx.getValidator().getValidatedNodeType(c.operand(1));
        RelDataType type = rex.getTypeFactory().createTypeWithNullability(
                rex.getTypeFactory().createSqlType(SqlTypeName.DECIMAL), value0.isNullable() || field.getType().isNullable());
        RexNode value = cx.convertExpression(c.operand(1));
        SqlTypeName t = value.getType().getSqlTypeName();
        if (t == SqlTypeName.TIMESTAMP) {
            return rex.makeCall(type, EXTRACT_TIMESTAMP, List.of(field, value));
        }
        if (t == SqlTypeName.DATE) {
            return rex.makeCall(type, EXTRACT_DATE, List.of(field, value));
        }
        if (t == SqlTypeName.TIME) {
            return rex.makeCall(type, EXTRACT_TIME, List.of(field, value));
        }
        if (t.getFamily() == SqlTypeFamily.INTERVAL_YEAR_MONTH) {
            return rex.makeCall(type, EXTRACT_MONTHS, List.of(field, value));
        }
        return rex.makeCall(type, EXTRACT_INTERVAL,
                List.of(field, value, rex.makeLiteral(EngineTimestamps.withDays(value.getType()))));
    }

    // ---- the functions, over the engine's values (see EngineTimestamps) ----

    /** The difference of two timestamps, an interval of microseconds. */
    @Strict
    public static long pg_ts_minus(long a, long b) {
        return Math.subtractExact(a, b);
    }

    /** The difference of two dates, in days. */
    @Strict
    public static int pg_date_minus(int a, int b) {
        return Math.subtractExact(a, b);
    }

    @Strict
    public static BigDecimal pg_extract_ts(String field, long micros) {
        return DatetimeFields.ofTimestamp(DatetimeFields.field(field, "timestamp without time zone"), micros);
    }

    @Strict
    public static BigDecimal pg_extract_date(String field, int days) {
        return DatetimeFields.ofDate(DatetimeFields.field(field, "date"), days);
    }

    /** Of a time of day (Calcite's milliseconds). */
    @Strict
    public static BigDecimal pg_extract_time(String field, int millis) {
        Field f = DatetimeFields.field(field, "time without time zone");
        if (f.compareTo(Field.HOUR) > 0 && f != Field.EPOCH) {
            return DatetimeFields.ofDate(f, 0); // its error
        }
        return DatetimeFields.ofTimestamp(f, millis * 1000L);
    }

    @Strict
    public static BigDecimal pg_extract_iv(String field, long micros, boolean withDays) {
        return DatetimeFields.ofInterval(DatetimeFields.field(field, "interval"), micros, withDays);
    }

    @Strict
    public static BigDecimal pg_extract_months(String field, int months) {
        return DatetimeFields.ofMonths(DatetimeFields.field(field, "interval"), months);
    }

    /** {@code date_trunc(field, timestamp)}. */
    @Strict
    public static long pg_date_trunc(String field, long micros) {
        return DatetimeFields.truncate(DatetimeFields.field(field, "timestamp without time zone"), micros);
    }
}
