package io.coilgun.sql.compile;

import io.coilgun.planner.model.StreamDef;
import java.util.List;

/**
 * {@code INSERT INTO stream VALUES ... [RETURNING *]}: every row complete (one value per stream column, in column
 * order, as {@link io.coilgun.planner.model.ColumnType#javaClass()} objects or null) and valid. A statement whose
 * rows do not all convert never becomes an InsertStatement, so a failing INSERT publishes nothing.
 */
public record InsertStatement(StreamDef stream, List<Object[]> rows, boolean returning) implements CompiledStatement {
    public InsertStatement {
        rows = List.copyOf(rows);
    }
}
