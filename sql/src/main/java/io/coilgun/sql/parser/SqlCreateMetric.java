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
import org.apache.calcite.sql.SqlSelect;
import org.apache.calcite.sql.SqlSpecialOperator;
import org.apache.calcite.sql.SqlWriter;
import org.apache.calcite.sql.parser.SqlParserPos;

/**
 * {@code CREATE [OR REPLACE] METRIC [IF NOT EXISTS] name AS <select> OVER <window> [WITH (key = literal, ...)]}.
 * The SELECT is parsed by Calcite's own {@code SqlSelect()} production (no ORDER BY / UNION / WITH).
 */
public final class SqlCreateMetric extends SqlCreate {
    public static final SqlOperator OPERATOR = new SqlSpecialOperator("CREATE METRIC", SqlKind.OTHER_DDL) {
        @Override
        public SqlCall createCall(SqlLiteral functionQualifier, SqlParserPos pos, SqlNode... operands) {
            return new SqlCreateMetric(pos, ((SqlLiteral) operands[4]).booleanValue(),
                ((SqlLiteral) operands[5]).booleanValue(), (SqlIdentifier) operands[0],
                (SqlSelect) operands[1], (SqlWindowSpec) operands[2], (SqlNodeList) operands[3]);
        }
    };

    private final SqlIdentifier name;
    private final SqlSelect query;
    private final SqlWindowSpec window;
    private final SqlNodeList options;

    public SqlCreateMetric(SqlParserPos pos, boolean replace, boolean ifNotExists, SqlIdentifier name,
                           SqlSelect query, SqlWindowSpec window, SqlNodeList options) {
        super(OPERATOR, pos, replace, ifNotExists);
        this.name = name;
        this.query = query;
        this.window = window;
        this.options = options;
    }

    public SqlIdentifier name() {
        return name;
    }

    public SqlSelect query() {
        return query;
    }

    public SqlWindowSpec window() {
        return window;
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
        return Arrays.asList(name, query, window, options,
            SqlLiteral.createBoolean(getReplace(), SqlParserPos.ZERO),
            SqlLiteral.createBoolean(ifNotExists, SqlParserPos.ZERO));
    }

    @Override
    public void unparse(SqlWriter writer, int leftPrec, int rightPrec) {
        writer.keyword("CREATE");
        if (getReplace()) {
            writer.keyword("OR REPLACE");
        }
        writer.keyword("METRIC");
        if (ifNotExists) {
            writer.keyword("IF NOT EXISTS");
        }
        name.unparse(writer, leftPrec, rightPrec);
        writer.keyword("AS");
        writer.newlineAndIndent();
        query.unparse(writer, 0, 0);
        writer.newlineAndIndent();
        writer.keyword("OVER");
        window.unparse(writer, 0, 0);
        SqlOption.unparseWith(writer, options);
    }
}
