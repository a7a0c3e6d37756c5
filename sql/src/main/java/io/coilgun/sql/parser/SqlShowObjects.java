package io.coilgun.sql.parser;

import java.util.List;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.SqlSpecialOperator;
import org.apache.calcite.sql.SqlWriter;
import org.apache.calcite.sql.parser.SqlParserPos;

/** {@code SHOW STREAMS}, {@code SHOW METRICS}, {@code SHOW ALL} or {@code SHOW parameter}. */
public final class SqlShowObjects extends SqlCall {
    public static final SqlOperator OPERATOR = new SqlSpecialOperator("SHOW", SqlKind.OTHER);

    private final String what;

    /** @param what {@code streams}, {@code metrics}, {@code all} or a run-time parameter's name (lower case) */
    public SqlShowObjects(SqlParserPos pos, String what) {
        super(pos);
        this.what = what;
    }

    public String what() {
        return what;
    }

    public boolean metrics() {
        return what.equals("metrics");
    }

    public boolean streams() {
        return what.equals("streams");
    }

    public boolean sinks() {
        return what.equals("sinks");
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
        writer.identifier(what, false);
    }
}
