package io.coilgun.sql.query;

import io.coilgun.planner.error.CoilgunException;
import io.coilgun.planner.error.SqlState;
import java.util.List;
import org.apache.calcite.linq4j.function.Strict;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.fun.SqlLibraryOperators;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.sql.type.ReturnTypes;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.sql2rel.SqlRexConvertlet;

/**
 * Double precision functions as Postgres computes them where Calcite's differ: {@code round(x)} rounds half to even
 * ({@code rint}: {@code round(2.5::float8)} is 2; Calcite rounds half away from zero), and {@code acosh}/{@code atanh}
 * of an argument out of their domain is Postgres' {@code 22003} "input is out of range" (Calcite throws an
 * IllegalArgumentException, an internal error), {@code atanh(1)} infinity.
 */
public final class PgMath {
    private static final SqlOperator ROUND = PgConvertlets.function(PgMath.class, "pg_round_double", ReturnTypes.ARG0);
    private static final SqlOperator ACOSH = PgConvertlets.function(PgMath.class, "pg_acosh", ReturnTypes.ARG0);
    private static final SqlOperator ATANH = PgConvertlets.function(PgMath.class, "pg_atanh", ReturnTypes.ARG0);

    private PgMath() {
    }

    /** The conversion of {@code call} when it is one of the functions above, else null. */
    static SqlRexConvertlet convertlet(SqlCall call) {
        SqlOperator op = call.getOperator();
        SqlOperator own = op == SqlStdOperatorTable.ROUND && call.operandCount() == 1 ? ROUND
                : op == SqlLibraryOperators.ACOSH ? ACOSH : op == SqlLibraryOperators.ATANH ? ATANH : null;
        if (own == null) {
            return null;
        }
        return (cx, c) -> {
            RelDataType operand = cx.getValidator().getValidatedNodeType(c.operand(0));
            if (own == ROUND && operand.getSqlTypeName() != SqlTypeName.DOUBLE
                    && operand.getSqlTypeName() != SqlTypeName.FLOAT) {
                return org.apache.calcite.sql2rel.StandardConvertletTable.INSTANCE.convertCall(cx, c);
            }
            return cx.getRexBuilder().makeCall(cx.getValidator().getValidatedNodeType(c), own,
                    List.of(cx.convertExpression(c.operand(0))));
        };
    }

    @Strict
    public static double pg_round_double(double x) {
        return Math.rint(x);
    }

    @Strict
    public static double pg_acosh(double x) {
        if (x < 1) {
            throw outOfRange();
        }
        return Math.log(Math.sqrt(x * x - 1.0d) + x); // Calcite's formula: the same digits as before
    }

    @Strict
    public static double pg_atanh(double x) {
        if (Math.abs(x) > 1) {
            throw outOfRange();
        }
        return x == 1 ? Double.POSITIVE_INFINITY : x == -1 ? Double.NEGATIVE_INFINITY
                : 0.5 * Math.log((1.0d + x) / (1.0d - x)); // Calcite's formula
    }

    private static CoilgunException outOfRange() {
        return new CoilgunException(SqlState.NUMERIC_VALUE_OUT_OF_RANGE, "input is out of range", 0);
    }
}
