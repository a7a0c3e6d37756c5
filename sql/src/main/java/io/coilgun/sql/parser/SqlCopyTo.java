package io.coilgun.sql.parser;

import java.util.ArrayList;
import java.util.List;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNodeList;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.SqlSpecialOperator;
import org.apache.calcite.sql.SqlWriter;
import org.apache.calcite.sql.parser.SqlParserPos;

/**
 * {@code COPY ( statement ) TO STDOUT [[WITH] options]}: the rows of any row-returning statement (SUBSCRIBE,
 * SHOW, SELECT, ...) sent through the COPY sub-protocol.
 */
public final class SqlCopyTo extends SqlCall {
    public static final SqlOperator OPERATOR = new SqlSpecialOperator("COPY TO", SqlKind.OTHER);

    private final SqlNode query;
    private final SqlParserPos open;
    private final SqlParserPos close;
    private final SqlNodeList options;

    /** @param open the position of the parenthesis before the statement, {@code close} of the one after it */
    public SqlCopyTo(SqlParserPos pos, SqlNode query, SqlParserPos open, SqlParserPos close, SqlNodeList options) {
        super(pos);
        this.query = query;
        this.open = open;
        this.close = close;
        this.options = options;
    }

    /** The text of the statement inside the parentheses, from {@code sql} (the string this was parsed from). */
    public String queryText(String sql) {
        return CoilgunParser.textBetween(sql, open, close).trim();
    }

    /** The statement inside the parentheses, executed as the session executes any statement. */
    public SqlNode query() {
        return query;
    }

    /** {@link SqlOption}s as COPY FROM takes them ({@code format}, {@code header}, {@code delimiter}, ...). */
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
        operands.add(query);
        operands.add(options);
        return operands;
    }

    @Override
    public void unparse(SqlWriter writer, int leftPrec, int rightPrec) {
        writer.keyword("COPY");
        // a query inside a frame puts its own parentheses; other statements get them here
        boolean query = this.query.getKind().belongsTo(SqlKind.QUERY);
        SqlWriter.Frame inner = query ? writer.startList("", "") : writer.startList("(", ")");
        this.query.unparse(writer, 0, 0);
        writer.endList(inner);
        writer.keyword("TO STDOUT");
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
