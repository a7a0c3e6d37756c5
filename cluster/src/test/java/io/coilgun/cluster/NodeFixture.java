package io.coilgun.cluster;

import io.coilgun.cluster.directory.ClusterDirectory;
import io.coilgun.cluster.ingest.TaskClock;
import io.coilgun.cluster.task.TaskId;
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
import java.nio.file.Path;
import java.util.List;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The rooms of a node without Kafka or units, for their unit tests: stream {@code p} (partitioned by card, one
 * metric) deployed, its tasks' data under a test directory, a directory whose statuses go to a MockProducer, and the
 * peer recovery with its snapshot server on a free port of 127.0.0.1.
 */
final class NodeFixture implements AutoCloseable {
    static final long T0 = 1_700_000_000_000_000L;
    static final StreamDef STREAM = new StreamDef("p", List.of(new StreamColumn("id", ColumnType.BIGINT, false),
            new StreamColumn("ts", ColumnType.TIMESTAMP, false), new StreamColumn("card", ColumnType.VARCHAR, false),
            new StreamColumn("amount", ColumnType.DOUBLE, false)), 1, 0, List.of("card"), 2, 10 * Durations.SECOND,
            LatePolicy.REJECT, "");
    static final MetricDef METRIC = new MetricDef("m", "p", List.of(
            new AggregationDef(AggregationKind.SUM, 3, "total", ColumnType.DOUBLE),
            new AggregationDef(AggregationKind.COUNT_STAR, -1, "n", ColumnType.BIGINT)),
            List.of(2), "card", WindowSpec.sliding(Durations.HOUR), "");
    static final String TOPIC = "coilgun.stream.p.card";
    static final TaskId T0_TASK = new TaskId(TOPIC, 0);
    static final TaskId T1_TASK = new TaskId(TOPIC, 1);

    final ClusterConfig config;
    final Deployments deployments = new Deployments();
    final TaskDirectories directories;
    final NodeTasks tasks = new NodeTasks("n1");
    final MockProducer<byte[], byte[]> producer = new MockProducer<>(true, null, new ByteArraySerializer(),
            new ByteArraySerializer());
    final ClusterDirectory directory;
    final ReservoirIO io = ReservoirIO.defaults();
    final PeerRecovery recovery;

    NodeFixture(Path data) {
        config = new ClusterConfig("n1", "127.0.0.1:1", data, 2, 1000, 1000);
        deployments.deploy(TOPIC, new Deployments.Deployed(STREAM, List.of(METRIC), new TaskClock[] {
            new TaskClock(), new TaskClock()}));
        directories = new TaskDirectories(data);
        directory = new ClusterDirectory(config.bootstrapServers(), "n1", producer); // not started: no Kafka read
        recovery = new PeerRecovery(config, deployments, directories, tasks, directory, io, 10_000);
    }

    /** A copy of task {@code id} on disk, closed, checkpointed after {@code events} events. */
    void closedCopy(TaskId id, int events) {
        EventCodec codec = new EventCodec(STREAM);
        TaskPlan plan = TaskPlan.open(directories.of(id), STREAM, List.of(METRIC), io, new ChunkCache(8, 1 << 20));
        try {
            for (int i = 0; i < events; i++) {
                plan.process(codec.encode(new Object[] {(long) i, T0 + i * 50_000L, "c" + i % 7, 1.0}, 0), i,
                        new Object[4], new Object[plan.resultWidth()]);
            }
            plan.checkpoint();
        } finally {
            plan.close();
        }
    }

    @Override
    public void close() {
        recovery.close();
        io.close();
    }
}
