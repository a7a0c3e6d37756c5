package io.coilgun.cluster;

import io.coilgun.cluster.assign.ClusterView;
import io.coilgun.cluster.assign.UnitInfo;
import io.coilgun.cluster.feed.ResultFeed;
import io.coilgun.cluster.kafka.KafkaClients;
import io.coilgun.cluster.kafka.Topics;
import io.coilgun.cluster.reply.ReplySender;
import io.coilgun.cluster.sink.SinkRegistry;
import io.coilgun.cluster.sink.TaskSinks;
import io.coilgun.cluster.task.Forwarder;
import io.coilgun.cluster.task.Seeding;
import io.coilgun.cluster.task.TaskId;
import io.coilgun.cluster.task.TaskMeters;
import io.coilgun.cluster.task.TaskProcessor;
import io.coilgun.cluster.task.TaskRole;
import io.coilgun.cluster.unit.BackgroundBudget;
import io.coilgun.cluster.unit.ProcessorUnit;
import io.coilgun.cluster.unit.UnitHost;
import io.coilgun.planner.model.MetricDef;
import io.coilgun.planner.plan.TaskPlan;
import io.coilgun.storage.reservoir.ReservoirIO;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Semaphore;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What this node's processor units ask of it: to open a task from its data here (after any other unit let go of
 * it, and after a peer's copy when one is worth it), the streams deployed here, the tasks with data here that no unit
 * holds, and the node's share of background work.
 */
final class NodeUnitHost implements UnitHost {
    /** Publishes a metric's start marker to one partition of its partitioner topic (the node's event publisher). */
    @FunctionalInterface
    interface MarkerSender {
        void send(String topic, int partition, String marker);
    }

    private static final Logger LOG = LoggerFactory.getLogger(NodeUnitHost.class);
    /** How long a unit waits for another unit of this node to let go of a task it was given. */
    private static final long HANDOVER_TIMEOUT_MS = 30_000;

    private final ClusterConfig config;
    private final Deployments deployments;
    private final TaskDirectories directories;
    private final NodeTasks tasks;
    private final PeerRecovery recovery;
    private final MarkerSender markers;
    private final ReplySender replies;
    /** Where a decider's forwards go (the node's producer). */
    private final Forwarder.Sender forwards;
    private final ResultFeed feed;
    private final ReservoirIO reservoirIO;
    private final MeterRegistry meters;
    private final BackgroundBudget budget;
    /** Background work (backfills, replays) on at most one unit at a time, or all but one when there are more. */
    private final Semaphore background;
    private final StreamConversions conversions;
    private final SinkRegistry sinks;

    NodeUnitHost(ClusterConfig config, Deployments deployments, TaskDirectories directories, NodeTasks tasks,
            PeerRecovery recovery, MarkerSender markers, ReplySender replies, Forwarder.Sender forwards,
            ResultFeed feed, ReservoirIO reservoirIO, MeterRegistry meters, BackgroundBudget budget,
            StreamConversions conversions, SinkRegistry sinks) {
        this.config = config;
        this.deployments = deployments;
        this.directories = directories;
        this.tasks = tasks;
        this.recovery = recovery;
        this.markers = markers;
        this.replies = replies;
        this.forwards = forwards;
        this.feed = feed;
        this.reservoirIO = reservoirIO;
        this.meters = meters;
        this.budget = budget;
        this.background = new Semaphore(Math.max(1, config.processorUnits() - 1));
        this.conversions = conversions;
        this.sinks = sinks;
    }

    @Override
    public String nodeId() {
        return config.nodeId();
    }

    @Override
    public Semaphore backgroundSlots() {
        return background;
    }

    @Override
    public long backgroundNotBefore() {
        return budget.notBefore();
    }

    @Override
    public void backgroundRan(long began, long ended) {
        budget.ran(began, ended);
    }

    @Override
    public void deferBackground(long notBefore) {
        budget.deferTo(notBefore);
    }

    @Override
    public boolean recoverFirst(TaskId id, TaskRole role, long logStart, ProcessorUnit unit,
            Consumer<Boolean> whenDone) {
        return recovery.recoverFirst(id, role, logStart, unit, whenDone);
    }

