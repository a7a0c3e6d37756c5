package io.coilgun.sql.parser;

import java.util.List;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.SqlSpecialOperator;
import org.apache.calcite.sql.SqlWriter;
import org.apache.calcite.sql.parser.SqlParserPos;

/** {@code EXPLAIN STREAM name} or {@code EXPLAIN METRIC name}: prints the task plan. */
public final class SqlExplainPlan extends SqlCall {
    public static final SqlOperator OPERATOR = new SqlSpecialOperator("EXPLAIN PLAN", SqlKind.OTHER);

    private final boolean metric;
    private final SqlIdentifier name;

    public SqlExplainPlan(SqlParserPos pos, boolean metric, SqlIdentifier name) {
        super(pos);
        this.metric = metric;
        this.name = name;
    }

    public boolean metric() {
        return metric;
    }

    public SqlIdentifier name() {
        return name;
    }

    @Override
    public SqlOperator getOperator() {
        return OPERATOR;
    }

    @Override
    public List<SqlNode> getOperandList() {
        return List.of(name);
    }

    @Override
    public void unparse(SqlWriter writer, int leftPrec, int rightPrec) {
        writer.keyword("EXPLAIN");
        writer.keyword(metric ? "METRIC" : "STREAM");
        name.unparse(writer, 0, 0);
    }
}
