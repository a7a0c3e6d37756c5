package io.coilgun.sql.parser;

import java.util.List;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlLiteral;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNodeList;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.SqlSpecialOperator;
import org.apache.calcite.sql.SqlWriter;
import org.apache.calcite.sql.parser.SqlParserPos;

/**
 * {@code ALTER STREAM name ADD [COLUMN] column type} (schema evolution, one new column at the end) or
 * {@code ALTER STREAM name SET (options)} (the options that may change).
 */
public final class SqlAlterStream extends SqlCall {
    public static final SqlOperator OPERATOR = new SqlSpecialOperator("ALTER STREAM", SqlKind.OTHER_DDL) {
        @Override
        public SqlCall createCall(SqlLiteral functionQualifier, SqlParserPos pos, SqlNode... operands) {
            return operands[1] instanceof SqlNodeList options ? new SqlAlterStream(pos, (SqlIdentifier) operands[0], options)
                    : new SqlAlterStream(pos, (SqlIdentifier) operands[0], (SqlStreamColumn) operands[1]);
        }
    };

    private final SqlIdentifier name;
    private final SqlStreamColumn column;
    private final SqlNodeList options;

    public SqlAlterStream(SqlParserPos pos, SqlIdentifier name, SqlStreamColumn column) {
        super(pos);
        this.name = name;
        this.column = column;
        this.options = null;
    }

    public SqlAlterStream(SqlParserPos pos, SqlIdentifier name, SqlNodeList options) {
        super(pos);
        this.name = name;
        this.column = null;
        this.options = options;
    }

    /** The options of {@code SET (…)} ({@link SqlOption}s), or null for ADD COLUMN. */
    public SqlNodeList options() {
        return options;
    }

    public SqlIdentifier name() {
        return name;
    }

    /** The new column of ADD COLUMN, or null for SET. */
    public SqlStreamColumn column() {
        return column;
    }

    @Override
    public SqlOperator getOperator() {
        return OPERATOR;
    }

    @Override
    public List<SqlNode> getOperandList() {
        return List.of(name, column != null ? column : options);
    }

    @Override
    public void unparse(SqlWriter writer, int leftPrec, int rightPrec) {
        writer.keyword("ALTER STREAM");
        name.unparse(writer, 0, 0);
        if (column != null) {
            writer.keyword("ADD COLUMN");
            column.unparse(writer, 0, 0);
        } else {
            writer.keyword("SET");
            options.unparse(writer, 0, 0);
        }
    }
}
