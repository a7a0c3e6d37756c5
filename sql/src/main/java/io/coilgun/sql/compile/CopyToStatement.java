package io.coilgun.sql.compile;

import java.util.Map;
import org.apache.calcite.sql.SqlNode;

/**
 * {@code COPY ( statement ) TO STDOUT [options]}: the statement inside is compiled and run as any statement is
 * (it must return rows), its rows sent as COPY data.
 *
 * @param query the statement inside the parentheses
 * @param queryText its text (what a SELECT inside runs as)
 * @param options {@code format}, {@code header}, {@code delimiter}, {@code null}, {@code quote}, {@code escape},
 *     as written (absent = Postgres' default); HEADER MATCH is refused (it only means something for COPY FROM)
 */
public record CopyToStatement(SqlNode query, String queryText, Map<String, String> options)
        implements CompiledStatement {
    public CopyToStatement {
        options = Map.copyOf(options);
    }
}
