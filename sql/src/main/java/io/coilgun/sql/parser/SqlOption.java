package io.coilgun.sql.parser;

import java.math.BigDecimal;
import java.util.List;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlCharStringLiteral;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlLiteral;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNodeList;
import org.apache.calcite.sql.SqlNumericLiteral;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.SqlSpecialOperator;
import org.apache.calcite.sql.SqlWriter;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.sql.type.SqlTypeName;

/**
 * One {@code key = value} entry of a {@code WITH (...)} clause. The key is a simple identifier (folded
 * to lower case unless quoted); the value is a string, numeric (optionally signed) or boolean literal.
 */
public final class SqlOption extends SqlCall {
    public static final SqlOperator OPERATOR = new SqlSpecialOperator("OPTION", SqlKind.OTHER) {
        @Override
        public SqlCall createCall(SqlLiteral functionQualifier, SqlParserPos pos, SqlNode... operands) {
            return new SqlOption(pos, (SqlIdentifier) operands[0], (SqlLiteral) operands[1]);
        }
    };

    private final SqlIdentifier key;
    private final SqlLiteral value;

    public SqlOption(SqlParserPos pos, SqlIdentifier key, SqlLiteral value) {
        super(pos);
        this.key = key;
        this.value = value;
    }

    public SqlIdentifier key() {
        return key;
    }

    public SqlLiteral value() {
        return value;
    }

    /** The key's (simple) name. */
    public String keyName() {
        return key.getSimple();
    }

    /**
     * The value as text: a string literal's content without quotes, a number as its plain decimal text
     * ({@code 4}, {@code -1.5}, {@code 1e3} gives {@code 1000}), a boolean as {@code true}/{@code false}.
     */
    public String valueAsString() {
        if (value instanceof SqlCharStringLiteral) {
            return value.getValueAs(String.class);
        }
        if (value instanceof SqlNumericLiteral) {
            return value.getValueAs(BigDecimal.class).toPlainString();
        }
        if (value.getTypeName() == SqlTypeName.BOOLEAN) {
            return String.valueOf(value.booleanValue());
        }
        return value.toValue();
    }

    @Override
    public SqlOperator getOperator() {
        return OPERATOR;
    }

    @Override
    public List<SqlNode> getOperandList() {
        return List.of(key, value);
    }

    @Override
    public void unparse(SqlWriter writer, int leftPrec, int rightPrec) {
        key.unparse(writer, 0, 0);
        writer.keyword("=");
        value.unparse(writer, 0, 0);
    }

    /** Writes {@code WITH (k = v, ...)}; nothing if {@code options} is empty. */
    static void unparseWith(SqlWriter writer, SqlNodeList options) {
        if (options.isEmpty()) {
            return;
        }
        writer.keyword("WITH");
        SqlWriter.Frame frame = writer.startList("(", ")");
        for (SqlNode option : options) {
            writer.sep(",");
            option.unparse(writer, 0, 0);
        }
        writer.endList(frame);
    }
}
