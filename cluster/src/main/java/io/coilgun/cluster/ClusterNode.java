package io.coilgun.cluster;

import io.coilgun.cluster.assign.ClusterView;
import io.coilgun.cluster.catalog.CatalogLog;
import io.coilgun.cluster.directory.ClusterDirectory;
import io.coilgun.cluster.directory.ProcessIdSlot;
import io.coilgun.cluster.feed.ClusterFeed;
import io.coilgun.cluster.feed.FeedRoutes;
import io.coilgun.cluster.feed.ResultFeed;
import io.coilgun.cluster.ingest.EventPublisher;
import io.coilgun.cluster.ingest.TaskClock;
import io.coilgun.cluster.kafka.KafkaClients;
import io.coilgun.cluster.kafka.KafkaContact;
import io.coilgun.cluster.kafka.KafkaUnavailableException;
import io.coilgun.cluster.kafka.TopicAdmin;
import io.coilgun.cluster.kafka.Topics;
import io.coilgun.cluster.peer.PeerLink;
import io.coilgun.cluster.query.MetricStateReader;
import io.coilgun.cluster.query.RecentEventReader;
import io.coilgun.cluster.query.TaskReads;
import io.coilgun.cluster.reply.Reply;
import io.coilgun.cluster.reply.ReplyRouter;
import io.coilgun.cluster.reply.ReplyStatus;
import io.coilgun.cluster.sink.SinkRegistry;
import io.coilgun.cluster.task.TaskId;
import io.coilgun.cluster.task.TaskProcessor;
import io.coilgun.cluster.unit.BackgroundBudget;
import io.coilgun.cluster.unit.ProcessorUnit;
import io.coilgun.cluster.unit.StallWatchdog;
import io.coilgun.planner.model.MetricDef;
import io.coilgun.planner.model.StreamDef;
import io.coilgun.storage.reservoir.ChunkCache;
import io.coilgun.storage.reservoir.ReservoirIO;
import io.coilgun.storage.state.StateStore;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiFunction;
import java.util.function.Function;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This node's part of the cluster: the processor units and their tasks, the event publisher and reply router,
 * and the catalog topic. The units' active consumers are members of the cluster's task group
 * ({@link Topics#TASK_GROUP}): Kafka's group protocol and {@link io.coilgun.cluster.assign.CoilgunAssignor} decide
 * which tasks each unit leads and which it keeps a hot replica of. Deploying a stream here only subscribes the units
 * to its topics; the tasks open where the assignment puts them.
 *
 * <p>The node's rooms, each a class of this package: {@link Deployments} (what is deployed here, the metrics'
 * versions), {@link TaskDirectories} (the tasks' data on disk), {@link NodeTasks} (which unit holds each task, the
 * latest placement, runs on a task's unit thread), {@link NodeUnitHost} (what the units ask of the node: opening a
 * task), {@link PeerRecovery} (snapshots for peers, copies from peers), {@link StatusPublisher} (this node's status),
 * {@link ReplayWait}, {@link Drain} and {@link GroupSession} (the units' session, whether the node reaches Kafka).
 * This class wires them and carries out DDL on them; it is the cluster's one door for the server, so it stays short
 * methods that each hand over to a room.
 *
 * <p>Threads: {@link #deployStream} and {@link #deployMetric} block on Kafka admin calls and must not run on
 * network or processor threads; {@link #publisher()} is non-blocking.
 */
public final class ClusterNode implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ClusterNode.class);
    /** How long DDL waits for the group to place a new stream's tasks. */
    private static final long PLACEMENT_TIMEOUT_MS = 60_000;
    /** How far back SELECT … FROM stream looks in each task's reservoir (micros): an hour of stream time. */
    public static final long RECENT_SPAN_MICROS = 3_600_000_000L;
    /**
     * A task whose copy on a peer is at least this many events ahead of this node's (or whose history Kafka no
     * longer holds) is copied from the peer rather than replayed from Kafka.
     */
    static final long COPY_MIN_EVENTS = Long.getLong("coilgun.peerCopyMinEvents", 10_000);
    /** How long a stopping node waits for the others to take its tasks over before it leaves anyway. */
    static final long DRAIN_TIMEOUT_MS = Long.getLong("coilgun.drainTimeoutMs", 120_000);

    private final ClusterConfig config;
    private final TopicAdmin admin;
    private final KafkaProducer<byte[], byte[]> producer;
    private final ReplyRouter router;
    private final KafkaContact kafkaContact;
    /** Requests to and from the other nodes (reads and subscriptions over their tasks). */
    private final PeerLink peers;
    private final ProcessIdSlot pidSlot;
    private final ClusterFeed clusterFeed;
    private final MetricStateReader metricState;
    private final RecentEventReader recentEvents;
    private final EventPublisher publisher;
    private final CatalogLog catalog;
    private final ReservoirIO reservoirIO = ReservoirIO.defaults();
    /** The streams and metrics deployed here, and the metrics' versions. */
    private final Deployments deployments = new Deployments();
    /** The tasks' data on this node's disk. */
    private final TaskDirectories directories;
    /** The units, which of them holds each task, and the latest placement. */
    private final NodeTasks tasks;
    /** The catalog topic and every node's status, followed on one thread. */
    private final ClusterDirectory directory;
    private final StatusPublisher status;
    /**
     * The share of a core background work (backfills, replays) may take, less while the machine's CPUs are busy
     * ({@link BackgroundBudget}): the rest is left to live events, Kafka and the front end.
     */
    private final BackgroundBudget backgroundBudget = BackgroundBudget.fromSystemProperties();
    /** Where the start-up replay and the drain report their progress (the command line's progress bars). */
    private volatile Progress progress = Progress.NONE;
    /** Logs the units' long steps and the node's pauses (what a live event's rare long wait came from). */
    private final StallWatchdog watchdog;
    /** Snapshots of this node's tasks for peers, and copies of tasks from peers. */
    private final PeerRecovery recovery;
    /** Streams partitioned by one field gaining a decider ({@code ALTER STREAM … ADD PARTITION BY}). */
    private final StreamConversions conversions;
    /** The sinks (CREATE SINK) the tasks here write. */
    private final SinkRegistry sinks;

    private ClusterNode(ClusterConfig config, TopicAdmin admin, MeterRegistry meters) {
        this.config = config;
        this.admin = admin;
        admin.ensureTopic(Topics.CATALOG, 1, CatalogLog.topicConfig());
        admin.ensureTopic(Topics.replies(config.nodeId()), 1, Map.of("retention.ms", "3600000"));
        admin.ensureTopic(Topics.NODES, 1, Map.of("cleanup.policy", "compact"));
        admin.ensureTopic(Topics.peer(config.nodeId()), 1, Map.of("retention.ms", "600000"));
        this.producer = KafkaClients.producer(config.bootstrapServers(), "coilgun-producer");
        this.catalog = new CatalogLog(config.bootstrapServers(), producer);
        this.router = new ReplyRouter(config.bootstrapServers(), config.nodeId(), config.replyTimeoutMs());
        this.publisher = new EventPublisher(config.nodeId(), producer, router);
        this.directory = new ClusterDirectory(config.bootstrapServers(), config.nodeId(), producer);
        directory.followStatuses();
        this.peers = new PeerLink(config.bootstrapServers(), config.nodeId(), producer);
        this.pidSlot = new ProcessIdSlot(config.nodeId());
        this.directories = new TaskDirectories(config.dataDir());
        this.tasks = new NodeTasks(config.nodeId());
        ResultFeed feed = new ResultFeed();
        this.clusterFeed = new ClusterFeed(peers, new FeedRoutes() {
            @Override
            public List<String> otherNodes() {
                return tasks.otherNodes();
            }

            @Override
            public MetricDef deployedMetric(String topic, String name) {
                return deployments.metric(topic, name);
            }
        }, feed);
        this.recovery = new PeerRecovery(config, deployments, directories, tasks, directory, reservoirIO,
                COPY_MIN_EVENTS);
        this.kafkaContact = GroupSession.contact(tasks);
        TaskReads reads = new TaskReads(peers, tasks, kafkaContact);
        this.metricState = new MetricStateReader(reads);
        this.recentEvents = new RecentEventReader(reads, RECENT_SPAN_MICROS);
        this.conversions = new StreamConversions(config.nodeId(), admin, publisher, tasks::view);
        this.sinks = new SinkRegistry(config.bootstrapServers(), meters);
        NodeUnitHost host = new NodeUnitHost(config, deployments, directories, tasks, recovery,
                (topic, partition, marker) -> publisher.startMetric(topic, partition, partition + 1, marker),
                router.sender(producer), producer::send, feed, reservoirIO, meters, backgroundBudget, conversions,
                sinks);
        int session = GroupSession.timeoutMs(admin);
        for (int i = 0; i < config.processorUnits(); i++) {
            ProcessorUnit unit = new ProcessorUnit(i, config.bootstrapServers(), Topics.TASK_GROUP, session, host,
                    new ChunkCache(config.chunkCacheChunks(), config.chunkCacheBytes()));
            unit.start();
            tasks.addUnit(unit);
        }
        this.watchdog = StallWatchdog.start(tasks.units(), meters, config.nodeId());
        this.status = new StatusPublisher(config, directory, tasks, host, directories, recovery, pidSlot);
        resubscribe(); // the units join the task group now: the node is part of the cluster's view
        status.start();
    }

    /**
     * Connects to Kafka and starts the processor units (with no tasks yet).
     *
     * @throws KafkaUnavailableException if Kafka cannot be reached
     */
    public static ClusterNode start(ClusterConfig config) {
        return start(config, new CompositeMeterRegistry());
    }

    /**
     * Connects to Kafka and starts the processor units (with no tasks yet); the units and tasks record their timers
     * in {@code meters}.
     *
     * @throws KafkaUnavailableException if Kafka cannot be reached
     */
    public static ClusterNode start(ClusterConfig config, MeterRegistry meters) {
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

    /** Whether this node still reaches Kafka ({@link KafkaContact}). */
    public KafkaContact kafkaContact() {
        return kafkaContact;
    }

    public EventPublisher publisher() {
        return publisher;
    }

    /** The sinks the tasks of this node write ({@link SinkRegistry#update} on every CREATE and DROP SINK). */
    public SinkRegistry sinks() {
        return sinks;
    }

    /**
     * Creates a sink's topic if it is missing, with as many partitions as the partitioner topic of what it reads
     * ({@code partitions}). Blocking.
     */
    public void createSinkTopic(String topic, int partitions) {
        admin.ensureTopic(topic, partitions, Map.of());
    }

    /** Creates the stream's partitioner topics (if missing). Blocking. */
    public void createTopics(StreamDef stream) {
        TaskId decider = TaskId.decider(stream);
        if (decider != null) {
            admin.ensureTopic(decider.topic(), 1, Map.of());
        }
        for (String field : stream.partitionBy()) {
            admin.ensureTopic(Topics.partitioner(stream.name(), field), stream.partitions(field), Map.of());
        }
        if (decider != null) {
            producer.partitionsFor(decider.topic());
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
        TaskId decider = TaskId.decider(stream);
        if (decider != null) { // no metric: it decides and forwards
            deployments.deploy(decider.topic(), new Deployments.Deployed(stream, List.of(),
                    publisher.registerClocks(decider.topic(), 1)));
        }
        for (String field : stream.partitionBy()) {
            String topic = Topics.partitioner(stream.name(), field);
            List<MetricDef> routed = metrics.stream().filter(m -> m.partitioner().equals(field)).toList();
            TaskClock[] clocks = publisher.registerClocks(topic, stream.partitions(field));
            deployments.deploy(topic, new Deployments.Deployed(stream, routed, clocks));
        }
        resubscribe();
        if (awaitPlacement) {
            awaitPlaced(stream);
        }
    }

    /** Tells every unit the topics deployed here; blocking until each took them. */
    private void resubscribe() {
        Set<String> topics = deployments.topics();
        tasks.onUnits(u -> u.subscribe(topics));
    }

    /**
     * Waits (up to a minute) until the group placed every task of the stream; logs when it did not. For DDL, once
     * every node subscribed to the stream's topics.
     */
    public void awaitPlaced(StreamDef stream) {
        List<TaskId> ids = TaskId.all(stream);
        if (!tasks.await(() -> tasks.placed(ids), PLACEMENT_TIMEOUT_MS)) {
            LOG.warn("stream={} not every task has a unit after {} ms; they start when the group places them",
                    stream.name(), PLACEMENT_TIMEOUT_MS);
        }
    }

    /** The placement of the latest rebalance: which unit of which node leads each task and which replicate it. */
    public ClusterView view() {
        return tasks.view();
    }

    /**
     * Waits until every task of the streams has taken the records that were in its partition when this was called
     * (at start-up: the records after its checkpoint). Until then a task's stream time does not count them, and the
     * front end's lateness check ({@code EventPublisher.publishAll}) would judge against an older one. Blocking,
     * bounded by {@code timeoutMs}; returns false if some task had not caught up by then.
     */
    public boolean awaitReplayed(List<StreamDef> streams, long timeoutMs) {
        return new ReplayWait(tasks, admin::endOffsets, progress).await(streams, timeoutMs);
    }

    /**
     * Asks the task group to rebalance (what the tasks want changed: ALTER STREAM … SET (replicas)). Not awaited:
     * the rebalance runs within the next poll of this node's first unit.
     */
    public void rebalance() {
        if (!tasks.units().isEmpty()) {
            tasks.units().get(0).submit(u -> u.rebalanceIn(0));
        }
    }

    /**
     * Gives the running tasks of the stream its new definition (a schema version, a partitioner added or dropped).
     * Blocking until every task has it.
     */
    public void alterStream(StreamDef stream) {
        deployments.alter(stream);
        tasks.onTasks(TaskId.all(stream), (u, id) -> {
            TaskProcessor task = u.task(id);
            if (task != null && (task.stream().schemaVersion() < stream.schemaVersion()
                    || !task.stream().partitionBy().equals(stream.partitionBy()))) {
                task.alterStream(stream);
            }
        });
    }

    /**
     * ALTER STREAM … ADD PARTITION BY {@code field} on this node: the topic exists, the units subscribe to it (the
     * group places its tasks), and the stream's decider fills it ({@code Forwarder}). Blocking.
     */
    public void addPartitioner(StreamDef stream, String field) {
        String topic = Topics.partitioner(stream.name(), field);
        admin.ensureTopic(topic, stream.partitions(field), Map.of());
        producer.partitionsFor(topic); // warm metadata: the decider's sends never wait for it
        alterStream(stream);
        if (deployments.get(topic) == null) {
            deployments.deploy(topic, new Deployments.Deployed(stream, List.of(),
                    publisher.registerClocks(topic, stream.partitions(field))));
        }
        resubscribe();
    }

    /**
     * ALTER STREAM … DROP PARTITION BY {@code field} on this node: the decider forwards to it no more, its tasks stop
     * without a checkpoint and their directories are deleted. The topic stays ({@link #deletePartitionerTopic}: the
     * node that ran the ALTER deletes it once every node applied it). Blocking.
     */
    public void dropPartitionerLocally(StreamDef stream, String field) {
        alterStream(stream);
        String topic = Topics.partitioner(stream.name(), field);
        publisher.unregisterClocks(topic);
        deployments.remove(topic);
        Set<String> remaining = deployments.topics();
        tasks.onUnits(x -> {
            x.discardTasksOf(Set.of(topic));
            x.subscribe(remaining);
        });
        directories.deleteAll(topic + "-");
    }

    /**
     * A stream partitioned by one field gained a partitioner ({@code converted}: its definition now, with a decider):
     * its decider is deployed, this node's statements of the stream wait, and its partitions are cut after what this
     * node published ({@link StreamConversions}). Blocking.
     */
    public void beginConversion(StreamDef converted, int number) {
        // the seed topic before the decider that reads it and the markers after which the tasks write to it
        admin.ensureTopic(Topics.seed(converted.name()), converted.partitions(converted.partitionBy().get(0)),
                Map.of());
        TaskId decider = TaskId.decider(converted);
        admin.ensureTopic(decider.topic(), 1, Map.of());
        producer.partitionsFor(decider.topic());
        if (deployments.get(decider.topic()) == null) {
            deployments.deploy(decider.topic(), new Deployments.Deployed(converted, List.of(),
                    publisher.registerClocks(decider.topic(), 1)));
            resubscribe();
        }
        conversions.begin(converted, number);
    }

    /** The streams gaining a decider on this node: their statements' wait, the end of a conversion, its seed topic. */
    public StreamConversions conversions() {
        return conversions;
    }

    /** Deletes a dropped partitioner's topic. Blocking. */
    public void deletePartitionerTopic(String stream, String field) {
        admin.deleteTopics(List.of(Topics.partitioner(stream, field)));
    }

    /**
     * Takes a dropped stream's tasks away on this node: each stops between two events without a checkpoint, the
     * units unsubscribe from its topics, and the task directories (reservoirs and state stores) are deleted. The
     * topics stay ({@link #deleteTopics}: the node that ran the DROP deletes them once every node applied it).
     * Blocking.
     */
    public void dropStreamLocally(StreamDef stream) {
        Set<String> topics = new HashSet<>();
        List<String> all = new ArrayList<>();
        for (TaskId id : TaskId.all(stream)) {
            if (!all.contains(id.topic())) {
                all.add(id.topic());
            }
        }
        for (String topic : all) {
            publisher.unregisterClocks(topic);
            deployments.remove(topic);
            topics.add(topic);
        }
        Set<String> remaining = deployments.topics();
        tasks.onUnits(x -> {
            x.discardTasksOf(topics);
            x.subscribe(remaining);
        });
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
        directories.deleteAll(Topics.partitioner(name, ""));
    }

    /** Removes a metric from the running tasks of its partitioner. Blocking until every task dropped it. */
    public void dropMetric(StreamDef stream, MetricDef metric) {
        deployments.dropMetric(Topics.partitioner(stream.name(), metric.partitioner()), metric.name());
        tasks.onTasks(TaskId.allOf(stream, metric.partitioner()), (u, id) -> {
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
        deployments.addMetric(Topics.partitioner(stream.name(), metric.partitioner()), metric, version);
    }

    /**
     * Starts a deployed metric: its start marker goes to every partition of its partitioner topic; completes once
     * every task's active copy added it (a stopped task adds it when it runs again: logged). Every node must have
     * deployed the metric first. Publishing a marker again is harmless (a task that has the metric ignores it).
     */
    public CompletableFuture<Void> startMetric(StreamDef stream, MetricDef metric) {
        String topic = Topics.partitioner(stream.name(), metric.partitioner());
        List<CompletableFuture<List<Reply>>> replies = publisher.startMetric(topic, 0,
                stream.partitions(metric.partitioner()), deployments.marker(metric.name()));
        List<CompletableFuture<Void>> answered = new ArrayList<>();
        for (int p = 0; p < replies.size(); p++) {
            int partition = p;
            answered.add(replies.get(p).handle((r, e) -> {
                if (e != null) {
                    LOG.warn("metric={} task={}-{} did not answer its start marker ({}): it starts the metric when "
                            + "it takes it", metric.name(), topic, partition, e.toString());
                } else if (r.get(0).status() == ReplyStatus.FAILED) {
                    LOG.warn("metric={} task={}-{} is stopped ({}): the metric starts there when it runs again",
                            metric.name(), topic, partition, r.get(0).message());
                }
                return null;
            }));
        }
        return CompletableFuture.allOf(answered.toArray(CompletableFuture[]::new));
    }

    /** The name of the processor unit that runs task {@code id}, or null. */
    public String unitOf(TaskId id) {
        ProcessorUnit unit = tasks.unitOf(id);
        return unit == null ? null : unit.name();
    }

    /** The number of processor units. */
    public int unitCount() {
        return tasks.units().size();
    }

    /**
     * Runs {@code read} on the thread of the unit that owns task {@code id}, between two events; completes with null
     * when this node does not run the task. For reads that must see a consistent task (SELECT over metric state).
     */
    public <T> CompletableFuture<T> onTask(TaskId id, Function<TaskProcessor, T> read) {
        return tasks.onTask(id, read);
    }

    /**
     * Reads every task this node holds (active or replica), each on its unit's thread: one row per task, in no
     * particular order (the node's metrics and status page). A unit that does not answer (stopped) is left out.
     */
    public <T> CompletableFuture<List<T>> eachTask(BiFunction<ProcessorUnit, TaskProcessor, T> read) {
        return tasks.eachTask(read);
    }

    /** Bytes in the RocksDB block cache the process's state stores share (memtables included). */
    public static long sharedStateCacheBytes() {
        return StateStore.sharedCacheBytes();
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
        return tasks.activeNodeOf(id);
    }

    /** The nodes holding a replica of task {@code id} in the latest placement. */
    public List<String> replicaNodesOf(TaskId id) {
        return tasks.replicaNodesOf(id);
    }

    /** The stream deployed here under partitioner topic {@code topic}, or null. */
    public StreamDef deployedStream(String topic) {
        return deployments.stream(topic);
    }

    /** Notes a metric's version (recovery: the offset of its CREATE METRIC in the catalog). */
    public void metricVersion(String metric, long version) {
        deployments.metricVersion(metric, version);
    }

    /** The metric {@code name} as deployed here on partitioner topic {@code topic}, or null. */
    public MetricDef deployedMetric(String topic, String name) {
        return deployments.metric(topic, name);
    }

    /** The catalog and node-status follower of this node. */
    /** The slot of the client process ids this node gives now: no live node gives the same ids. */
    public int pidSlot() {
        return pidSlot.get();
    }

    /** The other nodes of the latest placement (the task group's members). */
    public List<String> otherNodes() {
        return tasks.otherNodes();
    }

    public ClusterDirectory directory() {
        return directory;
    }

    /** How this node is reached and what it runs, for its status ({@code coilgun.nodes}). */
    public void advertise(String pgwireAddress, String serverVersion) {
        status.advertise(pgwireAddress, serverVersion);
    }

    /** The node applied the catalog through {@code offset}: told to the cluster at once. */
    public void catalogApplied(long offset) {
        status.catalogApplied(offset);
    }

    /**
     * Waits until every node of the cluster's view (and this one) applied the catalog through {@code offset}; false
     * when some node had not within {@code timeoutMs}.
     */
    public boolean awaitCatalogApplied(long offset, long timeoutMs) {
        Set<String> nodes = new HashSet<>(tasks.view().nodes());
        nodes.add(config.nodeId());
        return directory.awaitApplied(offset, nodes, timeoutMs);
    }

    /**
     * Before a graceful stop: while other nodes are in the cluster, this node's units say they are draining, and the
     * node waits until it leads no task (each moved replica first: a copy elsewhere caught up, then a change of
     * role), or {@link #DRAIN_TIMEOUT_MS}. Its snapshot server serves the copies meanwhile. True when it leads none.
     */
    public boolean drain() {
        if (tasks.units().isEmpty()) {
            return true;
        }
        return new Drain(tasks, () -> tasks.units().forEach(ProcessorUnit::startDraining), progress)
                .run(DRAIN_TIMEOUT_MS);
    }

    @Override
    public void close() {
        conversions.close();
        status.close();
        watchdog.stop();
        backgroundBudget.close();
        recovery.close();
        for (ProcessorUnit unit : tasks.units()) {
            unit.close();
        }
        sinks.close();
        directory.leave(config.nodeId());
        directory.close();
        clusterFeed.close();
        peers.close();
        reservoirIO.close();
        publisher.close();
        router.close();
        producer.close(Duration.ofSeconds(5));
        admin.close();
    }
}
