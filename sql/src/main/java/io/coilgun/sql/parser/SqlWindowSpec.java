package io.coilgun.sql.parser;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlIntervalLiteral;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlLiteral;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.SqlSpecialOperator;
import org.apache.calcite.sql.SqlWriter;
import org.apache.calcite.sql.parser.SqlParserPos;

/**
 * The window of {@code CREATE METRIC ... OVER <window>}:
 * {@code SLIDING <size> | TUMBLING <size> | INFINITE}, each with an optional {@code DELAYED BY <size>}.
 * A size written in the short form ({@code 5 MINUTES}) is stored as the equivalent interval literal
 * ({@code INTERVAL '5' MINUTE}; {@code 500 MILLISECONDS} as {@code INTERVAL '0.5' SECOND}). Sizes and
 * delays coming from {@link CoilgunParser} are known to be positive and convertible by
 * {@link Intervals#toMicros}.
 */
public final class SqlWindowSpec extends SqlCall {
    public enum Kind { SLIDING, TUMBLING, INFINITE }

    public static final SqlOperator OPERATOR = new SqlSpecialOperator("WINDOW SPEC", SqlKind.OTHER) {
        @Override
        public SqlCall createCall(SqlLiteral functionQualifier, SqlParserPos pos, SqlNode... operands) {
            return new SqlWindowSpec(pos, ((SqlLiteral) operands[0]).getValueAs(Kind.class),
                (SqlIntervalLiteral) operands[1], (SqlIntervalLiteral) operands[2]);
        }
    };

    private final Kind kind;
    private final SqlIntervalLiteral size;
    private final SqlIntervalLiteral delay;

    public SqlWindowSpec(SqlParserPos pos, Kind kind, SqlIntervalLiteral size, SqlIntervalLiteral delay) {
        super(pos);
        this.kind = Objects.requireNonNull(kind, "kind");
        if ((kind == Kind.INFINITE) != (size == null)) {
            throw new IllegalArgumentException(kind + " window " + (size == null ? "needs" : "takes no") + " size");
        }
        this.size = size;
        this.delay = delay;
    }

    public Kind kind() {
        return kind;
    }

    /** The window size; null for INFINITE. */
    public SqlIntervalLiteral size() {
        return size;
    }

    /** The DELAYED BY interval; null when there is none. */
    public SqlIntervalLiteral delay() {
        return delay;
    }

    @Override
    public SqlOperator getOperator() {
        return OPERATOR;
    }

    @Override
    public List<SqlNode> getOperandList() {
        return Arrays.asList(SqlLiteral.createSymbol(kind, SqlParserPos.ZERO), size, delay);
    }

    @Override
    public void unparse(SqlWriter writer, int leftPrec, int rightPrec) {
        writer.keyword(kind.name());
        if (size != null) {
            size.unparse(writer, 0, 0);
        }
        if (delay != null) {
            writer.keyword("DELAYED BY");
            delay.unparse(writer, 0, 0);
        }
    }
}