    @Override
    public TaskProcessor open(TaskId id, ProcessorUnit unit, BooleanSupplier wanted) {
        Deployments.Deployed d = deployments.get(id.topic());
        if (d == null) {
            return null;
        }
        // a task moving between two units of this node: the other lets go of it in its own rebalance callback (and
        // a snapshot of its closed copy for a peer ends first); given elsewhere meanwhile, it is not waited for
        if (!tasks.await(() -> !wanted.getAsBoolean() || !recovery.snapshotting(id) && tasks.tryHold(id, unit),
                HANDOVER_TIMEOUT_MS)) {
            ProcessorUnit holder = tasks.unitOf(id);
            throw new IllegalStateException("task " + id + " is still held by "
                    + (holder == null ? "a snapshot for a peer" : holder.name()));
        }
        if (tasks.unitOf(id) != unit) {
            return null; // given elsewhere while it waited
        }
        directories.forget(id);
        try {
            Path dir = directories.of(id);
            // metrics not started in the task's data start at their marker (startMetric), as on every copy
            TaskPlan plan = TaskPlan.open(dir, d.stream(), d.metrics(), reservoirIO, unit.chunkCache(), true);
            TaskProcessor.PlanOpener reopen = (s, m) -> TaskPlan.open(dir, s, m, reservoirIO, unit.chunkCache());
            TaskProcessor task = new TaskProcessor(id, plan, reopen, replies, feed, d.clocks()[id.partition()]);
            task.meters(TaskMeters.of(meters, d.stream().name(), id));
            String stream = d.stream().name();
            if (Topics.isDecider(id.topic())) {
                task.forwarder(new Forwarder(forwards, () -> unit.submit(u -> u.rollBackForwards(id))));
                task.seeding(new Seeding(() -> KafkaClients.consumer(config.bootstrapServers(), "coilgun-seed-"
                        + stream, 0, 0), forwards, () -> converting(stream), s -> conversions.seeded(s)));
            } else {
                task.cut(forwards, () -> converting(stream));
            }
            task.definitions(marker -> deployments.startedBy(id.topic(), marker),
                    () -> deployments.stream(id.topic()));
            task.sinks(new TaskSinks(id.topicPartition(), sinks));
            // A copy that has not started a deployed metric (new, or behind its marker) gets a marker of its own at
            // the partition's end: one whose old marker is gone (retention) starts it there rather than never; one
            // that still meets the old marker starts it there, and this one changes nothing.
            for (MetricDef m : d.metrics()) {
                if (task.metrics().stream().noneMatch(x -> x.name().equals(m.name()))) {
                    markers.send(id.topic(), id.partition(), deployments.marker(m.name()));
                }
            }
            return task;
        } catch (RuntimeException e) {
            tasks.release(id, unit);
            throw e;
        }
    }

    /** Whether the stream is gaining a decider (none in a host without conversions: a test's). */
    private boolean converting(String stream) {
        return conversions != null && conversions.converting(stream);
    }

    @Override
    public void openWithdrawn(TaskId id) {
        tasks.signal();
    }

    @Override
    public void released(TaskId id, ProcessorUnit unit) {
        tasks.release(id, unit);
        if (!tasks.holds(id)) {
            TaskMeters.removeAll(meters, id); // its timers go with it
        }
    }

    @Override
    public MeterRegistry meters() {
        return meters;
    }

    @Override
    public long replicaRestoreDelayMs() {
        return config.replicaRestoreDelayMs();
    }

    @Override
    public int copies(String topic) {
        return deployments.copies(topic);
    }

    @Override
    public Map<TaskId, UnitInfo.Held> staleTasks() {
        Map<TaskId, UnitInfo.Held> stale = new HashMap<>();
        try {
            for (TaskId id : directories.list()) {
                if (deployments.contains(id.topic()) && !tasks.holds(id)) {
                    stale.put(id, new UnitInfo.Held(TaskRole.STALE, -1));
                }
            }
        } catch (IOException e) {
            LOG.warn("cannot list the task directories of {}", config.dataDir(), e);
        }
        return stale;
    }

    @Override
    public void placed(ClusterView placement) {
        tasks.placed(placement);
    }
}
