package io.coilgun.sql.parser;

import java.util.List;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlLiteral;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNodeList;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.SqlSpecialOperator;
import org.apache.calcite.sql.SqlWriter;
import org.apache.calcite.sql.parser.SqlParserPos;

/**
 * {@code ALTER STREAM name ADD [COLUMN] column type} (schema evolution, one new column at the end),
 * {@code ALTER STREAM name ADD PARTITION BY field [WITH (options)]} / {@code DROP PARTITION BY field} (a partitioner
 * topic added or dropped) or {@code ALTER STREAM name SET (options)} (the options that may change).
 */
public final class SqlAlterStream extends SqlCall {
    public static final SqlOperator OPERATOR = new SqlSpecialOperator("ALTER STREAM", SqlKind.OTHER_DDL) {
        @Override
        public SqlCall createCall(SqlLiteral functionQualifier, SqlParserPos pos, SqlNode... operands) {
            return operands[1] instanceof SqlNodeList options ? new SqlAlterStream(pos, (SqlIdentifier) operands[0], options)
                    : new SqlAlterStream(pos, (SqlIdentifier) operands[0], (SqlStreamColumn) operands[1]);
        }
    };

    private final SqlIdentifier name;
    private final SqlStreamColumn column;
    private final SqlNodeList options;
    /** The partitioner of ADD / DROP PARTITION BY, or null. */
    private final SqlIdentifier partitioner;
    private final boolean dropPartitioner;

    public SqlAlterStream(SqlParserPos pos, SqlIdentifier name, SqlStreamColumn column) {
        super(pos);
        this.name = name;
        this.column = column;
        this.options = null;
        this.partitioner = null;
        this.dropPartitioner = false;
    }

    public SqlAlterStream(SqlParserPos pos, SqlIdentifier name, SqlNodeList options) {
        super(pos);
        this.name = name;
        this.column = null;
        this.options = options;
        this.partitioner = null;
        this.dropPartitioner = false;
    }

    private SqlAlterStream(SqlParserPos pos, SqlIdentifier name, SqlIdentifier partitioner, SqlNodeList options,
            boolean drop) {
        super(pos);
        this.name = name;
        this.column = null;
        this.options = options;
        this.partitioner = partitioner;
        this.dropPartitioner = drop;
    }

    /** {@code ALTER STREAM name ADD PARTITION BY field [WITH (options)]}. */
    public static SqlAlterStream addPartitioner(SqlParserPos pos, SqlIdentifier name, SqlIdentifier field,
            SqlNodeList options) {
        return new SqlAlterStream(pos, name, field, options, false);
    }

    /** {@code ALTER STREAM name DROP PARTITION BY field}. */
    public static SqlAlterStream dropPartitioner(SqlParserPos pos, SqlIdentifier name, SqlIdentifier field) {
        return new SqlAlterStream(pos, name, field, SqlNodeList.EMPTY, true);
    }

    /** The field of ADD / DROP PARTITION BY, or null. */
    public SqlIdentifier partitioner() {
        return partitioner;
    }

    /** Whether this is DROP PARTITION BY. */
    public boolean dropsPartitioner() {
        return dropPartitioner;
    }

    /** The options of {@code SET (…)} or ADD PARTITION BY's ({@link SqlOption}s), or null for ADD COLUMN. */
    public SqlNodeList options() {
        return options;
    }

    public SqlIdentifier name() {
        return name;
    }

    /** The new column of ADD COLUMN, or null for SET. */
    public SqlStreamColumn column() {
        return column;
    }

    @Override
    public SqlOperator getOperator() {
        return OPERATOR;
    }

    @Override
    public List<SqlNode> getOperandList() {
        return List.of(name, column != null ? column : options);
    }

    @Override
    public void unparse(SqlWriter writer, int leftPrec, int rightPrec) {
        writer.keyword("ALTER STREAM");
        name.unparse(writer, 0, 0);
        if (column != null) {
            writer.keyword("ADD COLUMN");
            column.unparse(writer, 0, 0);
        } else if (partitioner != null) {
            writer.keyword(dropPartitioner ? "DROP PARTITION BY" : "ADD PARTITION BY");
            partitioner.unparse(writer, 0, 0);
            if (!options.isEmpty()) {
                writer.keyword("WITH");
                options.unparse(writer, 0, 0);
            }
        } else {
            writer.keyword("SET");
            options.unparse(writer, 0, 0);
        }
    }
}
