package io.coilgun.cluster.unit;

import io.coilgun.cluster.assign.CoilgunAssignor;
import io.coilgun.cluster.assign.UnitInfo;
import io.coilgun.cluster.kafka.KafkaClients;
import io.coilgun.cluster.kafka.Topics;
import io.coilgun.cluster.task.TaskId;
import io.coilgun.cluster.task.TaskProcessor;
import io.coilgun.cluster.task.TaskRole;
import io.coilgun.cluster.task.TaskState;
import io.coilgun.storage.reservoir.ChunkCache;
import io.micrometer.core.instrument.Counter;
import java.time.Duration;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A processor unit (railgun §3.1): one thread running many task processors through two consumers, the way a Kafka
 * Streams StreamThread runs its tasks. This class is the thread: its poll loop and its command queue. The rest is
 * in the classes it runs:
 * <ul>
 *   <li>{@link GroupMembership}: the unit as a member of the cluster's task group (what {@link CoilgunAssignor}
 *       asks of it, when it asks for a rebalance);</li>
 *   <li>{@link TaskReconciler}: its tasks, and what becomes of them when the assignment changes (the active
 *       consumer reads the tasks it leads, the replica consumer its hot replicas and a task it leads before Kafka
 *       gives it the partition);</li>
 *   <li>{@link TaskOpener}: opens the tasks given to it on its opener thread (copied from a peer first where
 *       needed); they join the unit between two polls;</li>
 *   <li>{@link CommitPolicy}: checkpoints at most every 100 ms and whenever the unit goes idle, and commits the
 *       active tasks' positions;</li>
 *   <li>{@link BackgroundSlices}: backfills and replays in slices between polls.</li>
 * </ul>
 * Active records go first: the replica consumer is polled without waiting while the unit leads tasks. Commands (add
 * a metric, read a task) are queued and run on the unit's thread between polls, so a running task processor is only
 * ever touched by this thread.
 */
