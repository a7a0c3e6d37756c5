package io.coilgun.sql.compile;

import java.util.List;

/** {@code EXPLAIN STREAM | METRIC name}: the plan's text, one line per row. */
public record ExplainStatement(List<String> lines) implements CompiledStatement {
}
