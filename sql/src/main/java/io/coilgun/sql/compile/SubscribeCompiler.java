package io.coilgun.sql.compile;

import io.coilgun.planner.error.SqlState;
import io.coilgun.planner.model.Catalog;
import io.coilgun.planner.model.ColumnType;
import io.coilgun.planner.model.MetricDef;
import io.coilgun.planner.model.StreamColumn;
import io.coilgun.planner.model.StreamDef;
import io.coilgun.sql.parser.SqlCopyTo;
import io.coilgun.sql.parser.SqlSubscribe;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Compiles SUBSCRIBE (its row shape and WHERE) and COPY (statement) TO STDOUT (its options). */
final class SubscribeCompiler {
    private SubscribeCompiler() {
    }

    static SubscribeStatement compile(SqlText sql, SqlSubscribe subscribe, Catalog catalog) {
        String name = subscribe.name().getSimple();
        MetricDef metric = catalog.metric(name).orElse(null);
        StreamDef stream = metric != null ? catalog.stream(metric.stream()).orElseThrow()
                : catalog.stream(name).orElseThrow(() -> sql.error(SqlState.UNDEFINED_TABLE,
                        "metric or stream \"" + name + "\" does not exist", subscribe.name()));
        List<Integer> eventColumns = new ArrayList<>();
        List<MetricDef> metrics;
        String partitioner;
        if (metric != null) {
            eventColumns.add(stream.eventIdIndex());
            eventColumns.add(stream.eventTimeIndex());
            for (int g : metric.groupBy()) {
                if (!eventColumns.contains(g)) {
                    eventColumns.add(g);
                }
            }
            metrics = List.of(metric);
            partitioner = metric.partitioner();
        } else {
            if (stream.decided()) {
                throw sql.error(SqlState.FEATURE_NOT_SUPPORTED, "SUBSCRIBE to stream \"" + name
                        + "\" is not supported: it is partitioned by more than one field, so its metrics are "
                        + "computed by different tasks; subscribe to one of its metrics instead", subscribe.name());
            }
            if (stream.eventIdIndex() < 0) {
                eventColumns.add(-1);
            }
            for (int c = 0; c < stream.columns().size(); c++) {
                eventColumns.add(c);
            }
            metrics = catalog.metricsOf(stream.name());
            partitioner = stream.partitionBy().get(0);
        }
        List<String> names = new ArrayList<>();
        List<ColumnType> types = new ArrayList<>();
        for (int c : eventColumns) {
            names.add(c < 0 ? "event_id" : stream.column(c).name());
            types.add(c < 0 ? ColumnType.BIGINT : stream.column(c).type());
        }
        for (MetricDef m : metrics) {
            for (int a = 0; a < m.aggregations().size(); a++) {
                names.add(m.outputColumn(a));
                types.add(m.aggregations().get(a).resultType());
            }
        }
        String filter = null;
        if (subscribe.where() != null) {
            List<StreamColumn> columns = new ArrayList<>();
            for (int i = 0; i < names.size(); i++) {
                columns.add(new StreamColumn(names.get(i), types.get(i), false));
            }
            int time = eventColumns.indexOf(stream.eventTimeIndex());
            StreamDef shape = new StreamDef(stream.name(), columns, Math.max(time, 0), -1, List.of(), 1, 0,
                    stream.latePolicy(), null);
            filter = ExpressionCompiler.compile(sql, shape, List.of(), subscribe.where()).filter();
        }
        return new SubscribeStatement(stream, metric, partitioner,
                eventColumns.stream().mapToInt(Integer::intValue).toArray(), metrics, names, types, filter);
    }

    static CopyToStatement copyTo(SqlText sql, SqlCopyTo copy) {
        Map<String, String> options = CopyOptions.read(sql, copy.options(), true);
        return new CopyToStatement(copy.query(), copy.queryText(sql.query()), options);
    }
}
