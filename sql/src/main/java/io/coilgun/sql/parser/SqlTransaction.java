package io.coilgun.sql.parser;

import java.util.List;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.SqlSpecialOperator;
import org.apache.calcite.sql.SqlWriter;
import org.apache.calcite.sql.parser.SqlParserPos;

/**
 * {@code BEGIN}, {@code COMMIT} or {@code ROLLBACK} (and their synonyms; transaction modes are ignored), or a savepoint
 * statement: {@code SAVEPOINT}, {@code RELEASE} or {@code ROLLBACK TO} with the savepoint's name.
 */
public final class SqlTransaction extends SqlCall {
    public static final SqlOperator OPERATOR = new SqlSpecialOperator("TRANSACTION", SqlKind.OTHER);

    /** What the statement does to the (no-op) transaction block. */
    public enum Kind { BEGIN, COMMIT, ROLLBACK, SAVEPOINT, RELEASE, ROLLBACK_TO }

    private final Kind kind;
    private final String savepoint;

    public SqlTransaction(SqlParserPos pos, Kind kind, String savepoint) {
        super(pos);
        this.kind = kind;
        this.savepoint = savepoint;
    }

    public Kind kind() {
        return kind;
    }

    /** The savepoint a SAVEPOINT, RELEASE or ROLLBACK TO names; null for the others. */
    public String savepoint() {
        return savepoint;
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
        writer.keyword(kind == Kind.ROLLBACK_TO ? "ROLLBACK TO" : kind.name());
        if (savepoint != null) {
            writer.identifier(savepoint, true);
        }
    }
}
