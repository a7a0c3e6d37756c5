package io.coilgun.server.query;

import io.coilgun.cluster.ClusterNode;
import io.coilgun.cluster.query.MetricStateReader;
import io.coilgun.cluster.reply.ReplyStatus;
import io.coilgun.cluster.task.TaskId;
import io.coilgun.cluster.task.TaskProcessor;
import io.coilgun.planner.plan.FailedEvent;
import io.coilgun.planner.model.Catalog;
import io.coilgun.planner.model.MetricDef;
import io.coilgun.planner.model.StreamDef;
import io.coilgun.planner.plan.TaskPlan;
import io.coilgun.sql.query.QueryData;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/** What SELECT reads from this node: the catalog, and metric state, events and counters from its tasks. */
public final class NodeQueryData implements QueryData {
    /** The stream time a SELECT over a stream looks back from the newest event. */
    static final long RECENT_SPAN_MICROS = 3_600_000_000L;

    private final Catalog catalog;
    private final ClusterNode cluster;
    private final MetricStateReader metrics;
    private final Object[] node;

    /**
     * @param node the row of coilgun.nodes for this node
     */
    public NodeQueryData(Catalog catalog, ClusterNode cluster, Object[] node) {
        this.catalog = catalog;
        this.cluster = cluster;
        this.metrics = new MetricStateReader(cluster);
        this.node = node;
    }

    @Override
    public Catalog catalog() {
        return catalog;
    }

    @Override
    public void metricRows(StreamDef stream, MetricDef metric, Object[] key, Consumer<MetricRow> visitor) {
        metrics.read(stream, metric, key, r -> visitor.accept(new MetricRow(r.group(), r.values(),
                r.streamTime() <= TaskPlan.NO_TIME ? null : r.streamTime())));
    }

    @Override
    public List<Object[]> recentEvents(StreamDef stream, int limit) {
        // Every event is on every partitioner's topic: read the first one's tasks only.
        List<Object[]> events = new ArrayList<>();
        for (TaskId id : TaskId.allOf(stream, stream.partitionBy().get(0))) {
            List<Object[]> some = cluster.onTask(id,
                    task -> task.plan().recentEvents(RECENT_SPAN_MICROS, limit)).join();
            if (some != null) {
                events.addAll(some);
            }
        }
        return events;
    }

    private interface TaskRow {
        Object[] row(StreamDef stream, String field, int partition, TaskId id,
                io.coilgun.cluster.task.TaskProcessor task);
    }

    private List<Object[]> perTask(TaskRow f) {
        List<Object[]> rows = new ArrayList<>();
        for (StreamDef s : catalog.streams()) {
            for (String field : s.partitionBy()) {
                for (int p = 0; p < s.partitions(); p++) {
                    TaskId id = TaskId.of(s, field, p);
                    int partition = p;
                    Object[] row = cluster.onTask(id, task -> f.row(s, field, partition, id, task)).join();
                    if (row != null) {
                        rows.add(row);
                    }
                }
            }
        }
        return rows;
    }

    @Override
    public List<Object[]> tasks() {
        return perTask((s, field, p, id, task) -> {
            long time = task.streamTime();
            return new Object[] {id.toString(), s.name(), field, p, cluster.unitOf(id),
                time <= TaskPlan.NO_TIME ? null : Math.floorDiv(time, 1000L), task.nextOffset(),
                task.metrics().size(), task.state().label(), task.lastError(),
                task.lastErrorAt() == 0 ? null : task.lastErrorAt(), (long) task.failedEvents().size()};
        });
    }

    @Override
    public List<Object[]> failedEvents() {
        List<Object[]> rows = new ArrayList<>();
        for (StreamDef s : catalog.streams()) {
            for (String field : s.partitionBy()) {
                for (int p = 0; p < s.partitions(); p++) {
                    TaskId id = TaskId.of(s, field, p);
                    List<FailedEvent> failed = cluster.onTask(id, TaskProcessor::failedEvents).join();
                    for (FailedEvent f : failed == null ? List.<FailedEvent>of() : failed) {
                        rows.add(new Object[] {id.toString(), s.name(), f.offset(), f.eventId(),
                            f.eventTime() == null ? null : Math.floorDiv(f.eventTime(), 1000L), f.error(),
                            f.failedAtMillis()});
                    }
                }
            }
        }
        return rows;
    }

    @Override
    public List<Object[]> nodes() {
        return List.<Object[]>of(node);
    }

    @Override
    public List<Object[]> statistics() {
        return perTask((s, field, p, id, task) -> {
            long total = 0;
            for (ReplyStatus status : ReplyStatus.values()) {
                total += task.outcomes(status);
            }
            return new Object[] {id.toString(), s.name(), total, task.outcomes(ReplyStatus.APPLIED),
                task.outcomes(ReplyStatus.DUPLICATE), task.outcomes(ReplyStatus.LATE),
                task.outcomes(ReplyStatus.DROPPED), task.outcomes(ReplyStatus.INVALID)
                    + task.outcomes(ReplyStatus.FAILED)};
        });
    }
}
