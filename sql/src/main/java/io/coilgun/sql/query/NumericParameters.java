package io.coilgun.sql.query;

import java.util.List;
import org.apache.calcite.sql.SqlBasicTypeNameSpec;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlDataTypeSpec;
import org.apache.calcite.sql.SqlDynamicParam;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNodeList;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.sql.util.SqlBasicVisitor;

/**
 * A parameter the client sent as a numeric is a numeric in the query, as in Postgres, whatever Calcite would infer
 * from its place ({@code $1 / 3} with 12.5 is a numeric division, not an integer one): its marker is cast to the
 * unconstrained numeric in the parsed statement, in place, before it is validated.
 */
final class NumericParameters {
    private NumericParameters() {
    }

    /** @param numeric by the ordinal of each {@code ?} in the text: whether its value is a numeric */
    static void cast(SqlNode statement, boolean[] numeric) {
        if (numeric.length == 0) {
            return;
        }
        statement.accept(new SqlBasicVisitor<Void>() {
            @Override
            public Void visit(SqlCall call) {
                super.visit(call); // first: the casts made below are not visited again
                List<SqlNode> operands = call.getOperandList();
                for (int i = 0; i < operands.size(); i++) {
                    SqlNode cast = castIfNumeric(operands.get(i), numeric);
                    if (cast != null) {
                        call.setOperand(i, cast);
                    }
                }
                return null;
            }

            @Override
            public Void visit(SqlNodeList list) {
                super.visit(list);
                for (int i = 0; i < list.size(); i++) {
                    SqlNode cast = castIfNumeric(list.get(i), numeric);
                    if (cast != null) {
                        list.set(i, cast);
                    }
                }
                return null;
            }
        });
    }

    private static SqlNode castIfNumeric(SqlNode node, boolean[] numeric) {
        if (node instanceof SqlDynamicParam p && p.getIndex() < numeric.length && numeric[p.getIndex()]) {
            return SqlStdOperatorTable.CAST.createCall(p.getParserPosition(), p,
                    new SqlDataTypeSpec(new SqlBasicTypeNameSpec(SqlTypeName.DECIMAL, p.getParserPosition()),
                            p.getParserPosition()));
        }
        return null;
    }
}
