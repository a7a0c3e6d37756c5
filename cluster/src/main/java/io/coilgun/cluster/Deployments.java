package io.coilgun.cluster;

import io.coilgun.cluster.ingest.TaskClock;
import io.coilgun.planner.model.MetricDef;
import io.coilgun.planner.model.StreamDef;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

/**
 * The streams and metrics deployed on this node, by partitioner topic: what a task opened here runs. Also each
 * metric's version (the catalog offset of its CREATE METRIC), which its start markers carry, so that a marker of an
 * earlier metric of the same name (dropped since) starts nothing. Thread-safe: DDL changes it, units read it.
 */
final class Deployments {
    /** A stream's partitioner topic as deployed here: its definition, the metrics it routes, the tasks' clocks. */
    record Deployed(StreamDef stream, List<MetricDef> metrics, TaskClock[] clocks) {
    }

    private final Map<String, Deployed> byTopic = new ConcurrentHashMap<>();
    private final Map<String, Long> metricVersions = new ConcurrentHashMap<>();

    void deploy(String topic, Deployed deployed) {
        byTopic.put(topic, deployed);
    }

    /** The stream deployed under {@code topic} no longer is (dropped). */
    void remove(String topic) {
        byTopic.remove(topic);
    }

    Deployed get(String topic) {
        return byTopic.get(topic);
    }

    boolean contains(String topic) {
        return byTopic.containsKey(topic);
    }

    /** The partitioner topics deployed here now (a copy). */
    Set<String> topics() {
        return Set.copyOf(byTopic.keySet());
    }

    /** The stream deployed under {@code topic}, or null. */
    StreamDef stream(String topic) {
        Deployed d = byTopic.get(topic);
        return d == null ? null : d.stream();
    }

    /** The metric {@code name} as deployed on {@code topic}, or null. */
    MetricDef metric(String topic, String name) {
        Deployed d = byTopic.get(topic);
        return d == null ? null : d.metrics().stream().filter(m -> m.name().equals(name)).findFirst().orElse(null);
    }

    /** The copies the tasks of {@code topic} want: its stream's replicas (1 when nothing is deployed there). */
    int copies(String topic) {
        Deployed d = byTopic.get(topic);
        return d == null ? 1 : d.stream().replicas();
    }

    /** The stream's new definition (a new schema version) for every partitioner topic of it. */
    void alter(StreamDef stream) {
        byTopic.replaceAll((topic, d) -> d.stream().name().equals(stream.name())
                ? new Deployed(stream, d.metrics(), d.clocks()) : d);
    }

    /** Adds (or replaces) {@code metric} on {@code topic}, at {@code version}. */
    void addMetric(String topic, MetricDef metric, long version) {
        metricVersions.put(metric.name(), version);
        byTopic.computeIfPresent(topic, (t, d) -> new Deployed(d.stream(), Stream.concat(
                d.metrics().stream().filter(m -> !m.name().equals(metric.name())), Stream.of(metric)).toList(),
                d.clocks()));
    }

    /** Removes metric {@code name} from {@code topic} and forgets its version. */
    void dropMetric(String topic, String name) {
        metricVersions.remove(name);
        byTopic.computeIfPresent(topic, (t, d) -> new Deployed(d.stream(), d.metrics().stream()
                .filter(m -> !m.name().equals(name)).toList(), d.clocks()));
    }

    /** Notes a metric's version (recovery: the offset of its CREATE METRIC in the catalog). */
    void metricVersion(String metric, long version) {
        metricVersions.put(metric, version);
    }

    /** A start marker's value: the metric's name and version ({@code name@version}, -1 when not known). */
    String marker(String metric) {
        return metric + "@" + metricVersions.getOrDefault(metric, -1L);
    }

    /**
     * The metric a start marker ({@code name@version}) starts on {@code topic}: its definition when that version is
     * the one deployed here (or either is unknown), else null (a marker of a metric dropped since, or not known yet).
     */
    MetricDef startedBy(String topic, String marker) {
        int at = marker.lastIndexOf('@');
        String name = at < 0 ? marker : marker.substring(0, at);
        long version = at < 0 ? -1 : Long.parseLong(marker.substring(at + 1));
        MetricDef def = metric(topic, name);
        Long deployedVersion = metricVersions.get(name);
        return def != null && (version < 0 || deployedVersion == null || deployedVersion < 0
                || deployedVersion == version) ? def : null;
    }
}
