package io.coilgun.cluster.query;

import io.coilgun.cluster.ClusterNode;
import io.coilgun.cluster.ingest.EventPublisher;
import io.coilgun.cluster.task.TaskId;
import io.coilgun.planner.event.GroupKeys;
import io.coilgun.planner.model.ColumnType;
import io.coilgun.planner.model.MetricDef;
import io.coilgun.planner.model.StreamDef;
import io.coilgun.planner.window.MetricOperator;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * Reads a metric's current values (SELECT … FROM metric): for each group, the aggregates over the window that ends at
 * its task's stream time S, with S itself. Reads run on the processor unit that owns each task, between two events,
 * in pages of {@link #PAGE} groups so that a large scan never holds a processor unit for long; a point read (every
 * group-by column given) touches the one task the group is routed to.
 *
 * <p>Blocking: call it from a query thread, never from a network or processor thread.
 */
public final class MetricStateReader {
    /** Groups read per visit to a processor unit. */
    static final int PAGE = 1000;

    private final ClusterNode cluster;

    public MetricStateReader(ClusterNode cluster) {
        this.cluster = cluster;
    }

    /**
     * One group's current values.
     *
     * @param group the group-by values, in the metric's GROUP BY order
     * @param values one per aggregation, as the task reports them (SUM of integers as Long, timestamps as micros)
     * @param streamTime the task's stream time the values are as of (micros), or
     *     {@link io.coilgun.planner.plan.TaskPlan#NO_TIME} before any event
     */
    public record Row(Object[] group, Object[] values, long streamTime) {
    }

    /**
     * Visits the groups of {@code metric}: all of them, or with {@code key} (values of every group-by column, in
     * GROUP BY order) only that group.
     */
    public void read(StreamDef stream, MetricDef metric, Object[] key, Consumer<Row> visitor) {
        ColumnType[] types = metric.groupBy().stream().map(i -> stream.column(i).type()).toArray(ColumnType[]::new);
        if (key != null) {
            int partitionerAt = metric.groupBy().indexOf(stream.columnIndex(metric.partitioner()).orElseThrow());
            // the partition the publisher routes the group's events to
            int partition = EventPublisher.partition(GroupKeys.encodeOne(key[partitionerAt]), stream.partitions());
            byte[] group = GroupKeys.encode(key, allColumns(key.length));
            Row row = cluster.<Row>onTask(TaskId.of(stream, metric.partitioner(), partition), task -> {
                MetricOperator op = task.plan().operator(metric.name());
                Object[] out = new Object[metric.aggregations().size()];
                long s = task.plan().streamTime();
                return op != null && op.current(group, s, out, 0) ? new Row(key.clone(), out, s) : null;
            }).join();
            if (row != null) {
                visitor.accept(row);
            }
            return;
        }
        for (int p = 0; p < stream.partitions(); p++) {
            TaskId id = TaskId.of(stream, metric.partitioner(), p);
            byte[] after = null;
            do {
                Page page = readPage(id, metric, types, after).join();
                if (page == null) {
                    break;
                }
                page.rows.forEach(visitor);
                after = page.next;
            } while (after != null);
        }
    }

    private record Page(List<Row> rows, byte[] next) {
    }

    private CompletableFuture<Page> readPage(TaskId id, MetricDef metric, ColumnType[] types, byte[] after) {
        return cluster.onTask(id, task -> {
            MetricOperator op = task.plan().operator(metric.name());
            if (op == null) {
                return null;
            }
            long s = task.plan().streamTime();
            List<Row> rows = new ArrayList<>();
            byte[] next = op.scanCurrent(after, PAGE, s, new Object[metric.aggregations().size()],
                    (group, values) -> rows.add(new Row(GroupKeys.decode(group, 0, types),
                            Arrays.copyOf(values, values.length), s)));
            return new Page(rows, next);
        });
    }

    private static int[] allColumns(int n) {
        int[] columns = new int[n];
        for (int i = 0; i < n; i++) {
            columns[i] = i;
        }
        return columns;
    }
}
