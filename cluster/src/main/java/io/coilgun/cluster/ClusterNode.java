package io.coilgun.cluster;

import io.coilgun.cluster.kafka.KafkaClients;
import io.coilgun.cluster.catalog.CatalogLog;
import io.coilgun.cluster.ingest.EventPublisher;
import io.coilgun.cluster.kafka.TopicAdmin;
import io.coilgun.cluster.kafka.Topics;
import io.coilgun.cluster.reply.ReplyRouter;
import io.coilgun.cluster.task.TaskId;
import io.coilgun.cluster.task.TaskPlacement;
import io.coilgun.cluster.task.TaskProcessor;
import io.coilgun.cluster.unit.ProcessorUnit;
import io.coilgun.planner.model.MetricDef;
import io.coilgun.planner.model.StreamDef;
import io.coilgun.planner.plan.TaskPlan;
import io.coilgun.storage.reservoir.ChunkCache;
import io.coilgun.storage.reservoir.ReservoirIO;
import io.coilgun.cluster.ingest.TaskClock;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.TopicPartition;

/**
 * This node's part of the cluster: the processor units and their tasks, the event publisher and reply router,
 * and the catalog topic. A single node runs every task of every stream; assignment across nodes (consumer
 * group protocol, sticky replicas) is a later issue and will decide which tasks {@link #deployStream} opens here.
 *
 * <p>Threads: {@link #deployStream} and {@link #deployMetric} block on Kafka admin calls and must not run on
 * network or processor threads; {@link #publisher()} is non-blocking.
 */
public final class ClusterNode implements AutoCloseable {
    private final ClusterConfig config;
    private final TopicAdmin admin;
    private final KafkaProducer<byte[], byte[]> producer;
    private final ReplyRouter router;
    private final EventPublisher publisher;
    private final CatalogLog catalog;
    private final List<ProcessorUnit> units = new ArrayList<>();
    private final ReservoirIO reservoirIO = ReservoirIO.defaults();
    private final Map<TaskId, ProcessorUnit> taskUnits = new ConcurrentHashMap<>();
    /** Which tasks run here, on which unit: the seam of the assignor. */
    private final TaskPlacement placement;
    private final io.coilgun.cluster.feed.ResultFeed feed = new io.coilgun.cluster.feed.ResultFeed();

    private ClusterNode(ClusterConfig config, TopicAdmin admin) {
        this.config = config;
        this.admin = admin;
        admin.ensureTopic(Topics.CATALOG, 1, CatalogLog.topicConfig());
        admin.ensureTopic(Topics.replies(config.nodeId()), 1, Map.of("retention.ms", "3600000"));
        this.producer = KafkaClients.producer(config.bootstrapServers(), "coilgun-producer");
        this.catalog = new CatalogLog(config.bootstrapServers(), producer);
        this.router = new ReplyRouter(config.bootstrapServers(), config.nodeId(), config.replyTimeoutMs());
        this.publisher = new EventPublisher(config.nodeId(), producer, router);
        this.placement = new TaskPlacement(config.processorUnits());
        for (int i = 0; i < config.processorUnits(); i++) {
            ProcessorUnit unit = new ProcessorUnit("unit-" + i, config.bootstrapServers(),
                    new ChunkCache(config.chunkCacheChunks(), config.chunkCacheBytes()));
            unit.start();
            units.add(unit);
        }
    }

    /**
     * Connects to Kafka and starts the processor units (with no tasks yet).
     *
     * @throws io.coilgun.cluster.kafka.KafkaUnavailableException if Kafka cannot be reached
     */
    public static ClusterNode start(ClusterConfig config) {
        TopicAdmin admin = new TopicAdmin(config.bootstrapServers(), (short) 1);
        try {
            admin.awaitReachable(config.bootstrapServers(), config.connectTimeoutMs());
            return new ClusterNode(config, admin);
        } catch (RuntimeException e) {
            admin.close();
            throw e;
        }
    }

    public CatalogLog catalog() {
        return catalog;
    }

    /** This node's feed of applied events to subscriptions (SUBSCRIBE). */
    public io.coilgun.cluster.feed.ResultFeed feed() {
        return feed;
    }

