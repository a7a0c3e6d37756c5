package io.coilgun.sql.parser;

import java.util.List;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.SqlSpecialOperator;
import org.apache.calcite.sql.SqlWriter;
import org.apache.calcite.sql.parser.SqlParserPos;

/** {@code BEGIN}, {@code COMMIT} or {@code ROLLBACK} (and their synonyms; transaction modes are ignored). */
public final class SqlTransaction extends SqlCall {
    public static final SqlOperator OPERATOR = new SqlSpecialOperator("TRANSACTION", SqlKind.OTHER);

    /** What the statement does to the (no-op) transaction block. */
    public enum Kind { BEGIN, COMMIT, ROLLBACK }

    private final Kind kind;

    public SqlTransaction(SqlParserPos pos, Kind kind) {
        super(pos);
        this.kind = kind;
    }

    public Kind kind() {
        return kind;
    }

    @Override
    public SqlOperator getOperator() {
        return OPERATOR;
    }

    @Override
    public List<SqlNode> getOperandList() {
        return List.of();
    }

    @Override
    public void unparse(SqlWriter writer, int leftPrec, int rightPrec) {
        writer.keyword(kind.name());
    }
}
