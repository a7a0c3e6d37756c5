package io.coilgun.sql.parser;

import java.util.Arrays;
import java.util.List;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlCreate;
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
 * {@code CREATE [OR REPLACE] STREAM [IF NOT EXISTS] name (column type [NOT NULL], ...) [WITH (key = literal, ...)]}.
 * {@link #getReplace()} tells whether OR REPLACE was written.
 */
public final class SqlCreateStream extends SqlCreate {
    public static final SqlOperator OPERATOR = new SqlSpecialOperator("CREATE STREAM", SqlKind.OTHER_DDL) {
        @Override
        public SqlCall createCall(SqlLiteral functionQualifier, SqlParserPos pos, SqlNode... operands) {
            return new SqlCreateStream(pos, ((SqlLiteral) operands[3]).booleanValue(),
                ((SqlLiteral) operands[4]).booleanValue(), (SqlIdentifier) operands[0],
                (SqlNodeList) operands[1], (SqlNodeList) operands[2]);
        }
    };

    private final SqlIdentifier name;
    private final SqlNodeList columns;
    private final SqlNodeList options;

    public SqlCreateStream(SqlParserPos pos, boolean replace, boolean ifNotExists, SqlIdentifier name,
                           SqlNodeList columns, SqlNodeList options) {
        super(OPERATOR, pos, replace, ifNotExists);
        this.name = name;
        this.columns = columns;
        this.options = options;
    }

    public SqlIdentifier name() {
        return name;
    }

    public List<SqlStreamColumn> columns() {
        return Nodes.typed(columns, SqlStreamColumn.class);
    }

    /** The WITH options in written order; empty when there is no WITH clause. */
    public List<SqlOption> options() {
        return Nodes.typed(options, SqlOption.class);
    }

    public boolean ifNotExists() {
        return ifNotExists;
    }

    @Override
    public List<SqlNode> getOperandList() {
        return Arrays.asList(name, columns, options,
            SqlLiteral.createBoolean(getReplace(), SqlParserPos.ZERO),
            SqlLiteral.createBoolean(ifNotExists, SqlParserPos.ZERO));
    }

    @Override
    public void unparse(SqlWriter writer, int leftPrec, int rightPrec) {
        writer.keyword("CREATE");
        if (getReplace()) {
            writer.keyword("OR REPLACE");
        }
        writer.keyword("STREAM");
        if (ifNotExists) {
            writer.keyword("IF NOT EXISTS");
        }
        name.unparse(writer, leftPrec, rightPrec);
        SqlWriter.Frame frame = writer.startList("(", ")");
        for (SqlNode column : columns) {
            writer.sep(",");
            column.unparse(writer, 0, 0);
        }
        writer.endList(frame);
        SqlOption.unparseWith(writer, options);
    }
}
