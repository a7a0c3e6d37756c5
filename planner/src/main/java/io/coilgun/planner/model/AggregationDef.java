package io.coilgun.planner.model;

/**
 * One aggregation of a metric.
 *
 * @param argument the column aggregated, or -1 for COUNT(*)
 * @param name the output name: the SQL alias, or the lower-case function name
 * @param resultType the type of the value reported per event
 */
public record AggregationDef(AggregationKind kind, int argument, String name, ColumnType resultType) {
}