public final class ProcessorUnit implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ProcessorUnit.class);
    private static final Duration POLL = Duration.ofMillis(50);
    /** How long the active consumer waits for records while the unit also runs replicas. */
    private static final Duration SHARED_POLL = Duration.ofMillis(5);
    /** How long a unit with background work polls while another unit runs its slice. */
    private static final Duration BACKGROUND_WAIT = Duration.ofMillis(2);

    private final String name;
    private final KafkaConsumer<byte[], byte[]> active;
    private final KafkaConsumer<byte[], byte[]> replica;
    /** Only asks for partitions' first offsets (no fetch in flight to wait behind). */
    private final KafkaConsumer<byte[], byte[]> offsets;
    private final GroupMembership membership;
    /** Times the group removed this unit (its session expired) while it lived. */
    private final Counter sessionsLost;
    /** Whether the unit may still answer as its tasks' active copy ({@link GroupLease}). */
    private final GroupLease lease;
    /** When a broker last answered the unit's consumer (cut off from Kafka, or a coordinator moving?). */
    private final BrokerHearing hearing = new BrokerHearing();
    /** The replica consumer's: it fetches from other leaders than the active one (any broker answering counts). */
    private final BrokerHearing replicaHearing = new BrokerHearing();
    /** When the active consumer's current poll began (System.nanoTime()): a proof of membership in it is newer. */
    private long activePollStarted;
    private final TaskOpener opener;
    private final TaskReconciler reconciler;
    private final CommitPolicy commits;
    private final BackgroundSlices background;
    private final ProgressWaiters waiters = new ProgressWaiters();
    /** Where the unit's tasks are, for its waiters (held once: no allocation per check). */
    private final ProgressWaiters.Progress progress;
    private final ConcurrentLinkedQueue<Runnable> commands = new ConcurrentLinkedQueue<>();
    private final Thread thread;
    private final ChunkCache chunkCache;
    private Set<String> topics = Set.of();
    private volatile boolean running = true;
    /**
     * When the unit last came back from a poll (System.nanoTime), or 0 while it waits in one: the work since then
     * (records, commands, a background slice, a checkpoint) is what live events wait behind ({@link StallWatchdog}).
     */
    private volatile long busySince;
    /** The fatal error that stopped the unit's thread, or null while it runs. */
    private volatile Throwable died;

    /**
     * @param group the consumer group of every active consumer of the cluster
     * @param chunkCache the decoded-chunk cache of this unit's reservoirs: one per unit, so no lock is shared
     *     between units
     */
    public ProcessorUnit(int index, String bootstrapServers, String group, int sessionTimeoutMs, UnitHost host,
            ChunkCache chunkCache) {
        this.name = "unit-" + index;
        this.chunkCache = chunkCache;
        this.membership = new GroupMembership(index, host, this::addHeld);
        this.lease = new GroupLease(name, sessionTimeoutMs);
        this.sessionsLost = Counter.builder("coilgun.unit.sessions.lost")
                .description("Times the task group went on without a processor unit (its session expired: a dead, "
                        + "stalled or cut-off node's failover; on a live node, a false one)")
                .tag("unit", name).register(host.meters());
        String client = "coilgun-" + host.nodeId() + "-" + name;
        this.active = KafkaClients.groupConsumer(bootstrapServers, client, group, sessionTimeoutMs,
                CoilgunAssignor.class, Map.of(CoilgunAssignor.CONTEXT, membership), 1000,
                KafkaClients.IDLE_FETCH_WAIT_MS);
        // smaller batches: a replica catching up yields to the unit's actives at least every 200 records
        this.replica = KafkaClients.consumer(bootstrapServers, client + "-replica", 200,
                KafkaClients.IDLE_FETCH_WAIT_MS);
        this.offsets = KafkaClients.consumer(bootstrapServers, client + "-offsets", 0, 0);
        // an opened task joins the unit between two polls
        this.opener = new TaskOpener(name, host, this,
                opened -> submit(u -> u.reconciler.opened(opened, running, topics)));
        this.reconciler = new TaskReconciler(name, host, this, active, replica, offsets, opener);
        this.progress = reconciler::progress;
        this.commits = new CommitPolicy(name, active, reconciler::activePositions, reconciler::task, host.meters(),
                System.nanoTime());
        this.background = new BackgroundSlices(host, reconciler.tasks(), commits);
        this.thread = new Thread(this::run, "coilgun-" + name);
    }

    public String name() {
        return name;
    }

    /** What the assignor learns of the unit's tasks (a method: the reconciler is made after the membership). */
    private void addHeld(Map<TaskId, UnitInfo.Held> held) {
        reconciler.addHeld(held);
    }

    /**
     * Any thread: how long ago (ms) the unit last had its membership in the task group confirmed by Kafka, -1 before
     * it ever was ({@link GroupLease}).
     */
    public long groupSilenceMs() {
        return lease.silenceMs();
    }

    /** Any thread: how long ago (ms) any broker last answered one of the unit's consumers, -1 before one did. */
    public long brokerSilenceMs() {
        long a = hearing.silenceMs();
        long r = replicaHearing.silenceMs();
        return a < 0 ? r : r < 0 ? a : Math.min(a, r);
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

    /**
     * On the unit's thread (a command): decider {@code id}, one of whose forwards failed, rolls back to its
     * checkpoint and its partition is sought there, without waiting for its next record.
     */
    public void rollBackForwards(TaskId id) {
        TopicPartition tp = id.topicPartition();
        TaskProcessor task = reconciler.task(tp);
        if (task != null && task.rollBackIfAForwardFailed()) {
            reconciler.rewind(active, tp, task);
        }
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
     * Any thread: completes, with the task's next offset, once task {@code id} of this unit applied every record
     * before {@code offset}; at once, with {@code offset}, when the unit does not hold the task, or holds it stopped
     * ({@link TaskState#FAILED}), or is stopped itself. The unit checks after each round of polls, not per event.
     */
    public CompletableFuture<Long> reached(TaskId id, long offset) {
        CompletableFuture<Long> done = new CompletableFuture<>();
        if (!running) {
            done.complete(offset);
            return done;
        }
        TopicPartition tp = id.topicPartition();
        submit(u -> waiters.await(tp, offset, done, progress)).whenComplete((v, e) -> {
            if (e != null) {
                done.complete(offset); // the unit died: its tasks are stopped
            }
        });
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
        reconciler.discardTasksOf(dropped);
    }

    /** On the unit's thread: the chunk cache shared by this unit's reservoirs. */
    public ChunkCache chunkCache() {
        return chunkCache;
    }

    /** On the unit's thread: the task processors this unit runs (actives and replicas). */
    public Iterable<TaskProcessor> tasks() {
        return reconciler.tasks();
    }

    /** On the unit's thread: the task, whatever its role, or null. */
    public TaskProcessor task(TaskId id) {
        return reconciler.task(id.topicPartition());
    }

    /** On the unit's thread: how far behind the end of its partition the task is, in records (-1 unknown). */
    public long lag(TaskId id) {
        return reconciler.lag(id.topicPartition());
    }

    /** The node is stopping: tells the group (a rebalance), which moves this unit's tasks away replica first. */
    public void startDraining() {
        submit(u -> u.membership.startDraining());
    }

    /** On the unit's thread: plans a rebalance of the task group in {@code delayMs}, unless one is planned sooner. */
    public void rebalanceIn(long delayMs) {
        membership.rebalanceIn(delayMs);
    }

    /** Checkpoints what moves and reconciles the unit's tasks when the assignment comes ({@link TaskReconciler}). */
    private final class Listener implements ConsumerRebalanceListener {
        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
            commits.revoked(partitions);
        }

        @Override
        public void onPartitionsLost(Collection<TopicPartition> partitions) {
            // the group went on without this unit (silent past its session: a stall, a network cut): its tasks were
            // given to others, it stopped answering for them when its lease ran out, and the next assignment
            // reconciles them (its copies become replicas)
            sessionsLost.increment();
            LOG.warn("unit={} the task group went on without it (no heartbeat for its session: the node stood still "
                    + "or lost Kafka); its tasks moved to their replicas, it rejoins", name);
        }

        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> added) {
            lease.proven(activePollStarted); // the group's answer came in this poll: a member when it began
            reconciler.reconcile(membership.lastView(), membership.memberId(), new HashSet<>(added));
        }
    }

    /**
     * The unit's loop. Nothing a task does stops it: a task contains its own failures ({@link TaskProcessor}), and
     * anything else one iteration throws is logged and the loop goes on. Only an error of the JVM itself (out of
     * memory) stops the unit, loudly: its tasks are stopped so statements for them fail at once.
     */
    private void run() {
        try {
            while (running) {
                try {
                    if (!iterate()) {
                        break;
                    }
                    waiters.check(progress);
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
            reconciler.stopAll("its processor unit " + name + " stopped: " + fatal);
            waiters.releaseAll();
            return;
        }
        opener.close(); // its last opens are queued as commands, run below: their tasks are closed
        Runnable command;
        while ((command = commands.poll()) != null) {
            command.run();
        }
        commits.commitNow();
        reconciler.releaseAll();
        waiters.releaseAll();
        active.close(Duration.ofSeconds(5)); // leaves the group: the others take its tasks at once
        replica.close(Duration.ofSeconds(2));
        offsets.close(Duration.ofSeconds(2));
    }

    /** One round: commands, the polls, their records, maybe checkpoints. False when the thread is interrupted. */
    private boolean iterate() {
        Runnable command;
        while ((command = commands.poll()) != null) {
            command.run();
        }
        boolean replicating = reconciler.replicating();
        if (topics.isEmpty() && !replicating) {
            busySince = 0;
            try {
                Thread.sleep(10); // idle until a stream is deployed; commands wake us up within 10 ms
            } catch (InterruptedException e) {
                return false;
            }
            return true;
        }
        membership.rebalanceIfDue(active, System.nanoTime());
        if (!topics.isEmpty()) {
            long now = System.nanoTime();
            lease.renewIfDue(active, now);
            hearing.sample(active, now);
            replicaHearing.sample(replica, now);
        }
        // A unit with background work polls without waiting when its slice is due and it holds the node's slot,
        // else briefly.
        boolean backfilling = background.pending();
        boolean slot = backfilling && background.trySlot();
        Duration wait = slot ? Duration.ZERO : backfilling ? BACKGROUND_WAIT : null;
        int taken = 0;
        if (!topics.isEmpty()) {
            taken += take(active, wait != null ? wait : replicating ? SHARED_POLL : POLL);
        }
        if (reconciler.replicating()) {
            taken += take(replica, topics.isEmpty() && wait == null ? POLL : wait != null ? wait : Duration.ZERO);
        }
        if (slot) {
            background.run(taken != 0);
        }
        commits.roundEnded(taken == 0 && !backfilling, System.nanoTime());
        return true;
    }

    /** Polls one consumer and hands each record to its task; the number of records taken. */
    private int take(KafkaConsumer<byte[], byte[]> consumer, Duration timeout) {
        ConsumerRecords<byte[], byte[]> records;
        busySince = 0;
        try {
            if (consumer == active) {
                activePollStarted = System.nanoTime();
            }
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
        boolean activesFirst = consumer == replica && reconciler.leadsFromReplica();
        for (TopicPartition tp : records.partitions()) {
            if (!activesFirst || reconciler.ledHere(tp)) {
                apply(consumer, tp, records.records(tp));
            }
        }
        if (activesFirst) {
            for (TopicPartition tp : records.partitions()) {
                if (!reconciler.ledHere(tp)) {
                    apply(consumer, tp, records.records(tp));
                }
            }
        }
        return records.count();
    }

    /** Hands one partition's polled records to its task, in order. */
    private void apply(KafkaConsumer<byte[], byte[]> consumer, TopicPartition tp,
            List<ConsumerRecord<byte[], byte[]>> batch) {
        TaskProcessor task = reconciler.task(tp);
        if (task == null) {
            return;
        }
        if (task.role() == TaskRole.ACTIVE && !lease.held(System.nanoTime())) {
            lease.holdBack(consumer, tp, task.nextOffset(), System.nanoTime());
            return;
        }
        reconciler.taking(consumer, tp, task, batch.get(0).timestamp());
        boolean rolledBack = false;
        for (ConsumerRecord<byte[], byte[]> record : batch) {
            if (rolledBack && task.state() != TaskState.FAILED) {
                return; // a rolled-back task gets the rest again after its seek
            }
            long began = System.nanoTime();
            boolean rewind = task.process(record);
            long now = task.meters().taken(began); // one clock read serves the timer and the checkpoint's due time
            if (rewind) {
                reconciler.rewind(consumer, tp, task);
                rolledBack = true;
            }
            commits.applied(task, now);
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