    public EventPublisher publisher() {
        return publisher;
    }

    /** Creates the stream's partitioner topics (if missing). Blocking. */
    public void createTopics(StreamDef stream) {
        for (String field : stream.partitionBy()) {
            admin.ensureTopic(Topics.partitioner(stream.name(), field), stream.partitions(), Map.of());
        }
        for (String field : stream.partitionBy()) {
            producer.partitionsFor(Topics.partitioner(stream.name(), field)); // warm metadata: sends never wait
        }
    }

    /**
     * Opens the stream's tasks with the given metrics and starts consuming them after their checkpoints.
     * Blocking until every task runs.
     */
    public void deployStream(StreamDef stream, List<MetricDef> metrics) {
        createTopics(stream);
        List<CompletableFuture<Void>> started = new ArrayList<>();
        for (String field : stream.partitionBy()) {
            List<MetricDef> routed = metrics.stream().filter(m -> m.partitioner().equals(field)).toList();
            TaskClock[] clocks = publisher.registerClocks(Topics.partitioner(stream.name(), field), stream.partitions());
            for (TaskId id : TaskId.allOf(stream, field)) {
                if (!placement.runsHere(id)) {
                    continue;
                }
                ProcessorUnit unit = units.get(placement.unit(id));
                taskUnits.put(id, unit);
                TaskClock clock = clocks[id.partition()];
                started.add(unit.submit(u -> {
                    TaskPlan plan = TaskPlan.open(taskDir(id), stream, routed, reservoirIO, u.chunkCache());
                    TaskProcessor.PlanOpener reopen = (s, m) -> TaskPlan.open(taskDir(id), s, m, reservoirIO,
                            u.chunkCache());
                    u.addTask(new TaskProcessor(id, plan, reopen, producer, feed, clock));
                }));
            }
        }
        CompletableFuture.allOf(started.toArray(CompletableFuture[]::new)).join();
    }

