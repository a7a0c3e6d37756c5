package io.coilgun.cluster;

import io.coilgun.cluster.assign.ClusterView;
import io.coilgun.cluster.assign.UnitInfo;
import io.coilgun.cluster.catalog.CatalogLog;
import io.coilgun.cluster.directory.ClusterDirectory;
import io.coilgun.cluster.directory.NodeStatus;
import io.coilgun.cluster.feed.ClusterFeed;
import io.coilgun.cluster.ingest.EventPublisher;
import io.coilgun.cluster.ingest.TaskClock;
import io.coilgun.cluster.kafka.KafkaClients;
import io.coilgun.cluster.kafka.TopicAdmin;
import io.coilgun.cluster.kafka.Topics;
import io.coilgun.cluster.peer.PeerLink;
import io.coilgun.cluster.query.MetricStateReader;
import io.coilgun.cluster.query.RecentEventReader;
import io.coilgun.cluster.query.TaskReads;
import io.coilgun.cluster.recovery.PeerCopy;
import io.coilgun.cluster.recovery.RecoverySources;
import io.coilgun.cluster.recovery.SnapshotServer;
import io.coilgun.cluster.recovery.TaskRecoveries;
import io.coilgun.cluster.recovery.TransferLimiter;
import io.coilgun.cluster.reply.ReplyRouter;
import io.coilgun.cluster.reply.ReplySender;
import io.coilgun.cluster.task.TaskId;
import io.coilgun.cluster.task.TaskProcessor;
import io.coilgun.cluster.task.TaskRole;
import io.coilgun.cluster.unit.BackgroundBudget;
import io.coilgun.cluster.unit.ProcessorUnit;
import io.coilgun.cluster.unit.UnitHost;
import io.coilgun.planner.model.MetricDef;
import io.coilgun.planner.model.StreamDef;
import io.coilgun.planner.plan.TaskPlan;
import io.coilgun.storage.reservoir.ChunkCache;
import io.coilgun.storage.reservoir.ReservoirIO;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This node's part of the cluster: the processor units and their tasks, the event publisher and reply router,
 * and the catalog topic. The units' active consumers are members of the cluster's task group
 * ({@link Topics#TASK_GROUP}): Kafka's group protocol and {@link io.coilgun.cluster.assign.CoilgunAssignor} decide
 * which tasks each unit leads and which it keeps a hot replica of. Deploying a stream here only subscribes the units
 * to its topics; the tasks open where the assignment puts them.
 *
 * <p>Threads: {@link #deployStream} and {@link #deployMetric} block on Kafka admin calls and must not run on
 * network or processor threads; {@link #publisher()} is non-blocking.
 */
public final class ClusterNode implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ClusterNode.class);
    /** How long a unit's consumer may go silent before the group gives its tasks to others (kill -9, a hang). */
    static final int SESSION_TIMEOUT_MS = 6000;
    /** How long DDL waits for the group to place a new stream's tasks. */
    private static final long PLACEMENT_TIMEOUT_MS = 60_000;

    /** A stream's partitioner topic as deployed here: its definition, the metrics it routes, the tasks' clocks. */
    private record Deployed(StreamDef stream, List<MetricDef> metrics, TaskClock[] clocks) {
    }
    private final ClusterConfig config;
    private final TopicAdmin admin;
    private final KafkaProducer<byte[], byte[]> producer;
    private final ReplyRouter router;
    /** How tasks answer: this node's own front end directly, other nodes' through their reply topics. */
    private final ReplySender replySender;
    /** Requests to and from the other nodes (reads and subscriptions over their tasks). */
    private final PeerLink peers;
    private final ClusterFeed clusterFeed;
    private final MetricStateReader metricState;
    private final RecentEventReader recentEvents;
    /** How far back SELECT … FROM stream looks in each task's reservoir (micros): an hour of stream time. */
    public static final long RECENT_SPAN_MICROS = 3_600_000_000L;
    private final EventPublisher publisher;
    private final CatalogLog catalog;
    private final List<ProcessorUnit> units = new ArrayList<>();
    private final ReservoirIO reservoirIO = ReservoirIO.defaults();
    /** The unit of this node holding each task (active or replica): one at a time. */
    private final Map<TaskId, ProcessorUnit> taskUnits = new ConcurrentHashMap<>();
    /**
     * Each deployed metric's version: the catalog offset of its CREATE METRIC, which its start markers carry, so a
     * marker of an earlier metric of the same name (dropped since) starts nothing.
     */
    private final Map<String, Long> metricVersions = new ConcurrentHashMap<>();
    /** The streams deployed here, by partitioner topic: what a task opened on this node runs. */
    private final Map<String, Deployed> deployed = new ConcurrentHashMap<>();
    /** The placement of the latest rebalance. */
    private volatile ClusterView view = ClusterView.EMPTY;
    /** The catalog topic and every node's status, followed on one thread. */
    private final ClusterDirectory directory;
    /** The offset of the last catalog record this node applied (or skipped as its own). */
    private volatile long catalogApplied = -1;
    private volatile String pgwire = "";
    private volatile String version = "";
    private final java.util.concurrent.ScheduledExecutorService statusTimer =
            java.util.concurrent.Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "coilgun-status");
                t.setDaemon(true);
                return t;
            });
    private final io.coilgun.cluster.feed.ResultFeed feed = new io.coilgun.cluster.feed.ResultFeed();
    /** A task a unit of this node waits for, while it is copied from a peer. */
    private record Recovering(ProcessorUnit unit, TaskRole role) {
    }
    private final Map<TaskId, Recovering> recovering = new ConcurrentHashMap<>();
    /** Tasks no unit holds whose data a peer is being given a snapshot of: not opened meanwhile. */
    private final Set<TaskId> snapshotting = ConcurrentHashMap.newKeySet();
    /** The checkpointed offsets of this node's stale copies (read once each: a closed copy does not change). */
    private final Map<TaskId, Long> staleOffsets = new ConcurrentHashMap<>();
    private final Host host;
    /**
     * The share of a core background work (backfills, replays) may take, less while the machine's CPUs are busy
     * ({@link BackgroundBudget}): the rest is left to live events, Kafka and the front end.
     */
    private final BackgroundBudget backgroundBudget = BackgroundBudget.fromSystemProperties();
    /** Where the start-up replay and the drain report their progress (the command line's progress bars). */
    private volatile Progress progress = Progress.NONE;
    /** Where the units' and tasks' timers go (the server's Prometheus registry, or nowhere). */
    private final io.micrometer.core.instrument.MeterRegistry meters;
    /** Logs the units' long steps and the node's pauses (what a live event's rare long wait came from). */
    private final io.coilgun.cluster.unit.StallWatchdog watchdog;
    /** Serves copies of this node's tasks to the peers that recover them. */
    private final SnapshotServer snapshots;
    /** The copies of tasks this node makes from its peers. */
    private final TaskRecoveries recoveries;
    /**
     * A task whose copy on a peer is at least this many events ahead of this node's (or whose history Kafka no
     * longer holds) is copied from the peer rather than replayed from Kafka.
     */
    static final long COPY_MIN_EVENTS = Long.getLong("coilgun.peerCopyMinEvents", 10_000);

    private ClusterNode(ClusterConfig config, TopicAdmin admin, io.micrometer.core.instrument.MeterRegistry meters) {
        this.config = config;
        this.admin = admin;
        this.meters = meters;
        admin.ensureTopic(Topics.CATALOG, 1, CatalogLog.topicConfig());
        admin.ensureTopic(Topics.replies(config.nodeId()), 1, Map.of("retention.ms", "3600000"));
        admin.ensureTopic(Topics.NODES, 1, Map.of("cleanup.policy", "compact"));
        admin.ensureTopic(Topics.peer(config.nodeId()), 1, Map.of("retention.ms", "600000"));
        this.producer = KafkaClients.producer(config.bootstrapServers(), "coilgun-producer");
        this.catalog = new CatalogLog(config.bootstrapServers(), producer);
        this.router = new ReplyRouter(config.bootstrapServers(), config.nodeId(), config.replyTimeoutMs());
        this.replySender = router.sender(producer);
        this.publisher = new EventPublisher(config.nodeId(), producer, router);
        this.directory = new ClusterDirectory(config.bootstrapServers(), config.nodeId(), producer);
        directory.followStatuses();
        this.peers = new PeerLink(config.bootstrapServers(), config.nodeId(), producer);
        this.clusterFeed = new ClusterFeed(this, feed);
        try {
            this.snapshots = SnapshotServer.start(config.peerHost(), config.peerPort(),
                    config.dataDir().resolve("snapshots"), this::snapshot,
                    new TransferLimiter(config.recoveryBytesPerSecond()));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start the snapshot server on " + config.peerHost() + ":"
                    + config.peerPort(), e);
        }
        this.recoveries = new TaskRecoveries(config.dataDir(), 2);
        TaskReads reads = new TaskReads(this);
        this.metricState = new MetricStateReader(reads);
        this.recentEvents = new RecentEventReader(reads, RECENT_SPAN_MICROS);
        this.host = new Host();
        for (int i = 0; i < config.processorUnits(); i++) {
            ProcessorUnit unit = new ProcessorUnit(i, config.bootstrapServers(), Topics.TASK_GROUP,
                    SESSION_TIMEOUT_MS, host, new ChunkCache(config.chunkCacheChunks(), config.chunkCacheBytes()));
            unit.start();
            units.add(unit);
        }
        this.watchdog = io.coilgun.cluster.unit.StallWatchdog.start(units, meters, config.nodeId());
        resubscribe(); // the units join the task group now: the node is part of the cluster's view
        statusTimer.scheduleWithFixedDelay(this::publishStatus, 1, 1, java.util.concurrent.TimeUnit.SECONDS);
    }

    /**
     * Connects to Kafka and starts the processor units (with no tasks yet).
     *
     * @throws io.coilgun.cluster.kafka.KafkaUnavailableException if Kafka cannot be reached
     */
    public static ClusterNode start(ClusterConfig config) {
        return start(config, new io.micrometer.core.instrument.composite.CompositeMeterRegistry());
    }

    /**
     * Connects to Kafka and starts the processor units (with no tasks yet); the units and tasks record their timers
     * in {@code meters}.
     *
     * @throws io.coilgun.cluster.kafka.KafkaUnavailableException if Kafka cannot be reached
     */
    public static ClusterNode start(ClusterConfig config, io.micrometer.core.instrument.MeterRegistry meters) {
        TopicAdmin admin = new TopicAdmin(config.bootstrapServers());
        try {
            admin.awaitReachable(config.bootstrapServers(), config.connectTimeoutMs());
            return new ClusterNode(config, admin, meters);
        } catch (RuntimeException e) {
            admin.close();
            throw e;
        }
    }

    public CatalogLog catalog() {
        return catalog;
    }

    /** The feed of applied events to subscriptions (SUBSCRIBE), from every node's tasks. */
    public ClusterFeed feed() {
        return clusterFeed;
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
     * Deploys the stream with the given metrics on this node: its topics exist, the units subscribe to them, and the
     * group places its tasks (some of which may run here). Blocking until every task of the stream has an active
     * unit somewhere (or a minute passed: then the tasks start when the group gets to it).
     */
    public void deployStream(StreamDef stream, List<MetricDef> metrics) {
        deployStream(stream, metrics, true);
    }

    /**
     * As {@link #deployStream(StreamDef, List)}; {@code awaitPlacement} false returns once the units subscribed (a
     * DDL another node made: that node waits for the placement).
     */
    public void deployStream(StreamDef stream, List<MetricDef> metrics, boolean awaitPlacement) {
        createTopics(stream);
        for (String field : stream.partitionBy()) {
            String topic = Topics.partitioner(stream.name(), field);
            List<MetricDef> routed = metrics.stream().filter(m -> m.partitioner().equals(field)).toList();
            TaskClock[] clocks = publisher.registerClocks(topic, stream.partitions());
            deployed.put(topic, new Deployed(stream, routed, clocks));
        }
        resubscribe();
        if (awaitPlacement && !awaitPlaced(TaskId.all(stream), PLACEMENT_TIMEOUT_MS)) {
            LOG.warn("stream={} not every task has a unit after {} ms; they start when the group places them",
                    stream.name(), PLACEMENT_TIMEOUT_MS);
        }
    }

    /** Tells every unit the topics deployed here; blocking until each took them. */
    private void resubscribe() {
        Set<String> topics = Set.copyOf(deployed.keySet());
        CompletableFuture.allOf(units.stream().map(u -> u.submit(x -> x.subscribe(topics)))
                .toArray(CompletableFuture[]::new)).join();
    }

    /**
     * Waits (up to a minute) until the group placed every task of the stream; logs when it did not. For DDL, once
     * every node subscribed to the stream's topics.
     */
    public void awaitPlaced(StreamDef stream) {
        if (!awaitPlaced(TaskId.all(stream), PLACEMENT_TIMEOUT_MS)) {
            LOG.warn("stream={} not every task has a unit after {} ms; they start when the group places them",
                    stream.name(), PLACEMENT_TIMEOUT_MS);
        }
    }

    /** Waits until the group's placement gives each of {@code tasks} an active unit. */
    private boolean awaitPlaced(List<TaskId> tasks, long timeoutMs) {
        long deadline = System.currentTimeMillis() + timeoutMs;
        while (true) {
            ClusterView v = view;
            if (tasks.stream().allMatch(t -> v.activeOf(t) != null
                    && (!v.activeOf(t).node().equals(config.nodeId()) || taskUnits.containsKey(t)))) {
                return true;
            }
            if (System.currentTimeMillis() > deadline) {
                return false;
            }
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
    }

    /** The placement of the latest rebalance: which unit of which node leads each task and which replicate it. */
    public ClusterView view() {
        return view;
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
        if (!awaitPlaced(partitions.stream().map(TaskId::of).toList(), timeoutMs)) {
            return false;
        }
        Map<TopicPartition, Long> ends = admin.endOffsets(partitions);
        long began = System.currentTimeMillis();
        long deadline = began + timeoutMs;
        long nextReport = began + 1000;
        boolean reported = false;
        Map<TopicPartition, Long> from = new java.util.HashMap<>(); // where each task was at the first look
        while (true) {
            Map<TopicPartition, CompletableFuture<Long>> checks = new java.util.LinkedHashMap<>();
            for (TopicPartition tp : partitions) {
                TaskId id = new TaskId(tp.topic(), tp.partition());
                ProcessorUnit unit = taskUnits.get(id);
                long end = ends.getOrDefault(tp, 0L);
                if (unit != null) {
                    CompletableFuture<Long> at = new CompletableFuture<>();
                    // a stopped task (its history lost, say) does not catch up: nothing to wait for
                    unit.submit(u -> at.complete(u.task(id) == null
                            || u.task(id).state() == io.coilgun.cluster.task.TaskState.FAILED ? end
                            : Math.min(end, u.task(id).nextOffset())));
                    checks.put(tp, at);
                }
            }
            boolean all = true;
            long done = 0;
            long total = 0;
            for (Map.Entry<TopicPartition, CompletableFuture<Long>> c : checks.entrySet()) {
                long at = c.getValue().join();
                long end = ends.getOrDefault(c.getKey(), 0L);
                long start = from.computeIfAbsent(c.getKey(), k -> at);
                all &= at >= end;
                done += at - start;
                total += Math.max(0, end - start);
            }
            long now = System.currentTimeMillis();
            if (all || now >= nextReport) {
                if (!all || reported) {
                    progress.report(Progress.REPLAY, all ? total : done, total);
                    reported = true;
                }
                nextReport = now + 1000;
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

    /**
     * Asks the task group to rebalance (what the tasks want changed: ALTER STREAM … SET (replicas)). Not awaited:
     * the rebalance runs within the next poll of this node's first unit.
     */
    public void rebalance() {
        if (!units.isEmpty()) {
            units.get(0).submit(u -> u.rebalanceIn(0));
        }
    }

    /** Gives the running tasks of the stream its new schema version. Blocking until every task has it. */
    public void alterStream(StreamDef stream) {
        deployed.replaceAll((topic, d) -> d.stream().name().equals(stream.name())
                ? new Deployed(stream, d.metrics(), d.clocks()) : d);
        onTasks(TaskId.all(stream), (u, id) -> {
            TaskProcessor task = u.task(id);
            if (task != null && task.stream().schemaVersion() < stream.schemaVersion()) {
                task.alterStream(stream);
            }
        });
    }

    /**
     * Takes a dropped stream's tasks away on this node: each stops between two events without a checkpoint, the
     * units unsubscribe from its topics, and the task directories (reservoirs and state stores) are deleted. The
     * topics stay ({@link #deleteTopics}: the node that ran the DROP deletes them once every node applied it).
     * Blocking.
     */
    public void dropStreamLocally(StreamDef stream) {
        Set<String> topics = new java.util.HashSet<>();
        for (String field : stream.partitionBy()) {
            String topic = Topics.partitioner(stream.name(), field);
            publisher.unregisterClocks(topic);
            deployed.remove(topic);
            topics.add(topic);
        }
        Set<String> remaining = Set.copyOf(deployed.keySet());
        CompletableFuture.allOf(units.stream().map(u -> u.submit(x -> {
            x.discardTasksOf(topics);
            x.subscribe(remaining);
        })).toArray(CompletableFuture[]::new)).join();
        purgeLocally(stream.name());
    }

    /**
     * Deletes the stream's topics, waiting until Kafka no longer lists them so a stream of the same name can be
     * created at once. Blocking.
     */
    public void deleteTopics(String stream) {
        admin.deleteTopics(admin.topicsStartingWith(Topics.partitioner(stream, "")));
    }

    /**
     * Deletes whatever a stream of this name left behind: task directories and topics (a drop that a crash
     * interrupted after its catalog record). Called before a stream is created, so it starts from scratch.
     * Blocking.
     */
    public void purgeStream(String name) {
        purgeLocally(name);
        deleteTopics(name);
    }

    /** Deletes this node's task directories of streams of this name (topics stay). Blocking. */
    public void purgeLocally(String name) {
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
        metricVersions.remove(metric.name());
        String topic = Topics.partitioner(stream.name(), metric.partitioner());
        deployed.computeIfPresent(topic, (t, d) -> new Deployed(d.stream(), d.metrics().stream()
                .filter(m -> !m.name().equals(metric.name())).toList(), d.clocks()));
        onTasks(TaskId.allOf(stream, metric.partitioner()), (u, id) -> {
            TaskProcessor task = u.task(id);
            if (task != null && task.metrics().stream().anyMatch(m -> m.name().equals(metric.name()))) {
                task.dropMetric(metric.name());
            }
        });
    }

    /**
     * Makes a metric known to the tasks of its stream's partitioner on this node: each copy adds it when it takes
     * the metric's start marker ({@link #startMetric}), so it starts at the same offset on the active and on every
     * replica, whichever node applies the catalog record first.
     */
    public void deployMetric(StreamDef stream, MetricDef metric, long version) {
        metricVersions.put(metric.name(), version);
        String topic = Topics.partitioner(stream.name(), metric.partitioner());
        deployed.computeIfPresent(topic, (t, d) -> new Deployed(d.stream(), java.util.stream.Stream.concat(
                d.metrics().stream().filter(m -> !m.name().equals(metric.name())), java.util.stream.Stream.of(metric))
                .toList(), d.clocks()));
    }

    /**
     * Starts a deployed metric: its start marker goes to every partition of its partitioner topic; completes once
     * every task's active copy added it (a stopped task adds it when it runs again: logged). Every node must have
     * deployed the metric first. Publishing a marker again is harmless (a task that has the metric ignores it).
     */
    public CompletableFuture<Void> startMetric(StreamDef stream, MetricDef metric) {
        String topic = Topics.partitioner(stream.name(), metric.partitioner());
        List<CompletableFuture<List<io.coilgun.cluster.reply.Reply>>> replies = publisher.startMetric(topic,
                0, stream.partitions(), marker(metric.name()));
        List<CompletableFuture<Void>> answered = new ArrayList<>();
        for (int p = 0; p < replies.size(); p++) {
            int partition = p;
            answered.add(replies.get(p).handle((r, e) -> {
                if (e != null) {
                    LOG.warn("metric={} task={}-{} did not answer its start marker ({}): it starts the metric when "
                            + "it takes it", metric.name(), topic, partition, e.toString());
                } else if (r.get(0).status() == io.coilgun.cluster.reply.ReplyStatus.FAILED) {
                    LOG.warn("metric={} task={}-{} is stopped ({}): the metric starts there when it runs again",
                            metric.name(), topic, partition, r.get(0).message());
                }
                return null;
            }));
        }
        return CompletableFuture.allOf(answered.toArray(CompletableFuture[]::new));
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

    /**
     * Reads every task this node holds (active or replica), each on its unit's thread: one row per task, in no
     * particular order (the node's metrics and status page). A unit that does not answer (stopped) is left out.
     */
    public <T> CompletableFuture<List<T>> eachTask(java.util.function.BiFunction<ProcessorUnit, TaskProcessor, T> read) {
        List<CompletableFuture<List<T>>> parts = new ArrayList<>();
        for (ProcessorUnit unit : units) {
            CompletableFuture<List<T>> part = new CompletableFuture<>();
            unit.submit(u -> {
                List<T> rows = new ArrayList<>();
                for (TaskProcessor task : u.tasks()) {
                    rows.add(read.apply(u, task));
                }
                part.complete(rows);
            }).whenComplete((v, e) -> {
                if (e != null) {
                    part.complete(List.of());
                }
            });
            parts.add(part);
        }
        return CompletableFuture.allOf(parts.toArray(CompletableFuture[]::new)).thenApply(v -> {
            List<T> all = new ArrayList<>();
            for (CompletableFuture<List<T>> part : parts) {
                all.addAll(part.join());
            }
            return all;
        });
    }

    /** Bytes in the RocksDB block cache the process's state stores share (memtables included). */
    public static long sharedStateCacheBytes() {
        return io.coilgun.storage.state.StateStore.sharedCacheBytes();
    }

    /** Where the start-up replay and the drain report their progress from now on. */
    public void progress(Progress p) {
        this.progress = p;
    }

    /** Statements' events published by this node whose replies it still awaits. */
    public int repliesInFlight() {
        return router.inFlight();
    }

    /** Reads of metric state over the cluster's tasks (SELECT … FROM metric). */
    public MetricStateReader metricState() {
        return metricState;
    }

    /** Reads of a stream's recent events over the cluster's tasks (SELECT … FROM stream). */
    public RecentEventReader recentEvents() {
        return recentEvents;
    }

    /** This node's id. */
    public String nodeId() {
        return config.nodeId();
    }

    /** The path to the other nodes. */
    public PeerLink peers() {
        return peers;
    }

    /** The node whose unit leads task {@code id} in the latest placement, or null when none does. */
    public String activeNodeOf(TaskId id) {
        ClusterView.Member m = view.activeOf(id);
        return m == null ? null : m.node();
    }

    /** The nodes holding a replica of task {@code id} in the latest placement. */
    public List<String> replicaNodesOf(TaskId id) {
        return view.replicasOf(id).stream().map(ClusterView.Member::node).toList();
    }

    /** The stream deployed here under partitioner topic {@code topic}, or null. */
    public StreamDef deployedStream(String topic) {
        Deployed d = deployed.get(topic);
        return d == null ? null : d.stream();
    }

    /** Notes a metric's version (recovery: the offset of its CREATE METRIC in the catalog). */
    public void metricVersion(String metric, long version) {
        metricVersions.put(metric, version);
    }

    /** A start marker's value: the metric's name and version. */
    private String marker(String metric) {
        return metric + "@" + metricVersions.getOrDefault(metric, -1L);
    }

    /**
     * The metric a start marker ({@code name@version}) starts on partitioner topic {@code topic}: its definition
     * when that version is the one deployed here, else null (a marker of a metric dropped since, or not known yet).
     */
    private MetricDef startedBy(String topic, String marker) {
        int at = marker.lastIndexOf('@');
        String name = at < 0 ? marker : marker.substring(0, at);
        long version = at < 0 ? -1 : Long.parseLong(marker.substring(at + 1));
        MetricDef def = deployedMetric(topic, name);
        Long deployedVersion = metricVersions.get(name);
        return def != null && (version < 0 || deployedVersion == null || deployedVersion < 0
                || deployedVersion == version) ? def : null;
    }

    /** The metric {@code name} as deployed here on partitioner topic {@code topic}, or null. */
    public MetricDef deployedMetric(String topic, String name) {
        Deployed d = deployed.get(topic);
        return d == null ? null : d.metrics().stream().filter(m -> m.name().equals(name)).findFirst().orElse(null);
    }

    /** The catalog and node-status follower of this node. */
    public ClusterDirectory directory() {
        return directory;
    }

    /** How this node is reached and what it runs, for its status ({@code coilgun.nodes}). */
    public void advertise(String pgwireAddress, String serverVersion) {
        this.pgwire = pgwireAddress;
        this.version = serverVersion;
        publishStatus();
    }

    /** The node applied the catalog through {@code offset}: told to the cluster at once. */
    public void catalogApplied(long offset) {
        if (offset > catalogApplied) {
            catalogApplied = offset;
            statusTimer.execute(this::publishStatus);
        }
    }

    /**
     * Waits until every node of the cluster's view (and this one) applied the catalog through {@code offset}; false
     * when some node had not within {@code timeoutMs}.
     */
    public boolean awaitCatalogApplied(long offset, long timeoutMs) {
        Set<String> nodes = new java.util.HashSet<>(view.nodes());
        nodes.add(config.nodeId());
        return directory.awaitApplied(offset, nodes, timeoutMs);
    }

    /** This node's status: its address, catalog progress and every task copy it holds (gathered from the units). */
    private void publishStatus() {
        try {
            List<NodeStatus.TaskCopy> copies = new ArrayList<>();
            List<CompletableFuture<Void>> gathered = new ArrayList<>();
            for (ProcessorUnit unit : units) {
                gathered.add(unit.submit(u -> {
                    long now = System.currentTimeMillis();
                    for (TaskProcessor t : u.tasks()) {
                        long lag = u.lag(t.id());
                        long lagMs = lag > 0 && t.lastRecordTimestamp() > 0 ? now - t.lastRecordTimestamp() : 0;
                        synchronized (copies) {
                            copies.add(new NodeStatus.TaskCopy(t.id().toString(), t.role().name().toLowerCase(
                                    java.util.Locale.ROOT), u.name(), t.nextOffset(), lag, lagMs, t.streamTime(),
                                    t.state().name().toLowerCase(java.util.Locale.ROOT), 0, -1, -1,
                                    t.backfillProgress()));
                        }
                    }
                }));
            }
            CompletableFuture.allOf(gathered.toArray(CompletableFuture[]::new)).get(2, java.util.concurrent.TimeUnit.SECONDS);
            for (TaskId id : host.staleTasks().keySet()) {
                if (recoveries.inProgress().containsKey(id)) {
                    continue;
                }
                long next = staleOffsets.computeIfAbsent(id, t -> {
                    try {
                        return TaskPlan.checkpointedNextOffset(taskDir(t));
                    } catch (RuntimeException e) {
                        return 0L; // unreadable: offered to no one
                    }
                });
                copies.add(new NodeStatus.TaskCopy(id.toString(), "stale", "", next, -1, 0, Long.MIN_VALUE, "stale"));
            }
            recoveries.inProgress().forEach((id, p) -> {
                Recovering r = recovering.get(id);
                copies.add(new NodeStatus.TaskCopy(id.toString(), r == null ? "replica"
                        : r.role().name().toLowerCase(java.util.Locale.ROOT), r == null ? "" : r.unit().name(), -1, -1,
                        0, Long.MIN_VALUE, "recovering", p.doneBytes(), p.totalBytes(), p.etaSeconds()));
            });
            directory.publish(new NodeStatus(config.nodeId(), pgwire, config.bootstrapServers(),
                    config.dataDir().toString(), units.size(), version, catalogApplied, System.currentTimeMillis(),
                    copies, snapshots.address(), snapshots.token()));
        } catch (Exception e) {
            LOG.debug("node status not published this time", e);
        }
    }

    /**
     * A snapshot of a task this node has (for a peer that recovers it): taken on its unit's thread when a unit
     * runs it, else from its stale copy on disk, which no unit opens meanwhile.
     */
    private CompletableFuture<io.coilgun.planner.plan.TaskSnapshot> snapshot(TaskId id, Path into) {
        ProcessorUnit unit = taskUnits.get(id);
        if (unit == null) {
            Deployed d = deployed.get(id.topic());
            if (d == null || !Files.isDirectory(taskDir(id)) || !snapshotting.add(id)) {
                return CompletableFuture.failedFuture(new SnapshotServer.NotHeldException(id));
            }
            try {
                if (taskUnits.containsKey(id)) {
                    return CompletableFuture.failedFuture(new SnapshotServer.NotHeldException(id)); // opened just now
                }
                TaskPlan plan = TaskPlan.open(taskDir(id), d.stream(), d.metrics(), reservoirIO, new ChunkCache(4, 1 << 20),
                        true);
                try {
                    return CompletableFuture.completedFuture(plan.snapshot(into));
                } finally {
                    plan.close();
                }
            } catch (RuntimeException e) {
                return CompletableFuture.failedFuture(e);
            } finally {
                snapshotting.remove(id);
            }
        }
        // The state store's memtables are flushed in RocksDB's background first: the snapshot, on the unit's thread
        // (the one point where the state and the reservoir agree), then has little to write while the unit's
        // tasks wait.
        CompletableFuture<io.coilgun.planner.plan.TaskSnapshot> taken = new CompletableFuture<>();
        unit.submit(u -> runningTask(u, id).plan().prepareSnapshot()).whenComplete((v, e) -> {
            if (e != null) {
                taken.completeExceptionally(e);
            } else {
                snapshotWhenFlushed(unit, id, into, System.nanoTime() + SNAPSHOT_FLUSH_WAIT_NS, taken);
            }
        });
        return taken;
    }

    /** How long a snapshot waits for its background flush before it flushes on the unit's thread anyway. */
    private static final long SNAPSHOT_FLUSH_WAIT_NS = 2_000_000_000L;

    private void snapshotWhenFlushed(ProcessorUnit unit, TaskId id, Path into, long deadline,
            CompletableFuture<io.coilgun.planner.plan.TaskSnapshot> taken) {
        unit.submit(u -> {
            TaskProcessor task = runningTask(u, id);
            if (!task.plan().readyForSnapshot() && System.nanoTime() < deadline) {
                CompletableFuture.delayedExecutor(10, java.util.concurrent.TimeUnit.MILLISECONDS)
                        .execute(() -> snapshotWhenFlushed(unit, id, into, deadline, taken));
                return;
            }
            long started = System.nanoTime();
            io.coilgun.planner.plan.TaskSnapshot snapshot = task.plan().snapshot(into);
            LOG.info("task={} snapshot for a peer took {} ms on {}", id, (System.nanoTime() - started) / 1_000_000,
                    u.name());
            taken.complete(snapshot);
        }).whenComplete((v, e) -> {
            if (e != null) {
                taken.completeExceptionally(e);
            }
        });
    }

    /** On the unit's thread: the task it runs, or a NotHeldException (gone, or stopped). */
    private static TaskProcessor runningTask(ProcessorUnit unit, TaskId id) {
        TaskProcessor task = unit.task(id);
        if (task == null || task.state() == io.coilgun.cluster.task.TaskState.FAILED) {
            throw new SnapshotServer.NotHeldException(id);
        }
        return task;
    }

    /**
     * The peers to copy task {@code id} from, best first, or none when replaying Kafka is as good
     * ({@link RecoverySources}, with {@link #COPY_MIN_EVENTS}).
     */
    private List<PeerCopy.Peer> peersToCopy(TaskId id, long localNext, long logStart) {
        // a node that just started may not have read the others' statuses yet: they tell who has copies
        Set<String> others = new java.util.HashSet<>(view.nodes());
        others.remove(config.nodeId());
        long deadline = System.currentTimeMillis() + 10_000;
        while (!directory.statuses().keySet().containsAll(others) && System.currentTimeMillis() < deadline) {
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        Map<String, NodeStatus> statuses = directory.statuses();
        List<PeerCopy.Peer> peers = RecoverySources.choose(statuses.values(), config.nodeId(), id, localNext, logStart,
                COPY_MIN_EVENTS);
        if (peers.isEmpty() && logStart > localNext) {
            LOG.warn("task={} no peer has a copy to recover from; statuses seen: {}", id,
                    statuses.values().stream().map(st -> st.node() + " (peer " + st.peer() + ", "
                            + st.tasks().stream().map(t -> t.task() + " " + t.role() + " " + t.state() + " "
                            + t.nextOffset()).toList() + ")").toList());
        }
        return peers;
    }

    /** What the units ask of the node. */
    private final class Host implements UnitHost {
        /** Background work (backfills, replays) on at most one unit at a time, or all but one when there are more. */
        private final java.util.concurrent.Semaphore background = new java.util.concurrent.Semaphore(
                Math.max(1, config.processorUnits() - 1));

        @Override
        public java.util.concurrent.Semaphore backgroundSlots() {
            return background;
        }

        @Override
        public long backgroundNotBefore() {
            return backgroundBudget.notBefore();
        }

        @Override
        public void backgroundRan(long began, long ended) {
            backgroundBudget.ran(began, ended);
        }

        @Override
        public void deferBackground(long notBefore) {
            backgroundBudget.deferTo(notBefore);
        }

        @Override
        public boolean recoverFirst(TaskId id, TaskRole role, long logStart, ProcessorUnit unit,
                java.util.function.Consumer<Boolean> whenDone) {
            if (!deployed.containsKey(id.topic()) || taskUnits.containsKey(id)) {
                return false;
            }
            Path dir = taskDir(id);
            long localNext;
            try {
                localNext = Files.isDirectory(dir) ? TaskPlan.checkpointedNextOffset(dir) : 0;
            } catch (RuntimeException e) {
                LOG.warn("task={} local copy unreadable ({}); it is copied again", id, e.toString());
                localNext = 0;
            }
            List<PeerCopy.Peer> from = peersToCopy(id, localNext, logStart);
            if (from.isEmpty()) {
                return false;
            }
            LOG.info("task={} copied from a peer before it runs here as {} (local copy at offset {}, Kafka from {}; "
                    + "peers {})", id, role, localNext, logStart, from.stream().map(PeerCopy.Peer::node).toList());
            recovering.put(id, new Recovering(unit, role));
            recoveries.copy(id, from, copied -> {
                recovering.remove(id);
                staleOffsets.remove(id);
                whenDone.accept(copied);
            });
            return true;
        }

        @Override
        public String nodeId() {
            return config.nodeId();
        }

        @Override
        public TaskProcessor open(TaskId id, ProcessorUnit unit) {
            Deployed d = deployed.get(id.topic());
            if (d == null) {
                return null;
            }
            // a task moving between two units of this node: the other releases it in its own rebalance callback
            // (and a snapshot of its stale copy for a peer ends first)
            long deadline = System.currentTimeMillis() + 30_000;
            while (snapshotting.contains(id)
                    || taskUnits.putIfAbsent(id, unit) != null && taskUnits.get(id) != unit) {
                if (System.currentTimeMillis() > deadline) {
                    throw new IllegalStateException("task " + id + " is still held by " + unitOf(id));
                }
                try {
                    Thread.sleep(5);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted while opening task " + id, e);
                }
            }
            staleOffsets.remove(id);
            try {
                Path dir = taskDir(id);
                // metrics not started in the task's data start at their marker (startMetric), as on every copy
                TaskPlan plan = TaskPlan.open(dir, d.stream(), d.metrics(), reservoirIO, unit.chunkCache(), true);
                TaskProcessor.PlanOpener reopen = (s, m) -> TaskPlan.open(dir, s, m, reservoirIO, unit.chunkCache());
                TaskProcessor task = new TaskProcessor(id, plan, reopen, replySender, feed, d.clocks()[id.partition()]);
                task.meters(io.coilgun.cluster.task.TaskMeters.of(meters, d.stream().name(), id));
                task.definitions(marker -> startedBy(id.topic(), marker), () -> deployedStream(id.topic()));
                // A copy that has not started a deployed metric (new, or behind its marker) gets a marker of its
                // own at the partition's end: one whose old marker is gone (retention) starts it there rather than
                // never; one that still meets the old marker starts it there, and this one changes nothing.
                for (MetricDef m : d.metrics()) {
                    if (task.metrics().stream().noneMatch(x -> x.name().equals(m.name()))) {
                        publisher.startMetric(id.topic(), id.partition(), id.partition() + 1, marker(m.name()));
                    }
                }
                return task;
            } catch (RuntimeException e) {
                taskUnits.remove(id, unit);
                throw e;
            }
        }

        @Override
        public void released(TaskId id, ProcessorUnit unit) {
            taskUnits.remove(id, unit);
            if (!taskUnits.containsKey(id)) {
                io.coilgun.cluster.task.TaskMeters.removeAll(meters, id); // its timers go with it
            }
        }

        @Override
        public io.micrometer.core.instrument.MeterRegistry meters() {
            return meters;
        }

        @Override
        public long replicaRestoreDelayMs() {
            return config.replicaRestoreDelayMs();
        }

        @Override
        public int copies(String topic) {
            Deployed d = deployed.get(topic);
            return d == null ? 1 : d.stream().replicas();
        }

        @Override
        public Map<TaskId, UnitInfo.Held> staleTasks() {
            Map<TaskId, UnitInfo.Held> stale = new java.util.HashMap<>();
            Path tasks = config.dataDir().resolve("tasks");
            if (!Files.isDirectory(tasks)) {
                return stale;
            }
            try (var dirs = Files.list(tasks)) {
                for (Path dir : dirs.toList()) {
                    TaskId id;
                    try {
                        id = TaskId.parse(dir.getFileName().toString());
                    } catch (RuntimeException e) {
                        continue;
                    }
                    if (deployed.containsKey(id.topic()) && !taskUnits.containsKey(id)) {
                        stale.put(id, new UnitInfo.Held(TaskRole.STALE, -1));
                    }
                }
            } catch (IOException e) {
                LOG.warn("cannot list the task directories under {}", tasks, e);
            }
            return stale;
        }

        @Override
        public void placed(ClusterView placement) {
            synchronized (this) {
                if (placement.generation() >= view.generation()) {
                    view = placement;
                }
            }
        }
    }

    private Path taskDir(TaskId id) {
        return config.dataDir().resolve("tasks").resolve(id.toString());
    }

    /** How long a stopping node waits for the others to take its tasks over before it leaves anyway. */
    static final long DRAIN_TIMEOUT_MS = Long.getLong("coilgun.drainTimeoutMs", 120_000);

    /**
     * Before a graceful stop: while other nodes are in the cluster, this node's units say they are draining, and the
     * node waits until it leads no task (each moved replica first: a copy elsewhere caught up, then a change of
     * role), or {@link #DRAIN_TIMEOUT_MS}. Its snapshot server serves the copies meanwhile. True when it leads none.
     */
    public boolean drain() {
        if (view.nodes().stream().allMatch(n -> n.equals(config.nodeId())) || units.isEmpty()) {
            return true; // no one to hand over to
        }
        LOG.info("draining: this node's tasks move to the other nodes before it stops");
        long started = System.currentTimeMillis();
        for (ProcessorUnit unit : units) {
            unit.startDraining();
        }
        long deadline = started + DRAIN_TIMEOUT_MS;
        long ledAtStart = -1;
        long nextReport = started + 1000;
        boolean reported = false;
        while (System.currentTimeMillis() < deadline) {
            ClusterView v = view;
            long led = v.placements().tasks().values().stream().filter(c -> c.active() != null
                    && v.members().containsKey(c.active()) && v.members().get(c.active()).node().equals(config.nodeId()))
                    .count();
            ledAtStart = Math.max(ledAtStart, led);
            boolean leadsNone = led == 0;
            long now = System.currentTimeMillis();
            if (leadsNone ? reported : now >= nextReport) {
                progress.report(Progress.DRAIN, ledAtStart - led, ledAtStart);
                reported = !leadsNone; // the last report once, when none is led here
                nextReport = now + 1000;
            }
            if (leadsNone && v.generation() >= 0) {
                LOG.info("drained in {} ms", System.currentTimeMillis() - started);
                return true;
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        LOG.warn("not drained after {} ms; stopping anyway: the others take the rest from their own copies",
                DRAIN_TIMEOUT_MS);
        return false;
    }

    @Override
    public void close() {
        statusTimer.shutdownNow();
        watchdog.stop();
        backgroundBudget.close();
        snapshots.close();
        recoveries.close();
        for (ProcessorUnit unit : units) {
            unit.close();
        }
        directory.leave(config.nodeId());
        directory.close();
        clusterFeed.close();
        peers.close();
        reservoirIO.close();
        router.close();
        producer.close(java.time.Duration.ofSeconds(5));
        admin.close();
    }
}
