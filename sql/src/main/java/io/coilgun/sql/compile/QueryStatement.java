package io.coilgun.sql.compile;

import java.util.List;

/**
 * A query (SELECT, VALUES, UNION, WITH, ORDER BY) to run with {@link io.coilgun.sql.query.QueryEngine}.
 *
 * @param text the statement's text as the client wrote it
 * @param position 1-based offset of {@code text} in the whole query string (error positions add it)
 * @param columnNames the names Postgres gives the select list's columns where Calcite would generate one
 *     ({@code version()} is {@code version}, {@code 1 + 1} is {@code ?column?})
 */
public record QueryStatement(String text, int position, List<String> columnNames)
        implements CompiledStatement {
}
