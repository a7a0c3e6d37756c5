package io.coilgun.sql.compile;

import io.coilgun.planner.model.ColumnType;
import io.coilgun.planner.model.MetricDef;
import io.coilgun.planner.model.StreamDef;
import java.util.List;

/**
 * {@code SUBSCRIBE <metric | stream> [WHERE …]}: one row per event a task of this node applies from now on.
 * A row is the event's columns named by {@link #eventColumns} (-1 for the id the node assigned, named
 * {@code event_id}), then every aggregation of each of {@link #metrics} in order, named as RETURNING * names them.
 *
 * @param metric the metric subscribed to, or null for the whole stream
 * @param partitioner the partitioner field whose tasks the events are taken from
 * @param eventColumns the stream column index of each leading output column, -1 for the assigned event id
 * @param metrics the metrics whose values follow (the one metric, or the stream's metrics when subscribing)
 * @param columnNames the output columns, in order
 * @param columnTypes their types
 * @param filter the WHERE condition over the output columns as JEXL (see
 *     {@link io.coilgun.planner.expr.Expressions}), or null; timestamps are compared as microseconds
 */
public record SubscribeStatement(StreamDef stream, MetricDef metric, String partitioner, int[] eventColumns,
        List<MetricDef> metrics, List<String> columnNames, List<ColumnType> columnTypes, String filter)
        implements CompiledStatement {
    public SubscribeStatement {
        metrics = List.copyOf(metrics);
        columnNames = List.copyOf(columnNames);
        columnTypes = List.copyOf(columnTypes);
    }

    /** What the tag of its CommandComplete starts with. */
    public String verb() {
        return "SUBSCRIBE";
    }
}
