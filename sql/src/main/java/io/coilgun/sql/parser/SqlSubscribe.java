package io.coilgun.sql.parser;

import java.util.ArrayList;
import java.util.List;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.SqlSpecialOperator;
import org.apache.calcite.sql.SqlWriter;
import org.apache.calcite.sql.parser.SqlParserPos;

/** {@code SUBSCRIBE [TO] <metric | stream> [WHERE condition]}: a never-ending result of per-event rows. */
public final class SqlSubscribe extends SqlCall {
    public static final SqlOperator OPERATOR = new SqlSpecialOperator("SUBSCRIBE", SqlKind.OTHER);

    private final SqlIdentifier name;
    private final SqlNode where;

    /** @param where the condition over the subscription's columns, or null */
    public SqlSubscribe(SqlParserPos pos, SqlIdentifier name, SqlNode where) {
        super(pos);
        this.name = name;
        this.where = where;
    }

    public SqlIdentifier name() {
        return name;
    }

    /** The WHERE condition, or null. */
    public SqlNode where() {
        return where;
    }

    @Override
    public SqlOperator getOperator() {
        return OPERATOR;
    }

    @Override
    public List<SqlNode> getOperandList() {
        List<SqlNode> operands = new ArrayList<>();
        operands.add(name);
        operands.add(where);
        return operands;
    }

    @Override
    public void unparse(SqlWriter writer, int leftPrec, int rightPrec) {
        writer.keyword("SUBSCRIBE");
        name.unparse(writer, 0, 0);
        if (where != null) {
            writer.keyword("WHERE");
            where.unparse(writer, 0, 0);
        }
    }
}
