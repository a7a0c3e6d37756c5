package io.coilgun.sql.query;

import io.coilgun.planner.error.CoilgunException;
import io.coilgun.planner.error.SqlState;
import io.coilgun.sql.compile.ValueConverter;
import io.coilgun.sql.parser.PgPower;
import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.List;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexShuttle;
import org.apache.calcite.schema.impl.ScalarFunctionImpl;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.sql.type.OperandTypes;
import org.apache.calcite.sql.type.ReturnTypes;
import org.apache.calcite.sql.type.SqlReturnTypeInference;
import org.apache.calcite.sql.type.SqlTypeFamily;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.sql.type.SqlTypeTransforms;
import org.apache.calcite.sql.validate.SqlUserDefinedFunction;
import org.apache.calcite.sql2rel.SqlRexContext;
import org.apache.calcite.sql2rel.SqlRexConvertlet;
import org.apache.calcite.sql2rel.SqlRexConvertletTable;
import org.apache.calcite.sql2rel.StandardConvertletTable;

/**
 * Casts and numeric division as Postgres computes them where Calcite's differ: to text, a boolean is {@code true} /
 * {@code false} (Calcite: TRUE), a timestamp keeps its fraction of a second, trailing zeros dropped (Calcite: whole
 * seconds); to the unconstrained numeric ({@link PgTypeSystem}), a value keeps its own scale, and a numeric quotient
 * has Postgres' scale ({@link PgNumeric}); {@code ^} is a power ({@link PgPower}); {@code round}, {@code acosh} and
 * {@code atanh} of a double precision are Postgres' ({@link PgMath}). Every other conversion is
 * Calcite's own.
 */
public final class PgConvertlets implements SqlRexConvertletTable {
    static final PgConvertlets INSTANCE = new PgConvertlets();

    private static final SqlOperator BOOLEAN_TEXT = function(PgConvertlets.class, "pg_boolean_text",
            ReturnTypes.explicit(SqlTypeName.VARCHAR));
    static final SqlOperator TIMESTAMP_TEXT = function(PgConvertlets.class, "pg_timestamp_text",
            ReturnTypes.explicit(SqlTypeName.VARCHAR));
    private static final SqlOperator NUMERIC = function(PgNumeric.class, "pg_numeric",
            ReturnTypes.explicit(SqlTypeName.DECIMAL));
    private static final SqlOperator NUMERIC_DIVIDE = function(PgNumeric.class, "pg_numeric_divide",
            ReturnTypes.explicit(SqlTypeName.DECIMAL));
    private static final SqlOperator NUMERIC_POWER = function(PgNumeric.class, "pg_numeric_power",
            ReturnTypes.explicit(SqlTypeName.DECIMAL));

    private static final SqlOperator USER = function(PgFunctions.class, "pgcuruser",
            ReturnTypes.explicit(SqlTypeName.VARCHAR));

    private PgConvertlets() {
    }

    /** A function of {@code owner}'s public static method {@code name}, typed by {@code type} (nullable). */
    static SqlOperator function(Class<?> owner, String name, SqlReturnTypeInference type) {
        Method method = Arrays.stream(owner.getMethods())
                .filter(m -> m.getName().equals(name)).findFirst().orElseThrow();
        return new SqlUserDefinedFunction(new SqlIdentifier(name, SqlParserPos.ZERO),
                type.andThen(SqlTypeTransforms.TO_NULLABLE), null, OperandTypes.ANY, List.of(),
                ScalarFunctionImpl.create(method));
    }

