package io.coilgun.planner.model;

import java.util.List;

/**
 * One CREATE METRIC: aggregations over one stream, grouped by {@code groupBy} columns, over one window.
 * The metric runs on the partitioner topic of {@code partitioner}, one of its group-by fields.
 *
 * @param groupBy stream column indexes of the GROUP BY fields, in order
 * @param ddl the CREATE METRIC text it was made from (what the durable catalog stores)
 * @param filter the WHERE clause as a JEXL expression (see {@link io.coilgun.planner.expr.Expressions}), or null
 * @param backfillMicros {@code WITH (backfill = …)}: how much event time before its start the metric is filled from
 *     when it starts (the events of that span in each task's reservoir); 0 for none, {@link #BACKFILL_ALL} for all
 */
public record MetricDef(
        String name,
        String stream,
        List<AggregationDef> aggregations,
        List<Integer> groupBy,
        String partitioner,
        WindowSpec window,
        String ddl,
        String filter,
        long backfillMicros) {
    /** {@code backfill = 'all'}: every event the reservoirs hold. */
    public static final long BACKFILL_ALL = Long.MAX_VALUE;

    public MetricDef {
        aggregations = List.copyOf(aggregations);
        groupBy = List.copyOf(groupBy);
    }

    /** A metric without a backfill. */
    public MetricDef(String name, String stream, List<AggregationDef> aggregations, List<Integer> groupBy,
            String partitioner, WindowSpec window, String ddl, String filter) {
        this(name, stream, aggregations, groupBy, partitioner, window, ddl, filter, 0);
    }

    /** A metric without a filter. */
    public MetricDef(String name, String stream, List<AggregationDef> aggregations, List<Integer> groupBy,
            String partitioner, WindowSpec window, String ddl) {
        this(name, stream, aggregations, groupBy, partitioner, window, ddl, null);
    }

    /** Whether the metric is filled from history when it starts ({@code WITH (backfill = …)}). */
    public boolean backfills() {
        return backfillMicros > 0;
    }

    /** The name of an output column in INSERT … RETURNING rows: {@code <metric>_<aggregation>}. */
    public String outputColumn(int aggregation) {
        return name + "_" + aggregations.get(aggregation).name();
    }
}
