package io.coilgun.cluster.query;

import io.coilgun.cluster.ingest.EventPublisher;
import io.coilgun.cluster.kafka.ValueCodec;
import io.coilgun.cluster.task.TaskId;
import io.coilgun.cluster.task.TaskProcessor;
import io.coilgun.planner.event.GroupKeys;
import io.coilgun.planner.model.ColumnType;
import io.coilgun.planner.model.MetricDef;
import io.coilgun.planner.model.StreamColumn;
import io.coilgun.planner.model.StreamDef;
import io.coilgun.planner.window.MetricOperator;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;

/**
 * Reads a metric's current values (SELECT … FROM metric): for each group, the aggregates over the window that ends at
 * its task's stream time S, with S itself. Each task is read from the copy leading it, here or on another node
 * ({@link TaskReads}), in pages of {@link #PAGE} groups so that a large scan never holds a processor unit for long; a
 * point read (every group-by column given) touches the one task the group is routed to.
 *
 * <p>Blocking: call it from a query thread, never from a network or processor thread. One instance per node (it
 * answers the other nodes' reads).
 */
public final class MetricStateReader {
    /** Groups read per visit to a processor unit. */
    static final int PAGE = 1000;
    /** The read of a page of a metric's groups in a task, by another node. */
    static final String READ = "metric.read";

    private final TaskReads reads;

    public MetricStateReader(TaskReads reads) {
        this.reads = reads;
        reads.serve(READ, MetricStateReader::page);
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
        int width = metric.aggregations().size();
        if (key != null) {
            int partitionerAt = metric.groupBy().indexOf(stream.columnIndex(metric.partitioner()).orElseThrow());
            // the partition the publisher routes the group's events to
            int partition = EventPublisher.partition(GroupKeys.encodeOne(key[partitionerAt]),
                    stream.partitions(metric.partitioner()));
            byte[] group = GroupKeys.encode(key, allColumns(key.length));
            TaskId id = TaskId.of(stream, metric.partitioner(), partition);
            Page page = decode(reads.read(id, READ, request(metric.name(), width, group, null), MetricStateReader::page));
            if (!page.rows.isEmpty()) {
                visitor.accept(new Row(key.clone(), page.rows.get(0).values, page.streamTime));
            }
            return;
        }
        for (int p = 0; p < stream.partitions(metric.partitioner()); p++) {
            TaskId id = TaskId.of(stream, metric.partitioner(), p);
            byte[] after = null;
            do {
                Page page = decode(reads.read(id, READ, request(metric.name(), width, null, after),
                        MetricStateReader::page));
                for (GroupValues g : page.rows) {
                    visitor.accept(new Row(atColumnScales(stream, metric, GroupKeys.decode(g.group, 0, types)),
                            g.values, page.streamTime));
                }
                after = page.next;
            } while (after != null);
        }
    }

    /**
     * A group's values with each NUMERIC(p, s) column's value at its scale again (a key keeps a numeric without
     * trailing zeros: 1.50 and 1.5 are one group).
     */
    private static Object[] atColumnScales(StreamDef stream, MetricDef metric, Object[] group) {
        for (int i = 0; i < group.length; i++) {
            StreamColumn c = stream.column(metric.groupBy().get(i));
            if (group[i] instanceof BigDecimal d && c.scale() >= 0) {
                group[i] = d.setScale(c.scale());
            }
        }
        return group;
    }

    /** One group's encoded key and values. */
    private record GroupValues(byte[] group, Object[] values) {
    }

    /** Up to a page of a task's groups, as of its stream time; {@code next} the cursor of the page after, or null. */
    private record Page(List<GroupValues> rows, long streamTime, byte[] next) {
    }

    /** The read of the one group {@code group}, or of the groups after {@code after}. */
    private static byte[] request(String metric, int width, byte[] group, byte[] after) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(64);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeUTF(metric);
            out.writeShort(width);
            ValueCodec.writeBytes(out, group);
            ValueCodec.writeBytes(out, after);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    /** On the task's unit thread: the page a request asks for (no rows when the task does not have the metric). */
    private static byte[] page(TaskProcessor task, byte[] request) {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(request))) {
            String metric = in.readUTF();
            Object[] out = new Object[in.readShort()];
            byte[] group = ValueCodec.readBytes(in);
            byte[] after = ValueCodec.readBytes(in);
            MetricOperator op = task.plan().operator(metric);
            long s = task.plan().streamTime();
            List<GroupValues> rows = new ArrayList<>();
            byte[] next = null;
            if (op != null && group != null) {
                if (op.current(group, s, out, 0)) {
                    rows.add(new GroupValues(group, out));
                }
            } else if (op != null) {
                next = op.scanCurrent(after, PAGE, s, out, (g, values) -> rows.add(
                        new GroupValues(Arrays.copyOf(g, g.length), Arrays.copyOf(values, values.length))));
            }
            return encode(new Page(rows, s, next));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static byte[] encode(Page page) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(256);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeLong(page.streamTime);
            out.writeInt(page.rows.size());
            for (GroupValues g : page.rows) {
                ValueCodec.writeBytes(out, g.group);
                ValueCodec.writeAll(out, g.values);
            }
            ValueCodec.writeBytes(out, page.next);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    private static Page decode(byte[] answer) {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(answer))) {
            long s = in.readLong();
            int n = in.readInt();
            List<GroupValues> rows = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                rows.add(new GroupValues(ValueCodec.readBytes(in), ValueCodec.readAll(in)));
            }
            return new Page(rows, s, ValueCodec.readBytes(in));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static int[] allColumns(int n) {
        int[] columns = new int[n];
        for (int i = 0; i < n; i++) {
            columns[i] = i;
        }
        return columns;
    }
}
