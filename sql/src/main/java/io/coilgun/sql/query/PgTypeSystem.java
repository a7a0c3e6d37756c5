package io.coilgun.sql.query;

import java.math.RoundingMode;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.rel.type.RelDataTypeSystemImpl;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.sql.type.SqlTypeUtil;

/**
 * Calcite's type system with Postgres' defaults where they differ:
 * <ul>
 *   <li>a {@code timestamp} without a precision keeps its fraction of a second ({@code '… 10:00:00.5'::timestamp}),
 *   to the millisecond that Calcite's engine holds (Postgres: the microsecond);
 *   <li>{@code numeric} without a precision is Postgres' unconstrained numeric: any value up to 131,072 digits
 *   before the point and 16,383 after, each value keeping its own scale. Calcite's DECIMAL always has a precision
 *   and a scale, so the unconstrained type is a DECIMAL of precision {@value #NUMERIC_MAX_PRECISION} and any scale —
 *   a precision no user can write (Postgres allows 1,000), which Calcite's rules keep when they combine it with
 *   another DECIMAL (a CASE's branches) — and {@link PgConvertlets} makes a cast to it keep the value as it is; the
 *   arithmetic of numerics gives it too, as in Postgres ({@code numeric * numeric} is {@code numeric});
 *   <li>{@code sum} and {@code avg} have Postgres' result types ({@code avg(integer)} is a numeric, {@code sum(bigint)}
 *   a numeric);
 *   <li>rounding to a numeric's scale is half away from zero ({@code 2.5::numeric(1,0)} is 3).
 * </ul>
 */
public final class PgTypeSystem extends RelDataTypeSystemImpl {
    public static final PgTypeSystem INSTANCE = new PgTypeSystem();

    /** Postgres' largest precision in a type modifier ({@code numeric(1000, 2)}). */
    public static final int NUMERIC_MAX_TYPMOD_PRECISION = 1000;
    /** Postgres' largest scale of a numeric value (digits after the point). */
    public static final int NUMERIC_MAX_SCALE = 16_383;
    /** Postgres' largest numeric value: 131,072 digits before the point, 16,383 after. */
    public static final int NUMERIC_MAX_PRECISION = 131_072 + NUMERIC_MAX_SCALE;

    private PgTypeSystem() {
    }

    /** Whether {@code type} is the unconstrained numeric (see the class comment). */
    public static boolean isUnconstrainedNumeric(RelDataType type) {
        return type.getSqlTypeName() == SqlTypeName.DECIMAL && type.getPrecision() == NUMERIC_MAX_PRECISION;
    }

    @Override
    public int getDefaultPrecision(SqlTypeName typeName) {
        return switch (typeName) {
            case TIMESTAMP, TIMESTAMP_WITH_LOCAL_TIME_ZONE, TIME -> getMaxPrecision(typeName);
            case DECIMAL -> NUMERIC_MAX_PRECISION;
            default -> super.getDefaultPrecision(typeName);
        };
    }

    @Override
    public int getMaxPrecision(SqlTypeName typeName) {
        return switch (typeName) {
            case DECIMAL -> NUMERIC_MAX_PRECISION;
            case TIMESTAMP -> 6; // microseconds, as Postgres (EngineTimestamps)
            default -> super.getMaxPrecision(typeName);
        };
    }

    @Override
    public int getMaxScale(SqlTypeName typeName) {
        return typeName == SqlTypeName.DECIMAL ? NUMERIC_MAX_SCALE : super.getMaxScale(typeName);
    }

    @Override
    public RoundingMode roundingMode() {
        return RoundingMode.HALF_UP;
    }

    @Override
    public RelDataType deriveDecimalPlusType(RelDataTypeFactory factory, RelDataType type1, RelDataType type2) {
        return numeric(factory, type1, type2);
    }

    @Override
    public RelDataType deriveDecimalMultiplyType(RelDataTypeFactory factory, RelDataType type1, RelDataType type2) {
        return numeric(factory, type1, type2);
    }

    @Override
    public RelDataType deriveDecimalDivideType(RelDataTypeFactory factory, RelDataType type1, RelDataType type2) {
        return numeric(factory, type1, type2);
    }

    @Override
    public RelDataType deriveDecimalModType(RelDataTypeFactory factory, RelDataType type1, RelDataType type2) {
        return numeric(factory, type1, type2);
    }

    /**
     * Postgres' {@code sum}: of smallint or integer a bigint, of numeric a numeric. (Of bigint a bigint here, which
     * the sums of counts Calcite's rules make need; {@link NumericSums} makes a user's {@code sum(bigint)} a sum of
     * numerics, a numeric as in Postgres.)
     */
    @Override
    public RelDataType deriveSumType(RelDataTypeFactory factory, RelDataType argumentType) {
        SqlTypeName sum = switch (argumentType.getSqlTypeName()) {
            case TINYINT, SMALLINT, INTEGER -> SqlTypeName.BIGINT;
            case DECIMAL -> SqlTypeName.DECIMAL;
            default -> null;
        };
        return sum == null ? super.deriveSumType(factory, argumentType)
                : factory.createTypeWithNullability(factory.createSqlType(sum), argumentType.isNullable());
    }

    /** Postgres' {@code avg}: of an exact number a numeric, of a float a double precision. */
    @Override
    public RelDataType deriveAvgAggType(RelDataTypeFactory factory, RelDataType argumentType) {
        SqlTypeName avg = SqlTypeUtil.isExactNumeric(argumentType) ? SqlTypeName.DECIMAL
                : SqlTypeUtil.isApproximateNumeric(argumentType) ? SqlTypeName.DOUBLE : null;
        return avg == null ? super.deriveAvgAggType(factory, argumentType)
                : factory.createTypeWithNullability(factory.createSqlType(avg), argumentType.isNullable());
    }

    /** The arithmetic of two exact numbers, one a numeric, is the unconstrained numeric; null for any other. */
    private static RelDataType numeric(RelDataTypeFactory factory, RelDataType type1, RelDataType type2) {
        if (SqlTypeUtil.isExactNumeric(type1) && SqlTypeUtil.isExactNumeric(type2)
                && (SqlTypeUtil.isDecimal(type1) || SqlTypeUtil.isDecimal(type2))) {
            return factory.createSqlType(SqlTypeName.DECIMAL);
        }
        return null;
    }
}
