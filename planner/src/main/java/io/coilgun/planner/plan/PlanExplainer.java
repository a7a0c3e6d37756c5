package io.coilgun.planner.plan;

import io.coilgun.planner.model.AggregationDef;
import io.coilgun.planner.model.Durations;
import io.coilgun.planner.model.MetricDef;
import io.coilgun.planner.model.StreamDef;
import io.coilgun.planner.model.WindowSpec;
import io.coilgun.planner.window.WindowMetric;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * The text of {@code EXPLAIN STREAM} and {@code EXPLAIN METRIC}: per partitioner topic, the task plan as the DAG
 * {@code Window -> Filter -> Group by -> Aggregations} with equal prefixes merged, and the reservoir iterators the
 * windows read through, each shared by every window end at the same lag.
 */
public final class PlanExplainer {
    private PlanExplainer() {
    }

    /** A metric as its SQL reads: the WHERE clause (null when none) and each select item. */
    public record MetricSql(String filter, List<String> aggregations) {
    }

    /**
     * @param sql the SQL text of a metric's filter and aggregations, or null to describe them from the definition
     * @param highlight a metric to mark with {@code <--}, or null
     */
    public static List<String> explain(StreamDef stream, List<MetricDef> metrics, Function<MetricDef, MetricSql> sql,
            String highlight) {
        List<String> out = new ArrayList<>();
        out.add("Stream " + stream.name() + ": partition_by " + String.join(", ", stream.partitionBy()) + ", "
                + partitions(stream) + ", lateness " + Durations.format(stream.latenessMicros())
                + ", late events " + stream.latePolicy().name().toLowerCase(Locale.ROOT) + ", schema version "
                + stream.schemaVersion());
        if (stream.decided()) {
            out.add("Decider of topic coilgun.stream." + stream.name() + ".-decide (one task): judges each event once "
                    + "(duplicate, late) and forwards each accepted event to every partitioner topic below");
        }
        for (String field : stream.partitionBy()) {
            List<MetricDef> routed = metrics.stream().filter(m -> m.partitioner().equals(field)).toList();
            out.add("Task plan of topic coilgun.stream." + stream.name() + "." + field + " (each of its "
                    + stream.partitions(field) + " tasks):");
            if (routed.isEmpty()) {
                out.add("  (no metrics: events are kept in the reservoir)");
                continue;
            }
            // Window -> Filter -> Group by -> metrics, equal prefixes merged
            Map<String, Map<String, Map<String, List<MetricDef>>>> dag = new LinkedHashMap<>();
            for (MetricDef m : routed) {
                MetricSql text = sql.apply(m);
                String f = text == null ? (m.filter() == null ? null : m.filter()) : text.filter();
                String g = String.join(", ", m.groupBy().stream().map(i -> stream.column(i).name()).toList());
                dag.computeIfAbsent(m.window().toString(), k -> new LinkedHashMap<>())
                        .computeIfAbsent(f == null ? "(none)" : f, k -> new LinkedHashMap<>())
                        .computeIfAbsent(g, k -> new ArrayList<>()).add(m);
            }
            dag.forEach((window, filters) -> {
                out.add("  Window " + window);
                filters.forEach((filter, groups) -> {
                    out.add("    Filter " + filter);
                    groups.forEach((group, ms) -> {
                        out.add("      Group by " + group);
                        for (MetricDef m : ms) {
                            MetricSql text = sql.apply(m);
                            out.add("        Aggregate " + m.name() + ": " + (text == null ? aggregations(stream, m)
                                    : String.join(", ", text.aggregations()))
                                    + (m.name().equals(highlight) ? "  <--" : ""));
                        }
                    });
                });
            });
            out.add("  Reservoir iterators (one read per lag, shared by every window end there):");
            TreeMap<Long, List<String>> iterators = new TreeMap<>();
            for (MetricDef m : routed) {
                WindowSpec w = m.window();
                long l = stream.latenessMicros();
                if (w.delayMicros() > 0) {
                    iterators.computeIfAbsent(w.delayMicros(), k -> new ArrayList<>()).add(m.name() + " head");
                    if (m.aggregations().stream().anyMatch(a -> WindowMetric.usesCandidates(a.kind()))) {
                        iterators.computeIfAbsent(w.delayMicros() + l, k -> new ArrayList<>())
                                .add(m.name() + " head settled");
                    }
                }
                if (w.kind() == WindowSpec.Kind.SLIDING) {
                    long tail = w.delayMicros() + w.sizeMicros();
                    iterators.computeIfAbsent(tail, k -> new ArrayList<>()).add(m.name() + " tail");
                }
            }
            if (iterators.isEmpty()) {
                out.add("    (none: every window ends at the arriving event and never expires events one by one)");
            }
            iterators.forEach((lag, users) -> out.add("    lag " + Durations.format(lag) + ": " + String.join(", ",
                    users) + (users.size() > 1 ? "  (shared)" : "")));
            out.add("  Each Filter and Group by is evaluated once per event for all the metrics under it (and for other");
            out.add("  windows' metrics with the same WHERE or GROUP BY); aggregations and group clocks are per metric.");
        }
        return out;
    }

    private static String aggregations(StreamDef stream, MetricDef m) {
        List<String> parts = new ArrayList<>();
        for (AggregationDef a : m.aggregations()) {
            String fn = switch (a.kind()) {
                case COUNT_STAR -> "COUNT(*)";
                case COUNT_DISTINCT -> "COUNT(DISTINCT " + argument(stream, a) + ")";
                default -> a.kind().name() + "(" + argument(stream, a) + ")";
            };
            parts.add(fn + " AS " + a.name());
        }
        return String.join(", ", parts);
    }

    private static String argument(StreamDef stream, AggregationDef a) {
        return a.argument() >= 0 ? stream.column(a.argument()).name() : "<expression>";
    }

    /** "4 partitions per topic", or each topic's when they differ. */
    private static String partitions(StreamDef stream) {
        if (stream.partitionCounts().isEmpty()) {
            return stream.partitions() + " partitions per topic";
        }
        List<String> each = new ArrayList<>();
        for (String field : stream.partitionBy()) {
            each.add(field + " " + stream.partitions(field));
        }
        return "partitions " + String.join(", ", each);
    }
}