    /**
     * Waits until every task of the streams has taken the records that were in its partition when this was called
     * (at start-up: the records after its checkpoint). Until then a task's stream time does not count them, and the
     * front end's lateness check ({@code EventPublisher.publishAll}) would judge against an older one. Blocking,
     * bounded by {@code timeoutMs}; returns false if some task had not caught up by then.
     */
    public boolean awaitReplayed(List<StreamDef> streams, long timeoutMs) {
        List<TopicPartition> partitions = new ArrayList<>();
        for (StreamDef stream : streams) {
            for (TaskId id : TaskId.all(stream)) {
                partitions.add(id.topicPartition());
            }
        }
        if (partitions.isEmpty()) {
            return true;
        }
        Map<TopicPartition, Long> ends = admin.endOffsets(partitions);
        long deadline = System.currentTimeMillis() + timeoutMs;
        while (true) {
            List<CompletableFuture<Boolean>> checks = new ArrayList<>();
            for (TopicPartition tp : partitions) {
                TaskId id = new TaskId(tp.topic(), tp.partition());
                ProcessorUnit unit = taskUnits.get(id);
                long end = ends.getOrDefault(tp, 0L);
                if (unit != null) {
                    CompletableFuture<Boolean> caughtUp = new CompletableFuture<>();
                    unit.submit(u -> caughtUp.complete(u.task(id) == null || u.task(id).nextOffset() >= end));
                    checks.add(caughtUp);
                }
            }
            boolean all = true;
            for (CompletableFuture<Boolean> c : checks) {
                all &= c.join();
            }
            if (all) {
                return true;
            }
            if (System.currentTimeMillis() > deadline) {
                return false;
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
    }

    /** Gives the running tasks of the stream its new schema version. Blocking until every task has it. */
    public void alterStream(StreamDef stream) {
        onTasks(TaskId.all(stream), (u, id) -> u.task(id).alterStream(stream));
    }

    /**
     * Takes a dropped stream's tasks away: each stops between two events without a checkpoint, then its directory
     * (reservoir and state store) is deleted, then the stream's topics, waiting until Kafka no longer lists them so
     * a stream of the same name can be created at once. Blocking.
     */
    public void dropStream(StreamDef stream) {
        for (String field : stream.partitionBy()) {
            publisher.unregisterClocks(Topics.partitioner(stream.name(), field));
        }
        List<TaskId> tasks = TaskId.all(stream);
        onTasks(tasks, (u, id) -> u.removeTask(id));
        tasks.forEach(taskUnits::remove);
        purgeStream(stream.name());
    }

    /**
     * Deletes whatever a stream of this name left behind: task directories and topics (a drop that a crash
     * interrupted after its catalog record). Called before a stream is created, so it starts from scratch.
     * Blocking.
     */
    public void purgeStream(String name) {
        String prefix = Topics.partitioner(name, "");
        Path tasks = config.dataDir().resolve("tasks");
        if (Files.isDirectory(tasks)) {
            try (var dirs = Files.list(tasks)) {
                for (Path dir : dirs.filter(d -> d.getFileName().toString().startsWith(prefix)).toList()) {
                    deleteRecursively(dir);
                }
            } catch (IOException e) {
                throw new UncheckedIOException("cannot delete the task directories of stream " + name, e);
            }
        }
        admin.deleteTopics(admin.topicsStartingWith(prefix));
    }

    private static void deleteRecursively(Path dir) throws IOException {
        try (var paths = Files.walk(dir)) {
            for (Path path : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        }
    }

    /** Removes a metric from the running tasks of its partitioner. Blocking until every task dropped it. */
    public void dropMetric(StreamDef stream, MetricDef metric) {
        onTasks(TaskId.allOf(stream, metric.partitioner()), (u, id) -> u.task(id).dropMetric(metric.name()));
    }

    /** Adds a metric to the running tasks of its stream's partitioner. Blocking until every task has it. */
    public void deployMetric(StreamDef stream, MetricDef metric) {
        onTasks(TaskId.allOf(stream, metric.partitioner()), (u, id) -> u.task(id).addMetric(metric));
    }

    /**
     * Runs {@code command} for each of {@code tasks} this node runs, on the thread of the unit that owns it, between
     * two events; blocking until every one ran.
     */
    private void onTasks(List<TaskId> tasks, java.util.function.BiConsumer<ProcessorUnit, TaskId> command) {
        List<CompletableFuture<Void>> done = new ArrayList<>();
        for (TaskId id : tasks) {
            ProcessorUnit unit = taskUnits.get(id);
            if (unit != null) {
                done.add(unit.submit(u -> command.accept(u, id)));
            }
        }
        CompletableFuture.allOf(done.toArray(CompletableFuture[]::new)).join();
    }

    /** The name of the processor unit that runs task {@code id}, or null. */
    public String unitOf(TaskId id) {
        ProcessorUnit unit = taskUnits.get(id);
        return unit == null ? null : unit.name();
    }

    /** The number of processor units. */
    public int unitCount() {
        return units.size();
    }

    /**
     * Runs {@code read} on the thread of the unit that owns task {@code id}, between two events; completes with null
     * when this node does not run the task. For reads that must see a consistent task (SELECT over metric state).
     */
    public <T> CompletableFuture<T> onTask(TaskId id, java.util.function.Function<TaskProcessor, T> read) {
        ProcessorUnit unit = taskUnits.get(id);
        if (unit == null) {
            return CompletableFuture.completedFuture(null);
        }
        CompletableFuture<T> result = new CompletableFuture<>();
        unit.submit(u -> {
            TaskProcessor task = u.task(id);
            result.complete(task == null ? null : read.apply(task));
        }).whenComplete((v, e) -> {
            if (e != null) {
                result.completeExceptionally(e);
            }
        });
        return result;
    }

    private Path taskDir(TaskId id) {
        return config.dataDir().resolve("tasks").resolve(id.toString());
    }

    @Override
    public void close() {
        for (ProcessorUnit unit : units) {
            unit.close();
        }
        reservoirIO.close();
        router.close();
        producer.close(java.time.Duration.ofSeconds(5));
        admin.close();
    }
}
