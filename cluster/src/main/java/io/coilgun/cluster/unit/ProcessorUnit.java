package io.coilgun.cluster.unit;

import io.coilgun.cluster.assign.ClusterView;
import io.coilgun.cluster.assign.CoilgunAssignor;
import io.coilgun.cluster.assign.UnitInfo;
import io.coilgun.cluster.kafka.KafkaClients;
import io.coilgun.cluster.kafka.Topics;
import io.coilgun.cluster.task.TaskId;
import io.coilgun.cluster.task.TaskMeters;
import io.coilgun.cluster.task.TaskProcessor;
import io.coilgun.cluster.task.TaskRole;
import io.coilgun.cluster.task.TaskState;
import io.coilgun.storage.reservoir.ChunkCache;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A processor unit (railgun §3.1): one thread running many task processors through two consumers. The active
 * consumer is a member of the cluster's task group (every unit of every node): Kafka's group protocol with
 * {@link CoilgunAssignor} gives it the partitions whose tasks it leads, and the assignor's view gives it the tasks
 * it keeps a hot replica of, which the replica consumer reads by manual assignment. Active records go first: the
 * replica consumer is polled without waiting while the unit leads tasks. A task the view gives this unit to lead
 * before Kafka gives it the partition (a handover under the cooperative protocol) is led from the replica
 * consumer until then.
 *
 * <p>A task stays open across rebalances while it stays on the unit, whatever its role: a replica that becomes
 * active is promoted without recovery. A task given to the unit is opened (copied from a peer first where needed)
 * on the unit's opener thread, and joins the unit between two polls. Commands (add a metric, read a task) are
 * queued and run on the unit's thread between polls, so a running task processor is only ever touched by this
 * thread. Checkpoints at most every 100 ms and whenever the unit goes idle.
 */
public final class ProcessorUnit implements AutoCloseable, CoilgunAssignor.UnitContext {
    private static final Logger LOG = LoggerFactory.getLogger(ProcessorUnit.class);
    private static final Duration POLL = Duration.ofMillis(50);
    /** How long the active consumer waits for records while the unit also runs replicas. */
    private static final Duration SHARED_POLL = Duration.ofMillis(5);
    private static final long CHECKPOINT_EVERY_NS = 100_000_000L;
    /**
     * How long a backfill may run between two polls: live records wait for it at most that long. Shorter right after
     * records were taken (live traffic), so that a backfill goes at the speed of the unit's idle time.
     */
    private static final long BACKFILL_SLICE_IDLE_NS = 2_000_000L;
    private static final long BACKFILL_SLICE_BUSY_NS = 300_000L;
    /** How long a unit with background work polls while another unit runs its slice. */
    private static final Duration BACKGROUND_WAIT = Duration.ofMillis(2);
    /** How long a new fill waits before its first slice (see {@link #iterate}). */
    private static final long FILL_START_DELAY_NS = Long.getLong("coilgun.fillStartDelayMs", 1000) * 1_000_000L;
    /** How often the active tasks' positions are committed to the task group (each commit is a broker write). */
    private static final long COMMIT_EVERY_NS = 500_000_000L;

    private final String name;
    private final int index;
    private final UnitHost host;
    private final KafkaConsumer<byte[], byte[]> active;
    private final KafkaConsumer<byte[], byte[]> replica;
    private final Map<TopicPartition, TaskProcessor> tasks = new HashMap<>();
    /**
     * The partitions the replica consumer reads: those of the unit's replicas, and those of the tasks it leads whose
     * Kafka partition it does not own yet (a handover: the old leader gives it back first, {@link CoilgunAssignor}).
     */
    private final Set<TopicPartition> replicaReads = new HashSet<>();
    /**
     * Tasks whose Kafka partition just came to the active consumer while the replica consumer read it (a task this
     * unit led before it owned the partition). Both consumers read it (the task skips what it applied) until the
     * active consumer's first record of it: its first fetch waits for the one in flight for the other partitions,
     * up to the fetch wait, which the task's events must not.
     */
    private final Set<TopicPartition> handingOver = new HashSet<>();
    /**
     * Tasks given to this unit that are not open yet (opened by {@link #opener}, copied from a peer first where
     * needed), with the role they get.
     */
    private final Map<TopicPartition, TaskRole> opening = new HashMap<>();
    /**
     * Opens the tasks given to this unit off its thread: opening a task's state store and reservoir takes tens to
     * hundreds of milliseconds, which the tasks the unit leads must not wait for. Opening reads no chunk, so the
     * unit's chunk cache stays its thread's. One thread: a task this unit closed is opened again after its close.
     */
    private final ExecutorService opener;
    private final ConcurrentLinkedQueue<Runnable> commands = new ConcurrentLinkedQueue<>();
    private final Thread thread;
    private final ChunkCache chunkCache;
    private Set<String> topics = Set.of();
    /** The assignment being received (set by the assignor inside the poll, used by the rebalance listener). */
    private ClusterView view = ClusterView.EMPTY;
    private String memberId = "";
    /** The active tasks' positions at the last checkpoint, committed at the next one. */
    private Map<TopicPartition, OffsetAndMetadata> pendingCommit = Map.of();
    private long lastCommit = System.nanoTime();
    private volatile boolean running = true;
    /**
     * When the unit last came back from a poll (System.nanoTime), or 0 while it waits in one: the work since then
     * (records, commands, a background slice, a checkpoint) is what live events wait behind ({@link StallWatchdog}).
     */
    private volatile long busySince;
    /** Whether one of the unit's tasks was filling a metric at its last round. */
    private boolean wasFilling;
    /** How long its checkpoints take (all the touched tasks' together). */
    private final io.micrometer.core.instrument.Timer checkpoints;
    /** The fatal error that stopped the unit's thread, or null while it runs. */
    private volatile Throwable died;

