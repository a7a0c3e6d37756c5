package io.coilgun.sql.compile;

import io.coilgun.sql.parser.SqlCursor;

/**
 * A named cursor statement: DECLARE (its {@code query} compiled, run when it is declared and its rows kept by the
 * session), FETCH ({@code count} rows, -1 for all that remain) or CLOSE ({@code name} null for CLOSE ALL).
 */
public record CursorStatement(SqlCursor.Kind kind, String name, QueryStatement query, boolean hold, long count)
        implements CompiledStatement {
}
