package io.coilgun.sql.parser;

import java.util.ArrayList;
import java.util.List;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNodeList;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.SqlSpecialOperator;
import org.apache.calcite.sql.SqlWriter;
import org.apache.calcite.sql.parser.SqlParserPos;

/** {@code COPY stream [(column, ...)] FROM STDIN [options]}: bulk events through the COPY sub-protocol. */
public final class SqlCopy extends SqlCall {
    public static final SqlOperator OPERATOR = new SqlSpecialOperator("COPY", SqlKind.OTHER);

    private final SqlIdentifier name;
    private final SqlNodeList columns;
    private final SqlNodeList options;

    /** @param columns the column list, or null for all columns in order */
    public SqlCopy(SqlParserPos pos, SqlIdentifier name, SqlNodeList columns, SqlNodeList options) {
        super(pos);
        this.name = name;
        this.columns = columns;
        this.options = options;
    }

    public SqlIdentifier name() {
        return name;
    }

    /** The column list, or null. */
    public SqlNodeList columns() {
        return columns;
    }

    /** {@link SqlOption}s: {@code format}, {@code header}, {@code delimiter}, {@code null}, ... (flags are true). */
    public List<SqlOption> options() {
        List<SqlOption> list = new ArrayList<>();
        for (SqlNode option : options) {
            list.add((SqlOption) option);
        }
        return list;
    }

    @Override
    public SqlOperator getOperator() {
        return OPERATOR;
    }

    @Override
    public List<SqlNode> getOperandList() {
        List<SqlNode> operands = new ArrayList<>();
        operands.add(name);
        operands.add(columns);
        operands.add(options);
        return operands;
    }

    @Override
    public void unparse(SqlWriter writer, int leftPrec, int rightPrec) {
        writer.keyword("COPY");
        name.unparse(writer, 0, 0);
        if (columns != null) {
            SqlWriter.Frame frame = writer.startList("(", ")");
            for (SqlNode c : columns) {
                writer.sep(",");
                c.unparse(writer, 0, 0);
            }
            writer.endList(frame);
        }
        writer.keyword("FROM STDIN");
        if (!options.isEmpty()) {
            SqlWriter.Frame frame = writer.startList("(", ")");
            for (SqlOption o : options()) {
                writer.sep(",");
                o.key().unparse(writer, 0, 0);
                o.value().unparse(writer, 0, 0);
            }
            writer.endList(frame);
        }
    }
}
