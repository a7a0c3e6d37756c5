package io.coilgun.sql.compile;

/** {@code DROP METRIC [IF EXISTS] name}: the metric leaves its tasks' plans between two events, state and all. */
public record DropMetricStatement(String name, boolean ifExists) implements CompiledStatement {
}
