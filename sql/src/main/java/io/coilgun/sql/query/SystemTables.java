package io.coilgun.sql.query;

import static io.coilgun.sql.query.Col.int4;
import static io.coilgun.sql.query.Col.int8;
import static io.coilgun.sql.query.Col.text;

import io.coilgun.planner.model.Catalog;
import io.coilgun.planner.model.MetricDef;
import io.coilgun.planner.model.SinkDef;
import io.coilgun.planner.model.StreamDef;
import io.coilgun.sql.compile.StatementCompiler;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Coilgun's own system tables, schema {@code coilgun}: {@code streams}, {@code metrics} (from the catalog) and
 * {@code partitioners}, {@code tasks}, {@code failed_events}, {@code nodes}, {@code statistics} (from the running node, see
 * {@link QueryData}).
 */
public final class SystemTables {
    // Column names avoid SQL's reserved words (stream, partition, window), so queries need no quotes.
    public static final List<String> TASKS = List.of("task", "stream_name", "partitioner", "kafka_partition",
            "processor_unit",
            "stream_time", "next_offset", "metrics", "state", "error", "error_at", "failed_events");
    public static final List<String> FAILED_EVENTS = List.of("task", "stream_name", "kafka_offset", "event_id",
            "event_time", "error", "failed_at");
    public static final List<String> NODES = List.of("node_id", "pgwire", "kafka", "data_dir", "processor_units",
            "version");
    public static final List<String> STATISTICS = List.of("task", "stream_name", "events", "applied", "duplicates",
            "late_rejected", "late_dropped", "invalid");

    private SystemTables() {
    }

    static Map<String, RowsTable> tables(QueryData data) {
        Map<String, RowsTable> t = new LinkedHashMap<>();
        t.put("streams", new RowsTable(List.of(text("name"), text("columns"), text("event_time"), text("event_id"),
                text("partition_by"), int4("partitions"), text("lateness"), text("late_events"),
                text("dedup_horizon"), int4("schema_version"), int4("replicas"), text("ddl"), text("source")),
                () -> streams(data.catalog())));
        t.put("metrics", new RowsTable(List.of(text("name"), text("stream_name"), text("aggregations"),
                text("group_by"), text("window_spec"), text("partitioner"), text("ddl"), text("state"),
                int8("backfilled_events"), int8("backfill_events"), int8("backfill_eta_s")), () -> metrics(data)));
        t.put("partitioners", new RowsTable(List.of(text("stream_name"), text("partitioner"), int4("partitions"),
                Col.bool("added"), text("state"), int8("filled_events"), int8("fill_events")), data::partitioners));
        t.put("tasks", new RowsTable(List.of(text("task"), text("stream_name"), text("partitioner"), int4("kafka_partition"),
                text("processor_unit"), Col.timestamp("stream_time"), int8("next_offset"), int4("metrics"),
                text("state"), text("error"), Col.timestamp("error_at"), int8("failed_events"), text("node"),
                text("replicas"), int8("lag_events"), int8("lag_ms"), int8("copied_bytes"), int8("copy_bytes"),
                int8("copy_eta_s")), data::tasks));
        t.put("sources", new RowsTable(List.of(text("stream_name"), text("topic"), text("node"),
                int4("partitions"), int8("records"), int8("bad_records"), int8("lag_records"), text("state")), data::sources));
        t.put("sinks", new RowsTable(List.of(text("name"), text("input"), text("kind"), text("topic"), text("format"),
                text("ddl"), int8("records")), () -> sinks(data)));
        t.put("source_errors", new RowsTable(List.of(text("stream_name"), text("topic"), int4("kafka_partition"),
                int8("kafka_offset"), text("error"), text("record"), Col.timestamp("at")), data::sourceErrors));
        t.put("failed_events", new RowsTable(List.of(text("task"), text("stream_name"), int8("kafka_offset"),
                text("event_id"), Col.timestamp("event_time"), text("error"), Col.timestamp("failed_at")),
                data::failedEvents));
        t.put("nodes", new RowsTable(List.of(text("node_id"), text("pgwire"), text("kafka"), text("data_dir"),
                int4("processor_units"), text("version")), data::nodes));
        t.put("statistics", new RowsTable(List.of(text("task"), text("stream_name"), int8("events"), int8("applied"),
                int8("duplicates"), int8("late_rejected"), int8("late_dropped"), int8("invalid")), data::statistics));
        return t;
    }

    /** Each sink as SHOW SINKS says, its DDL, and the records it wrote from this node since it started. */
    private static List<Object[]> sinks(QueryData data) {
        List<Object[]> rows = new ArrayList<>();
        for (SinkDef k : data.catalog().sinks()) {
            Object[] shown = StatementCompiler.sinkRow(k);
            Object[] row = Arrays.copyOf(shown, shown.length + 2, Object[].class); // shown is a String[]
            row[shown.length] = k.ddl();
            row[shown.length + 1] = data.sinkRecords(k.name());
            rows.add(row);
        }
        return rows;
    }

    private static List<Object[]> streams(Catalog catalog) {
        List<Object[]> rows = new ArrayList<>();
        for (StreamDef s : catalog.streams()) {
            Object[] row = Arrays.copyOf(StatementCompiler.streamRow(s), 13);
            row[12] = row[11]; // the source, after the DDL
            row[11] = s.ddl();
            rows.add(row);
        }
        return rows;
    }

    /**
     * The catalog's metrics; {@code state} is {@code backfilling} while some task fills the metric from history
     * (events applied and in all over its tasks' active copies, and the longest ETA), else {@code running}.
     */
    private static List<Object[]> metrics(QueryData data) {
        Catalog catalog = data.catalog();
        Map<String, QueryData.Backfill> backfills = data.backfills();
        List<Object[]> rows = new ArrayList<>();
        for (StreamDef s : catalog.streams()) {
            for (MetricDef m : catalog.metricsOf(s.name())) {
                QueryData.Backfill b = backfills.get(m.name());
                rows.add(new Object[] {m.name(), m.stream(), String.join(", ", m.aggregations().stream()
                        .map(a -> a.name()).toList()), String.join(", ", m.groupBy().stream()
                        .map(i -> s.column(i).name()).toList()), m.window().toString(), m.partitioner(), m.ddl(),
                    b == null ? "running" : "backfilling", b == null ? null : b.applied(),
                    b == null ? null : b.total(), b == null || b.etaSeconds() < 0 ? null : b.etaSeconds()});
            }
        }
        return rows;
    }
}
