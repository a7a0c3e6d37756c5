package io.coilgun.sql.compile;

import io.coilgun.sql.parser.PgSyntax;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.calcite.sql.SqlBasicCall;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlDataTypeSpec;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlOrderBy;
import org.apache.calcite.sql.SqlSelect;
import org.apache.calcite.sql.SqlWith;

/**
 * The names Postgres gives a query's result columns where the select list has no alias: a column reference is named
 * by the column, a function call by the function ({@code version()} is {@code version}), a cast by what it casts
 * (or the type), anything else {@code ?column?}.
 */
final class QueryColumnNames {
    private QueryColumnNames() {
    }

    static List<String> of(SqlNode query) {
        SqlNode q = query;
        while (true) {
            if (q instanceof SqlOrderBy ob) {
                q = ob.query;
            } else if (q instanceof SqlWith w) {
                q = w.body;
            } else if (q instanceof SqlBasicCall call && call.getKind() == SqlKind.UNION
                    || q instanceof SqlBasicCall c2 && (c2.getKind() == SqlKind.INTERSECT || c2.getKind() == SqlKind.EXCEPT)) {
                q = ((SqlCall) q).operand(0);
            } else {
                break;
            }
        }
        List<String> names = new ArrayList<>();
        if (q instanceof SqlSelect select) {
            for (SqlNode item : select.getSelectList()) {
                names.add(name(item));
            }
        }
        return names;
    }

    private static String name(SqlNode item) {
        if (item instanceof SqlIdentifier id) {
            return id.isStar() ? "?column?" : id.names.get(id.names.size() - 1);
        }
        if (item instanceof SqlCall call) {
            if (call.getKind() == SqlKind.AS) {
                return name(call.operand(1));
            }
            if (call.getKind() == SqlKind.CAST) {
                SqlNode value = call.operand(0);
                if (value instanceof SqlIdentifier || value instanceof SqlCall c && c.getKind() != SqlKind.LITERAL
                        && c.getOperator().getName().matches("[A-Za-z_][A-Za-z0-9_]*")) {
                    return name(value);
                }
                SqlDataTypeSpec type = (SqlDataTypeSpec) call.operand(1);
                return org.apache.calcite.util.Util.last(type.getTypeName().names).toLowerCase(Locale.ROOT);
            }
            String op = call.getOperator().getName();
            if (op.matches("[A-Za-z_][A-Za-z0-9_]*")) {
                String context = PgSyntax.contextFunctionColumn(op);
                if (context != null) {
                    return context;
                }
                if (op.startsWith("pg_reg") && call.operandCount() == 1) {
                    return name(call.operand(0)); // a ::regclass cast, see PgCast
                }
                return op.toLowerCase(Locale.ROOT);
            }
        }
        return "?column?";
    }
}
