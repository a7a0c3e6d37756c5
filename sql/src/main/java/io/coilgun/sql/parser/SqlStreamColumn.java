package io.coilgun.sql.parser;

import java.util.Arrays;
import java.util.List;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlDataTypeSpec;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlLiteral;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.SqlSpecialOperator;
import org.apache.calcite.sql.SqlWriter;
import org.apache.calcite.sql.parser.SqlParserPos;

/** A column of {@code CREATE STREAM}: {@code name type [NOT NULL]}. */
public final class SqlStreamColumn extends SqlCall {
    public static final SqlOperator OPERATOR = new SqlSpecialOperator("STREAM COLUMN", SqlKind.OTHER) {
        @Override
        public SqlCall createCall(SqlLiteral functionQualifier, SqlParserPos pos, SqlNode... operands) {
            return new SqlStreamColumn(pos, (SqlIdentifier) operands[0], (SqlDataTypeSpec) operands[1],
                ((SqlLiteral) operands[2]).booleanValue());
        }
    };

    private final SqlIdentifier name;
    private final SqlDataTypeSpec type;
    private final boolean notNull;

    public SqlStreamColumn(SqlParserPos pos, SqlIdentifier name, SqlDataTypeSpec type, boolean notNull) {
        super(pos);
        this.name = name;
        this.type = type;
        this.notNull = notNull;
    }

    public SqlIdentifier name() {
        return name;
    }

    /** The type as written (its own nullability is not set; see {@link #notNull()}). */
    public SqlDataTypeSpec type() {
        return type;
    }

    public boolean notNull() {
        return notNull;
    }

    @Override
    public SqlOperator getOperator() {
        return OPERATOR;
    }

    @Override
    public List<SqlNode> getOperandList() {
        return Arrays.asList(name, type, SqlLiteral.createBoolean(notNull, SqlParserPos.ZERO));
    }

    @Override
    public void unparse(SqlWriter writer, int leftPrec, int rightPrec) {
        name.unparse(writer, 0, 0);
        type.unparse(writer, 0, 0);
        if (notNull) {
            writer.keyword("NOT NULL");
        }
    }
}