    @Override
    public SqlRexConvertlet get(SqlCall call) {
        if (call.getOperator() == NumericSums.ARGUMENT) {
            return NumericSums.CONVERTLET;
        }
        if (call.getOperator() == SqlStdOperatorTable.USER || call.getOperator() == SqlStdOperatorTable.CURRENT_ROLE) {
            // Calcite's are a fixed "sa" and ""; Postgres' are the session's user
            return (cx, c) -> cx.getRexBuilder().makeCall(cx.getValidator().getValidatedNodeType(c), USER, List.of());
        }
        SqlRexConvertlet math = PgMath.convertlet(call);
        if (math != null) {
            return math;
        }
        SqlRexConvertlet datetime = PgDatetimeOperators.convertlet(call);
        if (datetime != null) {
            return datetime;
        }
        SqlRexConvertlet standard = StandardConvertletTable.INSTANCE.get(call);
        if (call.getOperator() == PgPower.INSTANCE) {
            return (cx, c) -> {
                RexBuilder rex = cx.getRexBuilder();
                RexNode base = cx.convertExpression(c.operand(0));
                RexNode exponent = cx.convertExpression(c.operand(1));
                RelDataType type = cx.getValidator().getValidatedNodeType(c);
                if (type.getSqlTypeName() == SqlTypeName.DECIMAL) {
                    return rex.makeCall(type, NUMERIC_POWER, List.of(numeric(rex, base), numeric(rex, exponent)));
                }
                return rex.makeCall(type, SqlStdOperatorTable.POWER, List.of(base, exponent));
            };
        }
        if (call.getKind() == SqlKind.DIVIDE) {
            return (cx, c) -> {
                RexNode quotient = standard.convertCall(cx, c);
                if (quotient instanceof RexCall q && q.getKind() == SqlKind.DIVIDE
                        && q.getType().getSqlTypeName() == SqlTypeName.DECIMAL) {
                    RexBuilder rex = cx.getRexBuilder();
                    return rex.makeCall(q.getType(), NUMERIC_DIVIDE,
                            List.of(numeric(rex, q.operands.get(0)), numeric(rex, q.operands.get(1))));
                }
                return quotient;
            };
        }
        if (call.getKind() != SqlKind.CAST) {
            return standard;
        }
        return (cx, c) -> {
            RelDataType target = cx.getValidator().getValidatedNodeType(c);
            if (PgTypeSystem.isUnconstrainedNumeric(target)) {
                RexNode operand = cx.convertExpression(c.operand(0));
                return cx.getRexBuilder().makeCall(target, NUMERIC, List.of(operand));
            }
            if (target.getSqlTypeName() == SqlTypeName.DECIMAL
                    && target.getPrecision() > PgTypeSystem.NUMERIC_MAX_TYPMOD_PRECISION) {
                throw new CoilgunException(SqlState.INVALID_PARAMETER_VALUE, "NUMERIC precision "
                        + target.getPrecision() + " must be between 1 and "
                        + PgTypeSystem.NUMERIC_MAX_TYPMOD_PRECISION, 0);
            }
            if (target.getSqlTypeName() == SqlTypeName.TIMESTAMP) {
                RexNode operand = cx.convertExpression(c.operand(0));
                SqlTypeName from = operand.getType().getSqlTypeName();
                if (from == SqlTypeName.VARCHAR || from == SqlTypeName.CHAR) {
                    return EngineTimestamps.parse(cx.getRexBuilder(), target, operand); // to the microsecond
                }
            }
            if (target.getSqlTypeName() == SqlTypeName.VARCHAR || target.getSqlTypeName() == SqlTypeName.CHAR) {
                RexNode operand = cx.convertExpression(c.operand(0));
                SqlTypeName from = operand.getType().getSqlTypeName();
                RexBuilder rex = cx.getRexBuilder();
                if (from == SqlTypeName.BOOLEAN) {
                    return rex.makeCast(target, rex.makeCall(BOOLEAN_TEXT, operand));
                }
                if (from == SqlTypeName.TIMESTAMP) {
                    return rex.makeCast(target, rex.makeCall(TIMESTAMP_TEXT, operand));
                }
                if (from.getFamily() == SqlTypeFamily.INTERVAL_DAY_TIME) {
                    return rex.makeCast(target, rex.makeCall(EngineTimestamps.INTERVAL_TEXT, operand,
                            rex.makeLiteral(EngineTimestamps.withDays(operand.getType()))));
                }
                if (from.getFamily() == SqlTypeFamily.INTERVAL_YEAR_MONTH) {
                    return rex.makeCast(target, rex.makeCall(EngineTimestamps.MONTHS_TEXT, operand));
                }
            }
            return standard.convertCall(cx, c);
        };
    }

    /**
     * What {@link #get} does for the expressions the planner's rules make: a cast to the unconstrained numeric keeps
     * the value's scale, a numeric quotient has Postgres' scale.
     */
    static RexShuttle rewriter(RexBuilder rex) {
        return new RexShuttle() {
            @Override
            public RexNode visitCall(RexCall call) {
                RexCall c = (RexCall) super.visitCall(call);
                if (c.getKind() == SqlKind.CAST && PgTypeSystem.isUnconstrainedNumeric(c.getType())) {
                    return rex.makeCall(c.getType(), NUMERIC, c.getOperands());
                }
                if (c.getKind() == SqlKind.DIVIDE && c.getType().getSqlTypeName() == SqlTypeName.DECIMAL) {
                    return rex.makeCall(c.getType(), NUMERIC_DIVIDE,
                            List.of(numeric(rex, c.operands.get(0)), numeric(rex, c.operands.get(1))));
                }
                return c;
            }
        };
    }

    /** An exact number as the unconstrained numeric, without a cast (a cast would round to the type's scale). */
    private static RexNode numeric(RexBuilder rex, RexNode operand) {
        if (operand.getType().getSqlTypeName() == SqlTypeName.DECIMAL) {
            return operand;
        }
        RelDataType type = rex.getTypeFactory().createTypeWithNullability(
                rex.getTypeFactory().createSqlType(SqlTypeName.DECIMAL), operand.getType().isNullable());
        return rex.makeCall(type, NUMERIC, List.of(operand));
    }

    /** A boolean as Postgres' text. */
    public static String pg_boolean_text(Boolean b) {
        return b == null ? null : b ? "true" : "false";
    }

    /** A timestamp (Calcite's milliseconds) as Postgres' text: {@code 2026-01-02 10:00:00.5}. */
    public static String pg_timestamp_text(Long millis) {
        return millis == null ? null : ValueConverter.formatMicros(millis * 1000L);
    }
}
