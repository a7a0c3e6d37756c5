package io.coilgun.sql.compile;

import io.coilgun.sql.parser.SqlCursor;

/**
 * A named cursor statement: DECLARE (its {@code query} compiled, run when it is declared and its rows kept by the
 * session; {@code noScroll}: forward only), FETCH or MOVE ({@code direction} and {@code count} as
 * {@link SqlCursor.Direction} says) or CLOSE ({@code name} null for CLOSE ALL).
 */
public record CursorStatement(SqlCursor.Kind kind, String name, QueryStatement query, boolean hold,
        boolean noScroll, SqlCursor.Direction direction, long count) implements CompiledStatement {
}
