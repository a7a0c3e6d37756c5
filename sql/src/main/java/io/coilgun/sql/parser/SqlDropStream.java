package io.coilgun.sql.parser;

import java.util.List;
import org.apache.calcite.sql.SqlDrop;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.SqlSpecialOperator;
import org.apache.calcite.sql.SqlWriter;
import org.apache.calcite.sql.parser.SqlParserPos;

/** {@code DROP STREAM [IF EXISTS] name [CASCADE | RESTRICT]} (RESTRICT, the default, is not kept). */
public final class SqlDropStream extends SqlDrop {
    public static final SqlOperator OPERATOR = new SqlSpecialOperator("DROP STREAM", SqlKind.OTHER_DDL);

    private final SqlIdentifier name;
    private final boolean cascade;

    public SqlDropStream(SqlParserPos pos, boolean ifExists, SqlIdentifier name, boolean cascade) {
        super(OPERATOR, pos, ifExists);
        this.name = name;
        this.cascade = cascade;
    }

    public SqlIdentifier name() {
        return name;
    }

    public boolean ifExists() {
        return ifExists;
    }

    /** True with CASCADE: the stream's metrics are dropped with it. */
    public boolean cascade() {
        return cascade;
    }

    @Override
    public List<SqlNode> getOperandList() {
        return List.of(name);
    }

    @Override
    public void unparse(SqlWriter writer, int leftPrec, int rightPrec) {
        writer.keyword("DROP STREAM");
        if (ifExists) {
            writer.keyword("IF EXISTS");
        }
        name.unparse(writer, leftPrec, rightPrec);
        if (cascade) {
            writer.keyword("CASCADE");
        }
    }
}
