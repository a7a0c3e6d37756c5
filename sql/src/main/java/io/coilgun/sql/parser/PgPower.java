package io.coilgun.sql.parser;

import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.sql.SqlBinaryOperator;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.type.OperandTypes;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.sql.type.SqlTypeUtil;
import org.apache.calcite.sql.validate.SqlValidator;
import org.apache.calcite.sql.validate.SqlValidatorScope;

/**
 * Postgres' {@code ^}: exponentiation ({@code 2 ^ 3} is 8; Calcite's own {@code ^} is a bitwise exclusive or), left
 * associative and binding tighter than {@code *} ({@code 2 * 3 ^ 2} is 18) but looser than a sign ({@code -2 ^ 2} is
 * 4). A numeric operand makes it a numeric power unless the other is a float; any other a double precision one, as in
 * Postgres. The query engine computes it; the grammar's {@code PgCaret} reads it.
 */
public final class PgPower extends SqlBinaryOperator {
    public static final PgPower INSTANCE = new PgPower();

    private PgPower() {
        super("^", SqlKind.OTHER_FUNCTION, 70, true, binding -> type(binding.getTypeFactory(),
                binding.getOperandType(0), binding.getOperandType(1)), null, OperandTypes.NUMERIC_NUMERIC);
    }

    /** Typed as itself: Calcite's default would look the operator up by its name and find its own {@code ^}. */
    @Override
    public RelDataType deriveType(SqlValidator validator, SqlValidatorScope scope, SqlCall call) {
        for (SqlNode operand : call.getOperandList()) {
            validator.deriveType(scope, operand);
        }
        return validateOperands(validator, scope, call);
    }

    private static RelDataType type(RelDataTypeFactory factory, RelDataType base, RelDataType exponent) {
        // a float operand makes it a double precision power (Postgres prefers float8 over numeric), else a numeric one
        SqlTypeName name = (SqlTypeUtil.isDecimal(base) || SqlTypeUtil.isDecimal(exponent))
                && !SqlTypeUtil.isApproximateNumeric(base) && !SqlTypeUtil.isApproximateNumeric(exponent)
                ? SqlTypeName.DECIMAL : SqlTypeName.DOUBLE;
        return factory.createTypeWithNullability(factory.createSqlType(name),
                base.isNullable() || exponent.isNullable());
    }
}
