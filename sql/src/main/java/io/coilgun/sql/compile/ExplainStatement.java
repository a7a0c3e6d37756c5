package io.coilgun.sql.compile;

import java.util.List;

/** {@code EXPLAIN STREAM | METRIC name}: the plan's text, one line per row. */
public record ExplainStatement(List<String> lines) implements CompiledStatement {
    /** The one text column of EXPLAIN's rows, as Postgres names it. */
    public static final List<String> COLUMNS = List.of("QUERY PLAN");

}
