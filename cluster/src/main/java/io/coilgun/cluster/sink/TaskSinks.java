package io.coilgun.cluster.sink;

import io.coilgun.planner.model.MetricDef;
import io.coilgun.planner.model.SinkDef;
import io.coilgun.planner.model.StreamDef;
import io.coilgun.planner.plan.TaskPlan;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One task's sinks (only its unit's thread calls it, except {@link #committed}). Every copy makes the records of
 * each event it applies and keeps them until it knows they are in their topics: the active hands them to its
 * {@link SinkWriter} and keeps them until the writer committed them; a replica keeps them until the active's are
 * committed (read every second), so that, promoted, its writer writes those the old active had not. The active's
 * uncommitted records go into each checkpoint ({@link #checkpointing}), so that a copy opened from it (a restart)
 * writes the records of the events before it that were not committed yet; those after it it makes again.
 */
public final class TaskSinks {
    private static final Logger LOG = LoggerFactory.getLogger(TaskSinks.class);
    private static final String META = "sinks";
    /** The most records a copy keeps uncommitted: beyond, the oldest go (a copy promoted then may miss them). */
    static final int MAX_KEPT = 500_000;

    private final TopicPartition task;
    private final SinkRegistry registry;
    private final ArrayDeque<SinkEntry> kept = new ArrayDeque<>();
    private int version = -1;
    private StreamDef shapedStream;
    private List<MetricDef> shapedMetrics;
    private SinkRecordFormat[] formats = new SinkRecordFormat[0];
    private boolean active;
    /** Whether the unit gave the copy its role yet (until then it writes nothing: it may be about to be a replica). */
    private boolean roleKnown;
    private SinkWriter writer;
    /** As a replica: the first offset whose records the active has not committed (every sink's), read every second. */
    private volatile long committedNext = -1;
    private volatile Set<String> groups = Set.of();
    private boolean persisted;
    private long dropped;

    /** The sinks of a task with none ever (a task run without a node: tests): every call does nothing. */
    public static final TaskSinks NONE = new TaskSinks(null, null);

    public TaskSinks(TopicPartition task, SinkRegistry registry) {
        this.task = task;
        this.registry = registry;
    }

    /** The task opened its plan: the records its checkpoint kept uncommitted are kept again. */
    public void opened(TaskPlan plan) {
        if (registry == null) {
            return;
        }
        byte[] meta = plan.meta(META);
        if (meta == null) {
            return;
        }
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(meta))) {
            int n = in.readInt();
            for (int i = 0; i < n; i++) {
                kept.add(new SinkEntry(in.readLong(), in.readUTF(), in.readUTF(), in.readUTF(), bytes(in), bytes(in)));
            }
            persisted = n > 0;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The task applied the event at {@code offset} ({@code plan}'s last event): each of its sinks gets its record.
     * Without sinks it costs a volatile read (the event's values are decoded only for a record).
     */
    public void applied(long offset, StreamDef stream, List<MetricDef> metrics, TaskPlan plan, Object[] results) {
        if (registry == null) {
            return;
        }
        if (version != registry.version() || stream != shapedStream || metrics != shapedMetrics) {
            shape(stream, metrics);
        }
        if (formats.length == 0) {
            return;
        }
        Object[] event = plan.lastEvent();
        long assignedId = plan.assignedId();
        for (SinkRecordFormat f : formats) {
            SinkDef s = f.sink();
            SinkEntry e = new SinkEntry(offset, f.group(), s.name(), s.topic(), f.key(event),
                    f.value(event, assignedId, results));
            kept.addLast(e);
            if (active) {
                writer().offer(e);
            }
        }
        if (kept.size() > MAX_KEPT) {
            trim();
        }
    }

    private void shape(StreamDef stream, List<MetricDef> metrics) {
        version = registry.version();
        shapedStream = stream;
        shapedMetrics = metrics;
        List<SinkRecordFormat> list = new ArrayList<>();
        for (SinkDef s : registry.of(stream.name())) {
            SinkRecordFormat f = SinkRecordFormat.of(s, stream, metrics);
            if (f != null) {
                list.add(f);
            }
        }
        formats = list.toArray(SinkRecordFormat[]::new);
        groups = list.stream().map(SinkRecordFormat::group).collect(Collectors.toUnmodifiableSet());
    }

    private void trim() {
        while (kept.size() > MAX_KEPT) {
            kept.removeFirst();
            if (dropped++ % 100_000 == 0) {
                LOG.warn("task={} keeps more than {} sink records not known to be committed: the oldest go (a copy "
                        + "that takes over now may not write them)", task, MAX_KEPT);
            }
        }
    }

    /** The active's writer. */
    private SinkWriter writer() {
        if (writer == null) {
            writer = new SinkWriter(task, registry);
            writer.start();
        }
        return writer;
    }

    /**
     * The copy's role: the active writes (what it kept first: its writer skips what the sinks' groups have), a
     * replica keeps.
     */
    public void role(boolean active) {
        if (registry == null || roleKnown && active == this.active) {
            return;
        }
        roleKnown = true;
        this.active = active;
        if (active) {
            registry.unwatch(this);
            if (!kept.isEmpty() || formats.length > 0) {
                SinkWriter w = writer();
                for (SinkEntry e : kept) {
                    w.offer(e);
                }
            }
        } else {
            stopWriter();
            registry.watch(this);
        }
    }

    /** Before the task's checkpoint: forget what is committed; the active's checkpoint keeps the rest. */
    public void checkpointing(TaskPlan plan) {
        if (registry == null) {
            return;
        }
        // the active's writer has every record of the events before its last committed one (of that one, maybe not
        // all: one record per sink, handed over one by one)
        long next = active ? (writer == null ? -1 : writer.committedThrough()) : committedNext;
        while (!kept.isEmpty() && kept.peekFirst().offset() < next) {
            kept.removeFirst();
        }
        if (!active || kept.isEmpty() && !persisted) {
            return;
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeInt(kept.size());
            for (SinkEntry e : kept) {
                out.writeLong(e.offset());
                out.writeUTF(e.group());
                out.writeUTF(e.sink());
                out.writeUTF(e.topic());
                writeBytes(out, e.key());
                writeBytes(out, e.value());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        plan.meta(META, bytes.toByteArray());
        persisted = !kept.isEmpty();
    }

    /** The sink groups this task's records go to (the registry's thread). */
    Set<String> groups() {
        return groups;
    }

    /** The registry's thread: what the sinks' groups have committed of this task's partition. */
    void committed(Map<String, Map<TopicPartition, OffsetAndMetadata>> byGroup) {
        long next = Long.MAX_VALUE;
        for (String g : groups) {
            Map<TopicPartition, OffsetAndMetadata> offsets = byGroup.get(g);
            OffsetAndMetadata o = offsets == null ? null : offsets.get(task);
            next = Math.min(next, o == null ? 0 : o.offset());
        }
        if (next != Long.MAX_VALUE) {
            committedNext = next;
        }
    }

    /** The task closes (or stops): its writer stops; what it kept is in its checkpoint. */
    public void close() {
        if (registry == null) {
            return;
        }
        stopWriter();
        registry.unwatch(this);
    }

    private void stopWriter() {
        if (writer != null) {
            writer.close();
            writer = null;
        }
    }

    private static byte[] bytes(DataInputStream in) throws IOException {
        int n = in.readInt();
        if (n < 0) {
            return null;
        }
        byte[] b = new byte[n];
        in.readFully(b);
        return b;
    }

    private static void writeBytes(DataOutputStream out, byte[] b) throws IOException {
        out.writeInt(b == null ? -1 : b.length);
        if (b != null) {
            out.write(b);
        }
    }
}
