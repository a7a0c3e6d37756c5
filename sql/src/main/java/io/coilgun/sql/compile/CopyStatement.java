package io.coilgun.sql.compile;

import io.coilgun.planner.model.StreamDef;
import java.util.List;
import java.util.Map;

/**
 * {@code COPY stream [(columns)] FROM STDIN [options]}: where the rows go and how their text reads.
 *
 * @param targets the stream column index of each field of a row
 * @param columnNames the names of those columns (HEADER MATCH compares with them)
 * @param options {@code format} (text, csv or binary), {@code header} (true, false or match), {@code delimiter},
 *     {@code null}, {@code quote}, {@code escape}, as written (absent = Postgres' default)
 */
public record CopyStatement(StreamDef stream, int[] targets, List<String> columnNames, Map<String, String> options)
        implements CompiledStatement {
    public CopyStatement {
        columnNames = List.copyOf(columnNames);
        options = Map.copyOf(options);
    }
}
