package io.coilgun.server.observe;

import io.coilgun.cluster.reply.ReplyStatus;
import io.coilgun.cluster.unit.TaskSample;
import io.coilgun.planner.model.MetricDef;
import io.coilgun.planner.model.StreamDef;
import io.coilgun.sql.query.QueryData;
import io.coilgun.sql.query.SystemTables;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.distribution.ValueAtPercentile;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * The node and its cluster at a glance, as one JSON-ready map: what {@code /status.json}, the status page and
 * {@code coilgun status} show. Cluster-wide parts (nodes, tasks, metrics and their backfills) come from the same
 * reads as the system tables; the node's own figures (events answered, latency) from its meters.
 */
public final class NodeStatusReport {
    /** A task is caught up (ready) within this many records of its partition's end. */
    public static final long READY_LAG_EVENTS = 1_000;

    private final Map<String, Object> self;
    private final QueryData data;
    private final MeterRegistry registry;
    private final BooleanSupplier started;

    /**
     * @param self this node's id, pgwire and http addresses and version
     * @param started whether the node has started (its start-up replay done, pgwire listening)
     */
    public NodeStatusReport(Map<String, Object> self, QueryData data, MeterRegistry registry, BooleanSupplier started) {
        this.self = self;
        this.data = data;
        this.registry = registry;
        this.started = started;
    }

    /** Whether every task this node holds is caught up (lag known and at most {@link #READY_LAG_EVENTS}). */
    public static boolean ready(List<TaskSample> local) {
        for (TaskSample t : local) {
            if (t.lagEvents() < 0 || t.lagEvents() > READY_LAG_EVENTS || !"running".equals(t.state())) {
                return false;
            }
        }
        return true;
    }

    /** The report, with {@code local} the node's tasks as just sampled. */
    public Map<String, Object> build(List<TaskSample> local) {
        Map<String, Object> out = new LinkedHashMap<>();
        Map<String, Object> node = new LinkedHashMap<>();
        for (String k : List.of("id", "pgwire", "http", "version")) {
            node.put(k, self.get(k));
        }
        node.put("uptime_s", ManagementFactory.getRuntimeMXBean().getUptime() / 1000);
        node.put("started", started.getAsBoolean());
        node.put("ready", started.getAsBoolean() && ready(local));
        out.put("node", node);
        out.put("time_ms", System.currentTimeMillis());
        out.put("totals", totals(local));
        out.put("nodes", rows(SystemTables.NODES, data.nodes()));
        out.put("streams", streams());
        List<Map<String, Object>> metrics = new ArrayList<>();
        Map<String, QueryData.Backfill> backfills = data.backfills();
        for (StreamDef s : data.catalog().streams()) {
            for (MetricDef m : data.catalog().metricsOf(s.name())) {
                QueryData.Backfill b = backfills.get(m.name());
                Map<String, Object> row = new LinkedHashMap<>();
                row.put("name", m.name());
                row.put("stream", m.stream());
                row.put("window", m.window().toString());
                row.put("state", b == null ? "running" : "backfilling");
                row.put("backfilled_events", b == null ? null : b.applied());
                row.put("backfill_events", b == null ? null : b.total());
                row.put("backfill_eta_s", b == null || b.etaSeconds() < 0 ? null : b.etaSeconds());
                metrics.add(row);
            }
        }
        out.put("metrics", metrics);
        out.put("tasks", rows(TASK_COLUMNS, data.tasks()));
        out.put("local_tasks", local);
        List<Map<String, Object>> errors = new ArrayList<>();
        for (RecentErrors.Entry e : RecentErrors.latest()) {
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("at", e.at().toString());
            row.put("level", e.level());
            row.put("logger", e.logger());
            row.put("message", e.message());
            errors.add(row);
        }
        out.put("errors", errors);
        return out;
    }

    /** coilgun.tasks' columns: the same names here. */
    private static final List<String> TASK_COLUMNS = List.of("task", "stream_name", "partitioner", "kafka_partition",
            "processor_unit", "stream_time", "next_offset", "metrics", "state", "error", "error_at", "failed_events",
            "node", "replicas", "lag_events", "lag_ms", "copied_bytes", "copy_bytes", "copy_eta_s");

    /**
     * The node's totals: events answered by its active tasks, and their latency (the sums let a reader take the
     * mean of an interval; the quantiles are the worst task's over the last minute).
     */
    private Map<String, Object> totals(List<TaskSample> local) {
        Map<String, Object> t = new LinkedHashMap<>();
        long events = 0;
        long applied = 0;
        for (TaskSample s : local) {
            if ("active".equals(s.role())) {
                events += s.events();
                applied += s.outcome(ReplyStatus.APPLIED);
            }
        }
        t.put("events", events);
        t.put("applied", applied);
        long count = 0;
        double sumMs = 0;
        double[] worst = new double[3];
        for (Timer timer : registry.find("coilgun.event.latency").timers()) {
            count += timer.count();
            sumMs += timer.totalTime(TimeUnit.MILLISECONDS);
            ValueAtPercentile[] p = timer.takeSnapshot().percentileValues();
            for (int i = 0; i < Math.min(3, p.length); i++) {
                worst[i] = Math.max(worst[i], p[i].value(TimeUnit.MILLISECONDS));
            }
        }
        t.put("latency_count", count);
        t.put("latency_sum_ms", sumMs);
        t.put("latency_p50_ms", worst[0]);
        t.put("latency_p99_ms", worst[1]);
        t.put("latency_p999_ms", worst[2]);
        return t;
    }

    private List<Map<String, Object>> streams() {
        List<Map<String, Object>> list = new ArrayList<>();
        Map<String, Object[]> readers = new java.util.HashMap<>();
        for (Object[] r : data.sources()) {
            readers.put((String) r[0], r);
        }
        for (StreamDef s : data.catalog().streams()) {
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("name", s.name());
            row.put("partitions", s.partitionCounts().isEmpty() ? s.partitions() : null); // null: they differ
            row.put("replicas", s.replicas());
            row.put("partition_by", String.join(", ", s.partitionBy()));
            row.put("metrics", data.catalog().metricsOf(s.name()).size());
            Object[] reader = readers.get(s.name());
            // its Kafka topic and this node's reader of it: partitions read here, records behind, state
            row.put("source", s.source() == null ? null : s.source().topic() + (reader == null ? "" : ": " + reader[3]
                    + " partitions here, " + (reader[6] == null ? "lag unknown" : "lag " + reader[6]) + ", "
                    + reader[7]));
            list.add(row);
        }
        return list;
    }

    private static List<Map<String, Object>> rows(List<String> columns, List<Object[]> rows) {
        List<Map<String, Object>> list = new ArrayList<>();
        for (Object[] r : rows) {
            Map<String, Object> row = new LinkedHashMap<>();
            for (int i = 0; i < columns.size() && i < r.length; i++) {
                Object v = r[i];
                row.put(columns.get(i), v instanceof Number || v instanceof Boolean || v == null ? v : v.toString());
            }
            list.add(row);
        }
        return list;
    }
}
