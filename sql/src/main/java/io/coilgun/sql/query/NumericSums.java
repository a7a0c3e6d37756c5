package io.coilgun.sql.query;

import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlFunction;
import org.apache.calcite.sql.SqlFunctionCategory;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.type.OperandTypes;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.sql.util.SqlBasicVisitor;
import org.apache.calcite.sql.validate.SqlValidator;
import org.apache.calcite.sql.validate.SqlValidatorScope;
import org.apache.calcite.sql2rel.SqlRexConvertlet;

/**
 * {@code sum} of a {@code bigint} is a numeric, as in Postgres. Calcite's engine sums longs only into a long, and
 * its rules make sums of counts of their own (which must stay bigints), so the type system keeps {@code sum(bigint)}
 * a bigint, and each {@code SUM} a user writes gets its argument through {@link #ARGUMENT} in the parsed statement,
 * in place, before it is validated: a bigint becomes a {@code numeric(19, 0)}, anything else stays as it is.
 */
final class NumericSums {
    /** Its operand, a bigint cast to {@code numeric(19, 0)}; only in SUM's argument, never computed by itself. */
    static final SqlFunction ARGUMENT = new SqlFunction("pg_sum_argument", SqlKind.OTHER_FUNCTION,
            binding -> argumentType(binding.getTypeFactory(), binding.getOperandType(0)), null, OperandTypes.ANY,
            SqlFunctionCategory.SYSTEM) {
        /** Typed as itself: Calcite's default would look the function up by its name. */
        @Override
        public RelDataType deriveType(SqlValidator validator, SqlValidatorScope scope, SqlCall call) {
            validator.deriveType(scope, call.operand(0));
            return validateOperands(validator, scope, call);
        }

        @Override
        public void unparse(org.apache.calcite.sql.SqlWriter writer, SqlCall call, int leftPrec, int rightPrec) {
            call.operand(0).unparse(writer, leftPrec, rightPrec); // EXPLAIN and error texts show the user's SQL
        }
    };

    /** What {@link #ARGUMENT} becomes in relational expressions: its operand, or the cast. */
    static final SqlRexConvertlet CONVERTLET = (cx, call) -> {
        RexNode operand = cx.convertExpression(call.operand(0));
        RexBuilder rex = cx.getRexBuilder();
        RelDataType type = argumentType(rex.getTypeFactory(), operand.getType());
        return type == operand.getType() ? operand : rex.makeCast(type, operand);
    };

    private NumericSums() {
    }

    /** Gives every SUM of {@code statement} its argument through {@link #ARGUMENT}. */
    static void wrap(SqlNode statement) {
        statement.accept(new SqlBasicVisitor<Void>() {
            @Override
            public Void visit(SqlCall call) {
                super.visit(call);
                // before validation SUM is a function known by its name only (unresolved)
                if (call.getOperator() instanceof SqlFunction f && f.getName().equalsIgnoreCase("SUM")
                        && call.operandCount() == 1 && call.getFunctionQuantifier() == null) {
                    SqlNode argument = call.operand(0);
                    call.setOperand(0, ARGUMENT.createCall(argument.getParserPosition(), argument));
                }
                return null;
            }
        });
    }

    private static RelDataType argumentType(RelDataTypeFactory types, RelDataType operand) {
        if (operand.getSqlTypeName() != SqlTypeName.BIGINT) {
            return operand;
        }
        return types.createTypeWithNullability(types.createSqlType(SqlTypeName.DECIMAL, 19, 0), operand.isNullable());
    }
}
