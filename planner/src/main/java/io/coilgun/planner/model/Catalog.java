package io.coilgun.planner.model;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The node's view of streams and metrics, by name. Thread-safe (read by sessions, written when DDL is applied);
 * definitions are immutable records. The durable copy is the catalog topic; this is rebuilt from it at start.
 */
public final class Catalog {
    private final Map<String, StreamDef> streams = new LinkedHashMap<>();
    private final Map<String, MetricDef> metrics = new LinkedHashMap<>();
    private final Map<String, SinkDef> sinks = new LinkedHashMap<>();
    private final Roles roles = new Roles();
    /**
     * Each stream's metrics, made again on every change: every INSERT reads its stream's (its RETURNING columns),
     * without a lock or a new list.
     */
    private volatile Map<String, List<MetricDef>> byStream = Map.of();

    /** The roles, their privileges and the owners of streams, metrics and sinks. */
    public Roles roles() {
        return roles;
    }

    public synchronized Optional<StreamDef> stream(String name) {
        return Optional.ofNullable(streams.get(name));
    }

    public synchronized Optional<MetricDef> metric(String name) {
        return Optional.ofNullable(metrics.get(name));
    }

    public synchronized List<StreamDef> streams() {
        return List.copyOf(streams.values());
    }

    /**
     * Metrics of a stream in creation order: the order of their columns in INSERT … RETURNING. The same (immutable)
     * list until the stream's metrics change.
     */
    public List<MetricDef> metricsOf(String stream) {
        return byStream.getOrDefault(stream, List.of());
    }

    private void indexMetrics() {
        Map<String, List<MetricDef>> index = new HashMap<>();
        for (MetricDef m : metrics.values()) {
            index.computeIfAbsent(m.stream(), s -> new ArrayList<>()).add(m);
        }
        index.replaceAll((s, list) -> List.copyOf(list));
        byStream = Map.copyOf(index);
    }

    /** True if the name is taken by a stream, a metric or a sink (they share one namespace, like Postgres relations). */
    public synchronized boolean exists(String name) {
        return streams.containsKey(name) || metrics.containsKey(name) || sinks.containsKey(name);
    }

    public synchronized Optional<SinkDef> sink(String name) {
        return Optional.ofNullable(sinks.get(name));
    }

    /** Every sink, in creation order. */
    public synchronized List<SinkDef> sinks() {
        return List.copyOf(sinks.values());
    }

    /** The sinks that read a stream: of the stream itself or of one of its metrics. */
    public synchronized List<SinkDef> sinksOf(String stream) {
        return sinks.values().stream().filter(k -> k.stream().equals(stream)).toList();
    }

    public synchronized void addSink(SinkDef sink) {
        sinks.put(sink.name(), sink);
    }

    public synchronized void removeSink(String name) {
        sinks.remove(name);
    }

    public synchronized void addStream(StreamDef stream) {
        streams.put(stream.name(), stream);
    }

    /** Removes a stream and every metric and sink of it. */
    public synchronized void removeStream(String name) {
        streams.remove(name);
        metrics.values().removeIf(m -> m.stream().equals(name));
        sinks.values().removeIf(k -> k.stream().equals(name));
        indexMetrics();
    }

    public synchronized void removeMetric(String name) {
        metrics.remove(name);
        indexMetrics();
    }

    public synchronized void addMetric(MetricDef metric) {
        metrics.put(metric.name(), metric);
        indexMetrics();
    }
}
