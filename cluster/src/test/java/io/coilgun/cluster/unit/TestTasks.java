package io.coilgun.cluster.unit;

import io.coilgun.cluster.assign.ClusterView;
import io.coilgun.cluster.assign.TaskPlacements;
import io.coilgun.cluster.assign.UnitInfo;
import io.coilgun.cluster.kafka.KafkaHeaders;
import io.coilgun.cluster.reply.ReplyCodec;
import io.coilgun.cluster.task.TaskId;
import io.coilgun.cluster.task.TaskProcessor;
import io.coilgun.cluster.task.TaskRole;
import io.coilgun.planner.event.EventCodec;
import io.coilgun.planner.model.AggregationDef;
import io.coilgun.planner.model.AggregationKind;
import io.coilgun.planner.model.ColumnType;
import io.coilgun.planner.model.Durations;
import io.coilgun.planner.model.LatePolicy;
import io.coilgun.planner.model.MetricDef;
import io.coilgun.planner.model.StreamColumn;
import io.coilgun.planner.model.StreamDef;
import io.coilgun.planner.model.WindowSpec;
import io.coilgun.planner.plan.TaskPlan;
import io.coilgun.storage.reservoir.ChunkCache;
import io.coilgun.storage.reservoir.ReservoirIO;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;

/**
 * What the unit package's tests share: real task processors (a task plan in a temporary directory, replies caught in
 * a list), their events, cluster views, and a {@link UnitHost} that opens tasks there and records what the unit tells
 * it.
 */
class TestTasks implements UnitHost, AutoCloseable {
    static final String TOPIC = "coilgun.stream.p.card";
    static final TopicPartition TP0 = new TopicPartition(TOPIC, 0);
    static final TopicPartition TP1 = new TopicPartition(TOPIC, 1);
    static final long T0 = 1_700_000_000_000_000L;
    static final StreamDef STREAM = new StreamDef("p", List.of(new StreamColumn("id", ColumnType.BIGINT, false),
            new StreamColumn("ts", ColumnType.TIMESTAMP, false), new StreamColumn("card", ColumnType.VARCHAR, false),
            new StreamColumn("amount", ColumnType.DOUBLE, false)), 1, 0, List.of("card"), 2, 10 * Durations.SECOND,
            LatePolicy.REJECT, "");
    static final MetricDef METRIC = new MetricDef("m", "p", List.of(
            new AggregationDef(AggregationKind.SUM, 3, "total", ColumnType.DOUBLE)),
            List.of(2), "card", WindowSpec.sliding(5 * Durations.MINUTE), "");

    private final Path dir;
    private final ReservoirIO io = ReservoirIO.defaults();
    private final EventCodec codec = new EventCodec(STREAM);
    private final MeterRegistry meters = new SimpleMeterRegistry();
    /** The tasks opened, and those released, in order. */
    final List<TaskProcessor> opened = new CopyOnWriteArrayList<>();
    final List<TaskId> released = new CopyOnWriteArrayList<>();
    /** The tasks opened and not released yet. */
    private final Set<TaskId> held = ConcurrentHashMap.newKeySet();
    /** Whether the host copies a task from a peer before it is opened ({@link #recoverFirst}): the answer to give. */
    volatile Boolean copyFirst;
    /** The copy's completion, handed over by {@link #recoverFirst} when {@link #copyFirst} is set. */
    volatile Consumer<Boolean> copyDone;
    /** The replies the tasks sent. */
    final List<Object> replies = new CopyOnWriteArrayList<>();

    TestTasks(Path dir) {
        this.dir = dir;
    }

    /** A task processor of task {@code tp} over a plan in its own directory (where it was left, if reopened). */
    TaskProcessor task(TopicPartition tp) {
        Path at = dir.resolve(tp.toString());
        TaskProcessor.PlanOpener plans = (s, m) -> TaskPlan.open(at, s, m, io, new ChunkCache(8, 1 << 20));
        return new TaskProcessor(TaskId.of(tp), plans.open(STREAM, List.of(METRIC)), replies::add);
    }

    /** An event of {@code tp} at {@code offset}, whose publisher waits for its reply. */
    ConsumerRecord<byte[], byte[]> event(TopicPartition tp, long offset) {
        ConsumerRecord<byte[], byte[]> r = new ConsumerRecord<>(tp.topic(), tp.partition(), offset,
                "c1".getBytes(StandardCharsets.UTF_8), codec.encode(new Object[] {offset, T0 + offset, "c1", 1.0}, 0));
        r.headers().add(KafkaHeaders.REPLY_TO, "n1".getBytes(StandardCharsets.UTF_8));
        r.headers().add(KafkaHeaders.CORRELATION, ReplyCodec.correlationKey(offset));
        return r;
    }

    /** A view of generation {@code generation} placing each task: {@code member} active, then its replicas. */
    static ClusterView view(int generation, Map<TopicPartition, List<String>> copies) {
        Map<TaskId, TaskPlacements.Copies> tasks = new HashMap<>();
        copies.forEach((tp, members) -> tasks.put(TaskId.of(tp),
                new TaskPlacements.Copies(members.get(0), new ArrayList<>(members.subList(1, members.size())))));
        return new ClusterView(generation, Map.of(), new TaskPlacements(tasks));
    }

    @Override
    public String nodeId() {
        return "n1";
    }

    @Override
    public TaskProcessor open(TaskId id, ProcessorUnit unit, BooleanSupplier wanted) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!held.add(id)) { // as a node: a copy still open here is closed first (one store, opened once)
            if (!wanted.getAsBoolean()) {
                return null;
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("task " + id + " is still held");
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
        }
        TaskProcessor task = task(id.topicPartition());
        opened.add(task);
        return task;
    }

    @Override
    public boolean recoverFirst(TaskId id, TaskRole role, long logStart, ProcessorUnit unit,
            Consumer<Boolean> whenDone) {
        if (copyFirst == null) {
            return false;
        }
        copyDone = whenDone;
        return true;
    }

    @Override
    public void released(TaskId id, ProcessorUnit unit) {
        held.remove(id);
        released.add(id);
    }

    @Override
    public int copies(String topic) {
        return 2;
    }

    @Override
    public Map<TaskId, UnitInfo.Held> staleTasks() {
        return Map.of();
    }

    @Override
    public void placed(ClusterView view) {
    }

    @Override
    public MeterRegistry meters() {
        return meters;
    }

    /** Closes the reservoirs' I/O: the tests close (or release) their tasks first. */
    @Override
    public void close() {
        io.close();
    }
}
