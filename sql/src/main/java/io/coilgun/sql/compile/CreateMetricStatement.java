package io.coilgun.sql.compile;

import io.coilgun.planner.model.MetricDef;

/** {@code CREATE METRIC}: the metric's definition, its DDL text included. */
public record CreateMetricStatement(MetricDef metric, boolean ifNotExists) implements CompiledStatement {
}