    /**
     * @param group the consumer group of every active consumer of the cluster
     * @param chunkCache the decoded-chunk cache of this unit's reservoirs: one per unit, so no lock is shared
     *     between units
     */
    public ProcessorUnit(int index, String bootstrapServers, String group, int sessionTimeoutMs, UnitHost host,
            ChunkCache chunkCache) {
        this.index = index;
        this.name = "unit-" + index;
        this.host = host;
        this.chunkCache = chunkCache;
        this.checkpoints = io.micrometer.core.instrument.Timer.builder("coilgun.checkpoint")
                .description("Time a processor unit took to checkpoint the tasks that changed since its last checkpoint")
                .tag("unit", name).publishPercentiles(TaskMeters.QUANTILES)
                .distributionStatisticExpiry(java.time.Duration.ofMinutes(1)).register(host.meters());
        String client = "coilgun-" + host.nodeId() + "-" + name;
        this.active = KafkaClients.groupConsumer(bootstrapServers, client, group, sessionTimeoutMs,
                CoilgunAssignor.class, Map.of(CoilgunAssignor.CONTEXT, this), 1000, KafkaClients.IDLE_FETCH_WAIT_MS);
        // smaller batches: a replica catching up yields to the unit's actives at least every 200 records
        this.replica = KafkaClients.consumer(bootstrapServers, client + "-replica", 200, KafkaClients.IDLE_FETCH_WAIT_MS);
        this.thread = new Thread(this::run, "coilgun-" + name);
        this.opener = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "coilgun-" + name + "-opener");
            t.setDaemon(true);
            return t;
        });
    }

    public String name() {
        return name;
    }

    /** Any thread: see {@link #busySince}. */
    long busySince() {
        return busySince;
    }

    Thread thread() {
        return thread;
    }

    public void start() {
        thread.start();
    }

    /** Runs {@code command} on the unit's thread; the future completes when it ran. */
    public CompletableFuture<Void> submit(Consumer<ProcessorUnit> command) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        if (died != null) {
            done.completeExceptionally(new IllegalStateException("processor unit " + name + " stopped: " + died));
            return done;
        }
        commands.add(() -> {
            try {
                command.accept(this);
                done.complete(null);
            } catch (Throwable t) {
                done.completeExceptionally(t);
            }
        });
        active.wakeup();
        replica.wakeup();
        return done;
    }

    /**
     * On the unit's thread: the partitioner topics of the streams deployed on the node. A change makes the group
     * rebalance. The unit also subscribes to the catalog topic (never assigned as a task), so it is a member of the
     * group, and its node part of the cluster's view, before any stream exists.
     */
    public void subscribe(Set<String> partitioners) {
        Set<String> wanted = new HashSet<>(partitioners);
        wanted.add(Topics.CATALOG);
        if (wanted.equals(topics)) {
            return;
        }
        topics = Set.copyOf(wanted);
        active.subscribe(topics, new Listener());
    }

    /**
     * On the unit's thread: stops running the tasks of these topics and releases them without a checkpoint (their
     * stream is being dropped).
     */
    public void discardTasksOf(Set<String> dropped) {
        for (TopicPartition tp : new ArrayList<>(tasks.keySet())) {
            if (dropped.contains(tp.topic())) {
                TaskProcessor task = tasks.remove(tp);
                replicaReads.remove(tp);
                handingOver.remove(tp);
                promotedAt.remove(tp);
                task.discard();
                host.released(task.id(), this);
            }
        }
        replica.assign(new HashSet<>(replicaReads));
    }

    /** On the unit's thread: the chunk cache shared by this unit's reservoirs. */
    public ChunkCache chunkCache() {
        return chunkCache;
    }

    /** On the unit's thread: the task processors this unit runs (actives and replicas). */
    public Iterable<TaskProcessor> tasks() {
        return tasks.values();
    }

    /** On the unit's thread: the task, whatever its role, or null. */
    public TaskProcessor task(TaskId id) {
        return tasks.get(id.topicPartition());
    }

    /** On the unit's thread: how far behind the end of its partition the task is, in records (-1 unknown). */
    public long lag(TaskId id) {
        TopicPartition tp = id.topicPartition();
        TaskProcessor task = tasks.get(tp);
        if (task == null) {
            return -1;
        }
        var lag = (replicaReads.contains(tp) ? replica : active).currentLag(tp);
        return lag.isPresent() ? lag.getAsLong() : -1;
    }

    // The assignor's questions (on this thread, inside the active consumer's poll)

    @Override
    public String node() {
        return host.nodeId();
    }

    @Override
    public int unit() {
        return index;
    }

    @Override
    public Map<TaskId, UnitInfo.Held> held() {
        Map<TaskId, UnitInfo.Held> held = new HashMap<>(host.staleTasks());
        for (TaskProcessor task : tasks.values()) {
            held.put(task.id(), new UnitInfo.Held(task.role(), task.nextOffset()));
        }
        for (TopicPartition tp : opening.keySet()) {
            held.putIfAbsent(TaskId.of(tp), new UnitInfo.Held(TaskRole.STALE, -1)); // its copy is on the way here
        }
        return held;
    }

    @Override
    public int copies(String topic) {
        return host.copies(topic);
    }

    /** The node is stopping: the unit asks for no copy and hands its actives over (TaskAssignor, draining). */
    private volatile boolean draining;

    @Override
    public boolean draining() {
        return draining;
    }

    /** The node is stopping: tells the group (a rebalance), which moves this unit's tasks away replica first. */
    public void startDraining() {
        submit(u -> {
            draining = true;
            rebalanceIn(0);
        });
    }

    /** When this unit, the group's leader, rebalances again (System.nanoTime()), 0 for not planned. */
    private long rebalanceAt;
    /**
     * When the unit last asked the group to rebalance, and when it last joined (System.nanoTime()). Kafka forgets a
     * request made while a rebalance is under way (its member joined before the request: a drain, a change of
     * replicas the leader has not seen): the unit asks again once that rebalance is over.
     */
    private long askedAt;
    private long joinedAt;

    @Override
    public void joining() {
        joinedAt = System.nanoTime();
    }

    /** Plans a rebalance in {@code delayMs}, unless one is planned sooner. */
    @Override
    public void rebalanceIn(long delayMs) {
        long at = System.nanoTime() + delayMs * 1_000_000L;
        if (rebalanceAt == 0 || at - rebalanceAt < 0) {
            rebalanceAt = at == 0 ? 1 : at;
        }
    }

    @Override
    public ClusterView lastView() {
        return view;
    }

    @Override
    public long replicaRestoreDelayMs() {
        return host.replicaRestoreDelayMs();
    }

    @Override
    public void assigned(ClusterView view, String memberId) {
        this.view = view;
        this.memberId = memberId;
        host.placed(view);
        if (askedAt - joinedAt > 0) {
            rebalanceIn(0); // asked while this rebalance was under way: it may not know why
        }
    }

    /**
     * Keeps tasks open across rebalances and reconciles when the assignment comes. Under the cooperative protocol
     * Kafka revokes only the partitions that move (before the new view is known) and names only the added ones;
     * under the eager protocol it revokes everything first.
     */
    private final class Listener implements ConsumerRebalanceListener {
        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
            for (TopicPartition tp : partitions) {
                TaskProcessor task = tasks.get(tp);
                if (task != null) {
                    checkpoint(task); // what the next holder starts from, should it move
                }
            }
            commitNow(); // the replies so far were sent: the next active need not send them again
            pendingCommit = Map.of();
        }

        @Override
        public void onPartitionsLost(Collection<TopicPartition> partitions) {
            // the group went on without this unit: its tasks are reconciled with the next assignment
        }

        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> added) {
            reconcile(new HashSet<>(added));
        }
    }

    /**
     * Makes the unit's tasks what the view says: the tasks it leads (the view's, whose Kafka partitions it owns or
     * will own at the next rebalance) and those it replicates. A task whose partition the active consumer owns is
     * read there; every other task through the replica consumer.
     *
     * @param added the partitions the active consumer did not own before this rebalance
     */
    private void reconcile(Set<TopicPartition> added) {
        long started = System.nanoTime();
        Set<TopicPartition> owned = active.assignment();
        Set<TopicPartition> leads = new HashSet<>(owned);
        for (TaskId id : view.placements().activeOf(memberId)) {
            leads.add(id.topicPartition());
        }
        Set<TopicPartition> replicas = new HashSet<>();
        for (TaskId id : view.placements().replicasOf(memberId)) {
            if (!leads.contains(id.topicPartition())) {
                replicas.add(id.topicPartition());
            }
        }
        // release first, so a task moving to another unit of this node can be opened there
        for (TopicPartition tp : new ArrayList<>(tasks.keySet())) {
            if (!leads.contains(tp) && !replicas.contains(tp)) {
                release(tp);
            }
        }
        opening.keySet().removeIf(tp -> !leads.contains(tp) && !replicas.contains(tp)); // the copy goes on
        Set<TopicPartition> moved = new HashSet<>(added); // tasks whose reading consumer starts at their position
        Set<TopicPartition> all = union(leads, replicas);
        Map<TopicPartition, Long> logStarts = logStarts(all);
        for (TopicPartition tp : all) {
            TaskProcessor task = tasks.get(tp);
            TaskRole role = leads.contains(tp) ? TaskRole.ACTIVE : TaskRole.REPLICA;
            if (task == null) {
                if (!opening.containsKey(tp)) {
                    startOpening(tp, role, logStarts.getOrDefault(tp, 0L));
                }
                opening.put(tp, role);
                continue;
            }
            if (task.role() == TaskRole.REPLICA && role == TaskRole.ACTIVE) {
                int sent = task.promote(committed(tp));
                promotedAt.put(tp, System.nanoTime());
                LOG.info("unit={} task={} replica promoted to active; {} kept replies sent", name, task.id(), sent);
            } else if (task.role() != role) {
                LOG.info("unit={} task={} {} -> {}", name, task.id(), task.role(), role);
                task.role(role);
            }
        }
        Set<TopicPartition> before = new HashSet<>(replicaReads);
        handingOver.retainAll(owned);
        Set<TopicPartition> reads = new HashSet<>();
        for (var e : tasks.entrySet()) {
            TopicPartition tp = e.getKey();
            if (!owned.contains(tp)) {
                reads.add(tp);
            } else if (before.contains(tp) && e.getValue().state() != TaskState.FAILED) {
                handingOver.add(tp);
                reads.add(tp);
                moved.add(tp); // the active consumer starts at its position
            }
        }
        replicaReads.clear();
        replicaReads.addAll(reads);
        replica.assign(new HashSet<>(replicaReads)); // the partitions it keeps keep their positions
        for (TopicPartition tp : replicaReads) {
            if (!before.contains(tp) || moved.contains(tp) && !handingOver.contains(tp)) {
                replica.seek(tp, tasks.get(tp).nextOffset());
            }
        }
        for (TopicPartition tp : owned) {
            TaskProcessor task = tasks.get(tp);
            if (task == null) {
                active.pause(Set.of(tp)); // its stream is not here (dropped meanwhile), or its copy is on the way
            } else if (moved.contains(tp)) {
                active.seek(tp, task.nextOffset());
                if (task.state() == TaskState.FAILED) {
                    active.pause(Set.of(tp));
                }
            }
        }
        LOG.info("unit={} generation={} leads {} tasks ({} owned in Kafka), replicates {}, opens {}; in {} ms", name,
                view.generation(), leads.size(), owned.size(), replicas.size(), opening.size(),
                (System.nanoTime() - started) / 1_000_000);
    }

    /** Each partition's first offset in Kafka (what retention kept), for those this unit has not open or opening. */
    private Map<TopicPartition, Long> logStarts(Set<TopicPartition> partitions) {
        Set<TopicPartition> unopened = new HashSet<>(partitions);
        unopened.removeAll(tasks.keySet());
        unopened.removeAll(opening.keySet());
        if (unopened.isEmpty()) {
            return Map.of();
        }
        for (int attempt = 0; attempt < 3; attempt++) {
            try {
                return active.beginningOffsets(unopened, Duration.ofSeconds(5));
            } catch (WakeupException e) {
                // a command's wake-up call, pending since it was submitted: ask again
            } catch (RuntimeException e) {
                LOG.warn("unit={} first offsets of {} unknown ({})", name, unopened, e.toString());
                return Map.of();
            }
        }
        return Map.of();
    }

    /**
     * Opens a task given to this unit, on the {@link #opener}: after the node copied it from a peer when it has to
     * ({@link UnitHost#recoverFirst}), from this node's data. The unit takes it between two polls ({@link #opened}).
     */
    private void startOpening(TopicPartition tp, TaskRole role, long logStart) {
        TaskId id = TaskId.of(tp);
        opener.execute(() -> {
            boolean copying;
            try {
                copying = host.recoverFirst(id, role, logStart, this, copied -> {
                    try {
                        opener.execute(() -> openOff(tp, copied));
                    } catch (java.util.concurrent.RejectedExecutionException closing) {
                        // the unit stopped meanwhile; the copy stays on disk for the next start
                    }
                });
            } catch (RuntimeException e) {
                LOG.error("unit={} task={} peer recovery not started", name, tp, e);
                copying = false;
            }
            if (!copying) {
                openOff(tp, null);
            }
        });
    }

    /** On the opener: opens the task from this node's data and hands it to the unit's thread. */
    private void openOff(TopicPartition tp, Boolean copied) {
        TaskProcessor task = null;
        RuntimeException failure = null;
        try {
            task = host.open(TaskId.of(tp), this);
        } catch (RuntimeException e) {
            failure = e;
        }
        TaskProcessor done = task;
        RuntimeException failed = failure;
        submit(u -> u.opened(tp, done, failed, copied));
    }

    /**
     * On the unit's thread: a task it was given is open (or could not be opened; null when its stream is not here).
     * It runs with the role it has now, unless it was given to another unit or node meanwhile. A task whose data
     * ends before the first offset Kafka still holds cannot go on exactly (the events between are gone): it is
     * stopped, loudly, never run from an empty or partial window.
     *
     * @param copied whether it was copied from a peer first (null: it was not to be)
     */
    private void opened(TopicPartition tp, TaskProcessor task, RuntimeException failure, Boolean copied) {
        TaskRole role = opening.remove(tp);
        if (failure != null) {
            LOG.error("unit={} task={} cannot be opened; it does not run here until the next rebalance", name, tp,
                    failure);
            return;
        }
        if (task == null) {
            return;
        }
        if (role == null || tasks.containsKey(tp) || !running) {
            close(task, !topics.contains(tp.topic())); // given elsewhere meanwhile; its data stays on disk
            return;
        }
        long logStart = logStarts(Set.of(tp)).getOrDefault(tp, 0L);
        tasks.put(tp, task);
        task.role(role);
        if (task.nextOffset() < logStart) {
            task.stopFor("its history is lost: this node's copy ends at offset " + task.nextOffset() + ", Kafka keeps "
                    + "the partition only from offset " + logStart + " on, and no other node has a copy to recover "
                    + "from");
        }
        if (active.assignment().contains(tp)) {
            active.seek(tp, task.nextOffset());
            if (task.state() != TaskState.FAILED) {
                active.resume(Set.of(tp));
            }
        } else {
            replicaReads.add(tp);
            replica.assign(new HashSet<>(replicaReads));
            replica.seek(tp, task.nextOffset());
        }
        LOG.info("unit={} task={} opened as {} at offset {}{}", name, task.id(), role, task.nextOffset(),
                copied == null ? "" : copied ? ", copied from a peer" : ", not copied: from its own data and Kafka");
    }

    /** The offset the task group committed for a partition (replies sent before it), or -1. */
    private long committed(TopicPartition tp) {
        try {
            OffsetAndMetadata c = active.committed(Set.of(tp), Duration.ofSeconds(5)).get(tp);
            return c == null ? -1 : c.offset();
        } catch (RuntimeException e) {
            LOG.warn("unit={} task={} committed offset unknown ({}); every kept reply is sent", name, tp, e.toString());
            return -1;
        }
    }

    /**
     * The offsets of the active tasks, committed to the task group: the replies of the records before them were
     * sent. A replica promoted later re-sends the replies from there on.
     */
    private Map<TopicPartition, OffsetAndMetadata> activePositions() {
        Map<TopicPartition, OffsetAndMetadata> positions = new HashMap<>();
        for (var e : tasks.entrySet()) {
            TopicPartition tp = e.getKey();
            if (e.getValue().role() == TaskRole.ACTIVE
                    && (!replicaReads.contains(tp) || handingOver.contains(tp))) { // its partition's owner
                positions.put(e.getKey(), new OffsetAndMetadata(e.getValue().nextOffset()));
            }
        }
        return positions;
    }

    private void commitNow() {
        Map<TopicPartition, OffsetAndMetadata> positions = activePositions();
        if (positions.isEmpty()) {
            return;
        }
        try {
            active.commitSync(positions, Duration.ofSeconds(5));
        } catch (RuntimeException e) {
            LOG.debug("unit={} offsets not committed: {}", name, e.toString());
        }
    }

    private static Set<TopicPartition> union(Set<TopicPartition> a, Set<TopicPartition> b) {
        Set<TopicPartition> all = new HashSet<>(a);
        all.addAll(b);
        return all;
    }

    /** Closes a task this unit no longer holds, with a checkpoint; its data stays on the node's disk. */
    private void release(TopicPartition tp) {
        TaskProcessor task = tasks.remove(tp);
        replicaReads.remove(tp);
        handingOver.remove(tp);
        promotedAt.remove(tp);
        if (task != null) {
            close(task, false);
        }
    }

    /** Closes a task (with a checkpoint, or discarded when its stream is being dropped) and tells the node. */
    private void close(TaskProcessor task, boolean discard) {
        try {
            if (discard) {
                task.discard();
            } else {
                task.close();
            }
        } catch (RuntimeException e) {
            LOG.error("unit={} task={} close failed", name, task.id(), e);
        } finally {
            host.released(task.id(), this);
        }
    }

    /** Checkpoints the tasks that applied records since the last checkpoint, which is now. */
    private void checkpoint(Set<TaskProcessor> touched, long[] lastCheckpoint, long now) {
        if (!touched.isEmpty()) {
            for (TaskProcessor task : touched) {
                checkpoint(task);
            }
            checkpoints.record(System.nanoTime() - now, java.util.concurrent.TimeUnit.NANOSECONDS);
        }
        touched.clear();
        lastCheckpoint[0] = now;
    }

    private void checkpoint(TaskProcessor task) {
        try {
            task.checkpointIfDirty();
        } catch (RuntimeException e) {
            LOG.error("unit={} task={} checkpoint failed", name, task.id(), e);
        }
    }

    /**
     * The unit's loop. Nothing a task does stops it: a task contains its own failures ({@link TaskProcessor}), and
     * anything else one iteration throws is logged and the loop goes on. Only an error of the JVM itself (out of
     * memory) stops the unit, loudly: its tasks are stopped so statements for them fail at once.
     */
    private void run() {
        Set<TaskProcessor> touched = new HashSet<>();
        long[] lastCheckpoint = {System.nanoTime()};
        try {
            while (running) {
                try {
                    if (!iterate(touched, lastCheckpoint)) {
                        break;
                    }
                } catch (VirtualMachineError fatal) {
                    if (fatal instanceof StackOverflowError) {
                        LOG.error("unit={} iteration failed; going on", name, fatal);
                        continue;
                    }
                    throw fatal;
                } catch (Throwable t) {
                    LOG.error("unit={} iteration failed; going on", name, t);
                }
            }
        } catch (Throwable fatal) {
            died = fatal;
            LOG.error("unit={} stopped by a fatal error; its tasks are stopped until the node restarts", name, fatal);
            Runnable queued;
            while ((queued = commands.poll()) != null) {
                queued.run(); // a command runs or fails its future: nobody waits for a dead unit
            }
            for (TaskProcessor task : tasks.values()) {
                task.stopFor("its processor unit " + name + " stopped: " + fatal);
            }
            return;
        }
        opener.shutdownNow();
        try {
            opener.awaitTermination(10, java.util.concurrent.TimeUnit.SECONDS); // its last opens, closed below
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        Runnable command;
        while ((command = commands.poll()) != null) {
            command.run();
        }
        commitNow();
        for (TopicPartition tp : new ArrayList<>(tasks.keySet())) {
            release(tp);
        }
        active.close(Duration.ofSeconds(5)); // leaves the group: the others take its tasks at once
        replica.close(Duration.ofSeconds(2));
    }

    /** One round: commands, the polls, their records, maybe checkpoints. False when the thread is interrupted. */
    private boolean iterate(Set<TaskProcessor> touched, long[] lastCheckpoint) {
        Runnable command;
        while ((command = commands.poll()) != null) {
            command.run();
        }
        boolean replicating = !replicaReads.isEmpty();
        if (topics.isEmpty() && !replicating) {
            busySince = 0;
            try {
                Thread.sleep(10); // idle until a stream is deployed; commands wake us up within 10 ms
            } catch (InterruptedException e) {
                return false;
            }
            return true;
        }
        if (rebalanceAt != 0 && System.nanoTime() - rebalanceAt >= 0) {
            rebalanceAt = 0;
            askedAt = System.nanoTime();
            active.enforceRebalance(draining ? "the node drains" : "asked by the node or the leader");
        }
        // Background work (backfills, replays) runs in slices between polls, one unit of the node at a time and within
        // the node's share of a core: a unit that has some polls without waiting when its slice is due and it holds
        // the slot, else briefly.
        boolean backfilling = anyBackfillWork();
        boolean filling = backfilling && anyFill();
        if (filling && !wasFilling) {
            // A fill (CREATE METRIC … WITH (backfill)) begins a little after the statement that asked for it: that
            // statement's own work (planning, the catalog, the start markers) and the first slices' compilation
            // would otherwise fall in the same moment, on the same cores as live events. (A REPLAY starts at once:
            // its client waits for its rows.)
            host.deferBackground(System.nanoTime() + FILL_START_DELAY_NS);
        }
        wasFilling = filling;
        java.util.concurrent.Semaphore slots = host.backgroundSlots();
        boolean slot = backfilling && System.nanoTime() - host.backgroundNotBefore() >= 0 && slots.tryAcquire();
        Duration wait = slot ? Duration.ZERO : backfilling ? BACKGROUND_WAIT : null;
        int taken = 0;
        if (!topics.isEmpty()) {
            taken += take(active, wait != null ? wait : replicating ? SHARED_POLL : POLL, touched, lastCheckpoint);
        }
        if (!replicaReads.isEmpty()) {
            taken += take(replica, topics.isEmpty() && wait == null ? POLL : wait != null ? wait : Duration.ZERO,
                    touched, lastCheckpoint);
        }
        if (slot) {
            try {
                long began = System.nanoTime();
                backfill(began + (taken == 0 ? BACKFILL_SLICE_IDLE_NS : BACKFILL_SLICE_BUSY_NS), touched);
                host.backgroundRan(began, System.nanoTime());
            } finally {
                slots.release();
            }
        }
        // Checkpoints bound what a crash replays from Kafka; replies never wait for them. At most one per
        // CHECKPOINT_EVERY_NS under load, and at once when the unit goes idle.
        long now = System.nanoTime();
        // (A backfill keeps the unit busy without records: checkpoints at the interval then.)
        if (!touched.isEmpty() && ((taken == 0 && !backfilling) || now - lastCheckpoint[0] >= CHECKPOINT_EVERY_NS)) {
            checkpoint(touched, lastCheckpoint, now);
            // Every COMMIT_EVERY_NS, commit the positions noted at the previous commit: their replies were sent that
            // long ago (acks=all, no linger), so a promoted replica re-sends only the replies that may have died
            // with this node (it keeps the last RecentReplies.CAPACITY of them).
            if (now - lastCommit >= COMMIT_EVERY_NS) {
                if (!pendingCommit.isEmpty()) {
                    active.commitAsync(pendingCommit, (offsets, e) -> {
                        if (e != null) {
                            LOG.debug("unit={} offsets not committed: {}", name, e.toString());
                        }
                    });
                }
                pendingCommit = activePositions();
                lastCommit = now;
            }
        }
        return true;
    }

    /**
     * Polls one consumer and hands each record to its task; the number of records taken. A poll that takes longer
     * than a checkpoint interval to apply (many metrics, a backlog) checkpoints its tasks on the way, so that a
     * checkpoint's batch stays the size of one interval's changes.
     */
    private int take(KafkaConsumer<byte[], byte[]> consumer, Duration timeout, Set<TaskProcessor> touched,
            long[] lastCheckpoint) {
        ConsumerRecords<byte[], byte[]> records;
        busySince = 0;
        try {
            records = consumer.poll(timeout);
        } catch (WakeupException e) {
            return 0;
        } catch (RuntimeException e) {
            if (running) {
                LOG.error("unit={} poll failed", name, e);
            }
            return 0;
        } finally {
            busySince = System.nanoTime();
        }
        // the tasks this unit leads from the replica consumer (a handover) first: a replica catching up in the
        // same batch must not make their events wait
        boolean activesFirst = consumer == replica && leadsFromReplica();
        for (TopicPartition tp : records.partitions()) {
            if (!activesFirst || ledHere(tp)) {
                apply(consumer, tp, records.records(tp), touched, lastCheckpoint);
            }
        }
        if (activesFirst) {
            for (TopicPartition tp : records.partitions()) {
                if (!ledHere(tp)) {
                    apply(consumer, tp, records.records(tp), touched, lastCheckpoint);
                }
            }
        }
        return records.count();
    }

    private boolean anyFill() {
        for (TaskProcessor task : tasks.values()) {
            if (task.filling()) {
                return true;
            }
        }
        return false;
    }

    private boolean anyBackfillWork() {
        for (TaskProcessor task : tasks.values()) {
            if (task.hasBackfillWork()) {
                return true;
            }
        }
        return false;
    }

    /**
     * Runs the tasks' backfills (history of metrics created WITH (backfill = …)) until {@code deadlineNanos}, at a
     * lower priority than live records: only between polls, in slices.
     */
    private void backfill(long deadlineNanos, Set<TaskProcessor> touched) {
        for (TaskProcessor task : tasks.values()) {
            if (task.hasBackfillWork()) {
                task.backfill(deadlineNanos);
                touched.add(task); // its rows are checkpointed with the task's, as it goes
                if (System.nanoTime() - deadlineNanos >= 0) {
                    return;
                }
            }
        }
    }

    /**
     * Tasks promoted at the last rebalance, until their first event as active (System.nanoTime() of the promotion):
     * how long a handover kept events waiting is logged once per handover.
     */
    private final Map<TopicPartition, Long> promotedAt = new HashMap<>();

    /** Hands one partition's polled records to its task, in order. */
    private void apply(KafkaConsumer<byte[], byte[]> consumer, TopicPartition tp,
            List<ConsumerRecord<byte[], byte[]>> batch, Set<TaskProcessor> touched, long[] lastCheckpoint) {
        TaskProcessor task = tasks.get(tp);
        if (task == null) {
            return;
        }
        if (consumer == active && !handingOver.isEmpty() && handingOver.remove(tp)) {
            replicaReads.remove(tp); // the active consumer reads it now
            replica.assign(new HashSet<>(replicaReads));
        }
        if (!promotedAt.isEmpty() && task.role() == TaskRole.ACTIVE) {
            Long promoted = promotedAt.remove(tp);
            if (promoted != null) {
                LOG.info("unit={} task={} first event as active {} ms after the promotion, {} ms after it was sent "
                        + "(from the {} consumer)", name, task.id(), (System.nanoTime() - promoted) / 1_000_000,
                        System.currentTimeMillis() - batch.get(0).timestamp(),
                        consumer == active ? "active" : "replica");
            }
        }
        boolean rolledBack = false;
        for (ConsumerRecord<byte[], byte[]> record : batch) {
            if (rolledBack && task.state() != TaskState.FAILED) {
                return; // a rolled-back task gets the rest again after its seek
            }
            long began = System.nanoTime();
            boolean rewind = task.process(record);
            long now = task.meters().taken(began); // one clock read serves the timer and the checkpoint's due time
            if (rewind) {
                rewind(consumer, tp, task);
                if (handingOver.contains(tp)) {
                    rewind(consumer == active ? replica : active, tp, task);
                }
                rolledBack = true;
            }
            touched.add(task);
            if (now - lastCheckpoint[0] >= CHECKPOINT_EVERY_NS) {
                checkpoint(touched, lastCheckpoint, now);
            }
        }
    }

    /** Whether this unit leads the task of {@code tp}. */
    private boolean ledHere(TopicPartition tp) {
        TaskProcessor task = tasks.get(tp);
        return task != null && task.role() == TaskRole.ACTIVE;
    }

    /** Whether the unit leads a task from its replica consumer (a handover under way). */
    private boolean leadsFromReplica() {
        for (TopicPartition tp : replicaReads) {
            if (ledHere(tp)) {
                return true;
            }
        }
        return false;
    }

    /** After a task rolled back: its consumer reads it again from its position, or no more while it is stopped. */
    private static void rewind(KafkaConsumer<byte[], byte[]> consumer, TopicPartition tp, TaskProcessor task) {
        if (task.state() == TaskState.FAILED) {
            consumer.pause(Set.of(tp));
        } else {
            consumer.seek(tp, task.nextOffset());
        }
    }

    @Override
    public void close() {
        running = false;
        active.wakeup();
        replica.wakeup();
        try {
            thread.join(15_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
