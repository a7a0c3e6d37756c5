package io.coilgun.sql.parser;

import java.util.ArrayList;
import java.util.List;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlLiteral;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.SqlSelect;
import org.apache.calcite.sql.SqlSpecialOperator;
import org.apache.calcite.sql.SqlWriter;
import org.apache.calcite.sql.parser.SqlParserPos;

/**
 * {@code REPLAY SELECT … FROM stream [WHERE …] GROUP BY … OVER <window> [BETWEEN <time> AND <time>]}: a metric
 * definition computed over the stored history, one row per event, without deploying it.
 */
public final class SqlReplay extends SqlCall {
    public static final SqlOperator OPERATOR = new SqlSpecialOperator("REPLAY", SqlKind.OTHER);

    private final SqlSelect query;
    private final SqlWindowSpec window;
    private final SqlLiteral from;
    private final SqlLiteral to;

    /** @param from the first event time replayed, or null (all); {@code to} the last, or null */
    public SqlReplay(SqlParserPos pos, SqlSelect query, SqlWindowSpec window, SqlLiteral from, SqlLiteral to) {
        super(pos);
        this.query = query;
        this.window = window;
        this.from = from;
        this.to = to;
    }

    public SqlSelect query() {
        return query;
    }

    public SqlWindowSpec window() {
        return window;
    }

    /** The BETWEEN's lower bound, or null. */
    public SqlLiteral from() {
        return from;
    }

    /** The BETWEEN's upper bound, or null. */
    public SqlLiteral to() {
        return to;
    }

    @Override
    public SqlOperator getOperator() {
        return OPERATOR;
    }

    @Override
    public List<SqlNode> getOperandList() {
        List<SqlNode> operands = new ArrayList<>();
        operands.add(query);
        operands.add(window);
        operands.add(from);
        operands.add(to);
        return operands;
    }

    @Override
    public void unparse(SqlWriter writer, int leftPrec, int rightPrec) {
        writer.keyword("REPLAY");
        query.unparse(writer, 0, 0);
        writer.keyword("OVER");
        window.unparse(writer, 0, 0);
        if (from != null) {
            writer.keyword("BETWEEN");
            from.unparse(writer, 0, 0);
            writer.keyword("AND");
            to.unparse(writer, 0, 0);
        }
    }
}
