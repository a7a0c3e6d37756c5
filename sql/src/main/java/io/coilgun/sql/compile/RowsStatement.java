package io.coilgun.sql.compile;

import java.util.List;

/**
 * A statement answered from the catalog alone (EXPLAIN, SHOW): text columns and their rows, computed when compiled.
 */
public record RowsStatement(List<String> columns, List<String[]> rows, String tag) implements CompiledStatement {
}
