package io.coilgun.sql.query;

import io.coilgun.planner.error.CoilgunException;
import io.coilgun.planner.error.SqlState;
import java.util.List;
import java.util.Map;
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
 * ({@code rint}: {@code round(2.5::float8)} is 2; Calcite rounds half away from zero); {@code acosh}/{@code atanh}
 * of an argument out of their domain is Postgres' {@code 22003} "input is out of range" (Calcite throws an
 * IllegalArgumentException, an internal error), {@code atanh} the C library's ({@code atanh(1)} infinity); the degree functions ({@code sind},
 * {@code cosd}, {@code tand}, {@code asind}, {@code acosd}, {@code atand}) are Postgres' (float.c), exact at 30, 45, 60
 * and 90 degrees ({@code asind(0.5)} is 30, Calcite's {@code 30.000000000000004}); {@code log10} is the C library's
 * (Calcite divides two logarithms: a last digit off), 2201E for zero or a negative number.
 */
public final class PgMath {
    private static final SqlOperator ROUND = PgConvertlets.function(PgMath.class, "pg_round_double", ReturnTypes.ARG0);
    private static final SqlOperator ACOSH = PgConvertlets.function(PgMath.class, "pg_acosh", ReturnTypes.ARG0);
    private static final SqlOperator ATANH = PgConvertlets.function(PgMath.class, "pg_atanh", ReturnTypes.ARG0);
    private static final Map<SqlOperator, SqlOperator> OF_DOUBLE = Map.of(
            SqlLibraryOperators.ACOSH, ACOSH, SqlLibraryOperators.ATANH, ATANH,
            SqlLibraryOperators.SIND, own("pg_sind"), SqlLibraryOperators.COSD, own("pg_cosd"),
            SqlLibraryOperators.TAND, own("pg_tand"), SqlLibraryOperators.ASIND, own("pg_asind"),
            SqlLibraryOperators.ACOSD, own("pg_acosd"), SqlLibraryOperators.ATAND, own("pg_atand"),
            SqlStdOperatorTable.LOG10, own("pg_log10"));

    private static final double RADIANS_PER_DEGREE = 0.0174532925199432957692;
    private static final double SIN_30 = Math.sin(30.0 * RADIANS_PER_DEGREE);
    private static final double ONE_MINUS_COS_60 = 1.0 - Math.cos(60.0 * RADIANS_PER_DEGREE);
    private static final double ASIN_0_5 = Math.asin(0.5);
    private static final double ACOS_0_5 = Math.acos(0.5);
    private static final double ATAN_1_0 = Math.atan(1.0);
    private static final double TAN_45 = sindQ1(45.0) / cosdQ1(45.0);

    private PgMath() {
    }

    private static SqlOperator own(String name) {
        return PgConvertlets.function(PgMath.class, name, ReturnTypes.ARG0);
    }

    /** The conversion of {@code call} when it is one of the functions above, else null. */
    static SqlRexConvertlet convertlet(SqlCall call) {
        SqlOperator op = call.getOperator();
        SqlOperator own = op == SqlStdOperatorTable.ROUND && call.operandCount() == 1 ? ROUND
                : call.operandCount() == 1 ? OF_DOUBLE.get(op) : null;
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
        if (Math.abs(x) == 1) {
            return Math.copySign(Double.POSITIVE_INFINITY, x);
        }
        // the C library's (e_atanh.c), to its last digit: Calcite's 0.5 * log((1 + x) / (1 - x)) is one off
        double xa = Math.abs(x);
        if (xa < 0x1p-28) {
            return x;
        }
        double t = xa + xa;
        t = xa < 0.5 ? 0.5 * StrictMath.log1p(t + t * xa / (1.0 - xa)) : 0.5 * StrictMath.log1p(t / (1.0 - xa));
        return Math.copySign(t, x);
    }

    @Strict
    public static double pg_log10(double x) {
        if (x == 0) {
            throw new CoilgunException(SqlState.INVALID_ARGUMENT_FOR_LOG, "cannot take logarithm of zero", 0);
        }
        if (x < 0) {
            throw new CoilgunException(SqlState.INVALID_ARGUMENT_FOR_LOG,
                    "cannot take logarithm of a negative number", 0);
        }
        return Math.log10(x);
    }

    // ---- the degree functions as Postgres' float.c computes them: exact at 30, 45, 60 and 90 degrees ----

    @Strict
    public static double pg_sind(double x) {
        if (Double.isNaN(x)) {
            return x;
        }
        if (Double.isInfinite(x)) {
            throw outOfRange();
        }
        double sign = 1.0;
        double a = x % 360.0; // C's fmod
        if (a < 0.0) {
            a = -a;
            sign = -sign;
        }
        if (a > 180.0) {
            a = 360.0 - a;
            sign = -sign;
        }
        if (a > 90.0) {
            a = 180.0 - a;
        }
        return sign * sindQ1(a);
    }

    @Strict
    public static double pg_cosd(double x) {
        if (Double.isNaN(x)) {
            return x;
        }
        if (Double.isInfinite(x)) {
            throw outOfRange();
        }
        double sign = 1.0;
        double a = Math.abs(x % 360.0);
        if (a > 180.0) {
            a = 360.0 - a;
        }
        if (a > 90.0) {
            a = 180.0 - a;
            sign = -sign;
        }
        return sign * cosdQ1(a);
    }

    @Strict
    public static double pg_tand(double x) {
        if (Double.isNaN(x)) {
            return x;
        }
        if (Double.isInfinite(x)) {
            throw outOfRange();
        }
        double sign = 1.0;
        double a = x % 360.0;
        if (a < 0.0) {
            a = -a;
            sign = -sign;
        }
        if (a > 180.0) {
            a = 360.0 - a;
            sign = -sign;
        }
        if (a > 90.0) {
            a = 180.0 - a;
            sign = -sign;
        }
        double result = sign * (sindQ1(a) / cosdQ1(a) / TAN_45);
        return result == 0.0 ? 0.0 : result; // no -0
    }

    @Strict
    public static double pg_asind(double x) {
        if (Double.isNaN(x)) {
            return x;
        }
        if (x < -1.0 || x > 1.0) {
            throw outOfRange();
        }
        return x >= 0.0 ? asindQ1(x) : -asindQ1(-x);
    }

    @Strict
    public static double pg_acosd(double x) {
        if (Double.isNaN(x)) {
            return x;
        }
        if (x < -1.0 || x > 1.0) {
            throw outOfRange();
        }
        return x >= 0.0 ? acosdQ1(x) : 90.0 + asindQ1(-x);
    }

    @Strict
    public static double pg_atand(double x) {
        if (Double.isNaN(x)) {
            return x;
        }
        return Math.atan(x) / ATAN_1_0 * 45.0;
    }

    private static double sind0To30(double x) {
        return Math.sin(x * RADIANS_PER_DEGREE) / SIN_30 * 0.5;
    }

    private static double cosd0To60(double x) {
        return 1.0 - (1.0 - Math.cos(x * RADIANS_PER_DEGREE)) / ONE_MINUS_COS_60 / 2.0;
    }

    private static double sindQ1(double x) {
        return x <= 30.0 ? sind0To30(x) : cosd0To60(90.0 - x);
    }

    private static double cosdQ1(double x) {
        return x <= 60.0 ? cosd0To60(x) : sind0To30(90.0 - x);
    }

    private static double asindQ1(double x) {
        return x <= 0.5 ? Math.asin(x) / ASIN_0_5 * 30.0 : 90.0 - Math.acos(x) / ACOS_0_5 * 60.0;
    }

    private static double acosdQ1(double x) {
        return x <= 0.5 ? 90.0 - Math.asin(x) / ASIN_0_5 * 30.0 : Math.acos(x) / ACOS_0_5 * 60.0;
    }

    private static CoilgunException outOfRange() {
        return new CoilgunException(SqlState.NUMERIC_VALUE_OUT_OF_RANGE, "input is out of range", 0);
    }
}
