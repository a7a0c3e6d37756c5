package io.coilgun.sql.parser;

import io.coilgun.planner.error.SqlState;
import org.apache.calcite.sql.parser.SqlParserPos;

/**
 * An error raised from inside the generated parser (a grammar action) that already knows its
 * SQLSTATE and the {@link SqlParserPos} it applies to. {@link CoilgunParser} turns it into a
 * {@link io.coilgun.planner.error.CoilgunException} with a character offset. Not meant to escape
 * {@link CoilgunParser}; public only because the generated parser lives in another package.
 */
public final class CoilgunParseError extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final SqlState state;
    private final transient SqlParserPos pos;

    public CoilgunParseError(SqlState state, String message, SqlParserPos pos) {
        this(state, message, pos, null);
    }

    public CoilgunParseError(SqlState state, String message, SqlParserPos pos, Throwable cause) {
        super(message, cause);
        this.state = state;
        this.pos = pos;
    }

    public SqlState state() {
        return state;
    }

    public SqlParserPos pos() {
        return pos;
    }
}
