package io.coilgun.sql.parser;

import java.util.List;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlInsert;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlLiteral;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.SqlSpecialOperator;
import org.apache.calcite.sql.SqlWriter;
import org.apache.calcite.sql.parser.SqlParserPos;

/**
 * {@code INSERT ... RETURNING *}: wraps Calcite's {@link SqlInsert}. Only {@code RETURNING *} exists;
 * any other RETURNING list is rejected by the parser with FEATURE_NOT_SUPPORTED (0A000). An INSERT
 * without RETURNING is a plain {@link SqlInsert}.
 */
public final class SqlInsertReturning extends SqlCall {
    public static final SqlOperator OPERATOR = new SqlSpecialOperator("INSERT RETURNING", SqlKind.OTHER) {
        @Override
        public SqlCall createCall(SqlLiteral functionQualifier, SqlParserPos pos, SqlNode... operands) {
            return new SqlInsertReturning(pos, (SqlInsert) operands[0]);
        }
    };

    private final SqlInsert insert;

    public SqlInsertReturning(SqlParserPos pos, SqlInsert insert) {
        super(pos);
        this.insert = insert;
    }

    public SqlInsert insert() {
        return insert;
    }

    @Override
    public SqlOperator getOperator() {
        return OPERATOR;
    }

    @Override
    public List<SqlNode> getOperandList() {
        return List.of(insert);
    }

    @Override
    public void unparse(SqlWriter writer, int leftPrec, int rightPrec) {
        insert.unparse(writer, leftPrec, rightPrec);
        writer.newlineAndIndent();
        writer.keyword("RETURNING");
        writer.print("*");
    }
}
