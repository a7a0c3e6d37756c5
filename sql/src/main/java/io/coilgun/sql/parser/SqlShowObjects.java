package io.coilgun.sql.parser;

import java.util.List;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.SqlSpecialOperator;
import org.apache.calcite.sql.SqlWriter;
import org.apache.calcite.sql.parser.SqlParserPos;

/** {@code SHOW STREAMS} or {@code SHOW METRICS}. */
public final class SqlShowObjects extends SqlCall {
    public static final SqlOperator OPERATOR = new SqlSpecialOperator("SHOW", SqlKind.OTHER);

    private final boolean metrics;

    public SqlShowObjects(SqlParserPos pos, boolean metrics) {
        super(pos);
        this.metrics = metrics;
    }

    public boolean metrics() {
        return metrics;
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
        writer.keyword("SHOW");
        writer.keyword(metrics ? "METRICS" : "STREAMS");
    }
}
