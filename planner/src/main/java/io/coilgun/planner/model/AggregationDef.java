package io.coilgun.planner.model;

/**
 * One aggregation of a metric.
 *
 * @param argument the column aggregated, or -1 for COUNT(*) and for an expression argument
 * @param name the output name: the SQL alias, or the lower-case function name
 * @param resultType the type of the value reported per event
 * @param expression the argument as a JEXL expression over the event's columns (see
 *     {@link io.coilgun.planner.expr.Expressions}), or null when the argument is a column or {@code *}
 */
public record AggregationDef(AggregationKind kind, int argument, String name, ColumnType resultType,
        String expression) {

    public AggregationDef(AggregationKind kind, int argument, String name, ColumnType resultType) {
        this(kind, argument, name, resultType, null);
    }
}
