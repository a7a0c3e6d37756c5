package io.coilgun.cluster.task;

import io.coilgun.cluster.feed.FeedEvent;
import io.coilgun.cluster.feed.FeedSubscriber;
import io.coilgun.cluster.feed.ResultFeed;
import io.coilgun.cluster.sink.TaskSinks;
import io.coilgun.cluster.ingest.TaskClock;
import io.coilgun.cluster.ingest.TaskStoppedException;
import io.coilgun.cluster.kafka.KafkaHeaders;
import io.coilgun.cluster.reply.ReplyCodec;
import io.coilgun.cluster.reply.ReplySender;
import io.coilgun.cluster.reply.ReplyStatus;
import io.coilgun.planner.event.EventCodec;
import io.coilgun.planner.model.MetricDef;
import io.coilgun.planner.model.StreamDef;
import io.coilgun.planner.plan.FailedEvent;
import io.coilgun.planner.plan.TaskPlan;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one task: takes its Kafka records in offset order, applies them to the task plan, and answers each event
 * ({@link ReplyEmitter}: to the node that asked, or kept by a replica). A start marker starts a metric
 * ({@link MetricStarts}). Owned by one processor unit thread.
 *
 * <h2>Failures stay inside the task</h2>
 * Nothing a record does may stop the unit's thread or another task. When applying an event throws, the task's state
 * may be half changed (the reservoir holds the event, some metrics took it), so the task
 * <ol>
 *   <li>answers the event's statement at once with the error (XX000; nothing of the event counts),</li>
 *   <li>closes its plan without a checkpoint and reopens it at the last checkpoint (what a crash would do),</li>
 *   <li>records the record's offset as a {@link FailedEvent} in its state store (durably, so a restart skips it too;
 *       shown in {@code coilgun.failed_events}),</li>
 *   <li>and asks its unit to seek the partition back to the checkpoint ({@link #process} returns true): the records
 *       after the checkpoint are applied again, exactly as before, without answering them twice, the failed one is
 *       skipped, and the task goes on ({@link TaskState#RECOVERING}, then {@link TaskState#RUNNING}).</li>
 * </ol>
 * An event is deterministic, so the same event fails the same way on every node and every replay: skipping it is
 * the one way to make progress, and it loses no accepted event (the failed one was answered with an error). A task
 * that fails {@link TaskFailurePolicy#MAX_FAILURES} times within {@link TaskFailurePolicy#FAILURE_WINDOW_MS}, or
 * cannot reopen its data, is not deterministic trouble but a sick environment (disk, memory): it stops
 * ({@link TaskState#FAILED}), its partition is paused with its records kept in Kafka, and the front end refuses
 * statements for it until the node restarts ({@link TaskFailurePolicy}).
 *
 * <p>What stays here is what shares the task's state (its plan, which a rollback replaces, its {@link TaskState}, its
 * role and the highest offset answered): taking a record, rolling back and stopping. The rest is in the classes it
 * runs: {@link ReplyEmitter}, {@link MetricStarts}, {@link SchemaCatchUp}, {@link TaskFailurePolicy}. A stream
 * partitioned by several fields adds two turns of the same record path: its decider's task forwards what it accepts
 * and its partitioner tasks apply what was decided; what a task does for the other tasks of its stream (forwards,
 * the history a new decider takes, a cut) is in {@link StreamLinks}.
 */
public final class TaskProcessor implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(TaskProcessor.class);

    /** Opens a task's plan at its last checkpoint, with the stream and metrics it runs now. */
    @FunctionalInterface
    public interface PlanOpener {
        TaskPlan open(StreamDef stream, List<MetricDef> metrics);
    }

    private final TaskId id;
    private TaskPlan plan;
    private final PlanOpener opener;
    private final ReplyEmitter replies;
    private final MetricStarts starts;
    private final SchemaCatchUp schemas;
    private final TaskFailurePolicy failures = new TaskFailurePolicy();
    private final ResultFeed feed;
    private Object[] results;
    private List<MetricDef> metrics;
    private StreamDef stream;
    private boolean dirty;
    /** Events processed since this task started on this node, by {@link ReplyStatus} ordinal. */
    private final long[] outcomes = new long[ReplyStatus.values().length];
    private TaskMeters meters = TaskMeters.NONE;
    /** Where the front end reads this task's stream time (lateness judged before publishing). */
    private final TaskClock clock;
    /** The highest offset already answered: records up to it that come again after a rollback are not answered. */
    private long answeredThrough = -1;
    private TaskState state = TaskState.RUNNING;
    /**
     * A replica feeds subscribers only the events published this recently: those its active may not have forwarded
     * before a failover, not the history of a copy catching up (which would flood every subscription).
     */
    static final long REPLICA_FEEDS_MS = 30_000;
    /** A replica applies every record as the active does but answers none (it keeps them). */
    private TaskRole role = TaskRole.ACTIVE;
    /** What the task does for the other tasks of its stream: forwards, history, a cut ({@link StreamLinks}). */
    private final StreamLinks links = new StreamLinks();
    /** Where the records of the task's sinks go (CREATE SINK); none for a task run without a node (tests). */
    private TaskSinks sinks = TaskSinks.NONE;
    /** The Kafka timestamp of the last record taken (ms), for the replica lag in coilgun.tasks. */
    private volatile long lastRecordTimestamp;

    public TaskProcessor(TaskId id, TaskPlan plan, ReplySender replies) {
        this(id, plan, (s, m) -> {
            throw new IllegalStateException("this task cannot reopen its plan");
        }, replies, new ResultFeed(), new TaskClock());
    }

    /**
     * @param opener reopens the plan at its last checkpoint (after a failure)
     * @param feed where applied events go when someone subscribes (SUBSCRIBE)
     * @param clock where the front end reads this task's stream time (lateness judged before publishing)
     */
    public TaskProcessor(TaskId id, TaskPlan plan, PlanOpener opener, ReplySender replies,
            ResultFeed feed, TaskClock clock) {
        this.id = id;
        this.plan = plan;
        this.opener = opener;
        this.replies = new ReplyEmitter(id, replies);
        this.starts = new MetricStarts(id);
        this.schemas = new SchemaCatchUp(id, this::alterStream);
        this.feed = feed;
        this.clock = clock;
        this.stream = plan.stream();
        clock.streamTime(plan.streamTime());
        clock.stopped(null);
        planChanged();
    }

    /**
     * Where the task finds a metric's definition when it takes the metric's start marker, and the stream's newest
     * definition when an event was written with a schema it does not know yet.
     */
    public void definitions(Function<String, MetricDef> lookup, Supplier<StreamDef> stream) {
        starts.definitions(lookup);
        schemas.deployed(stream);
    }

    /**
     * Gives the task its sinks: every copy makes their records; the active writes them ({@link TaskSinks}), from when
     * its unit gives it its role ({@link #role(TaskRole)}: a copy opened to be a replica never writes).
     */
    public void sinks(TaskSinks s) {
        this.sinks = s;
        s.opened(plan);
    }

    /** Makes this task its stream's decider: each event it accepts is forwarded to the partitioner topics. */
    public void forwarder(Forwarder f) {
        links.forwarder(f);
        f.opened(plan, stream);
        plan.decider();
    }

    /** Makes this task a decider that may have to take the history of a stream that had none ({@link Seeding}). */
    public void seeding(Seeding s) {
        links.seeding(s);
        s.opened(plan);
    }

    /**
     * Lets this partitioner task cut over to a decider its stream gains ({@link StreamCut}): its history goes through
     * {@code sender}; {@code converting} says whether the decider still waits for it.
     */
    public void cut(Forwarder.Sender sender, BooleanSupplier converting) {
        links.cut(new StreamCut(sender, id, converting));
    }

    private void planChanged() {
        this.metrics = plan.metrics();
        this.results = new Object[plan.resultWidth()];
    }

    /** The task's latency timers (set by the node that opened it). */
    public TaskMeters meters() {
        return meters;
    }

    public void meters(TaskMeters m) {
        this.meters = m;
    }

    /** How many events got each outcome since the task started here (coilgun.statistics). */
    public long outcomes(ReplyStatus status) {
        return outcomes[status.ordinal()];
    }

    /**
     * The task plan, for reads on the unit's thread (SELECT over metric state).
     *
     * @throws TaskStoppedException while the task is stopped (its data is closed)
     */
    public TaskPlan plan() {
        if (state == TaskState.FAILED) {
            throw new TaskStoppedException(id.toString(), failures.lastError());
        }
        return plan;
    }

    /** The task's stream time S (micros), also while it is stopped (then as of its last checkpoint). */
    public long streamTime() {
        return plan.streamTime();
    }

    public TaskId id() {
        return id;
    }

    public TaskState state() {
        return state;
    }

    public TaskRole role() {
        return role;
    }

    /** The Kafka timestamp (ms) of the last record the task took, 0 before any. */
    public long lastRecordTimestamp() {
        return lastRecordTimestamp;
    }

    /** On the unit's thread: the task becomes the active copy (answers, feeds) or a replica (silent). */
    public void role(TaskRole role) {
        if (role != TaskRole.REPLICA) {
            replies.forgetKept();
        }
        this.role = role;
        roleChanged();
        sinks.role(role == TaskRole.ACTIVE);
    }

    /**
     * On the unit's thread: a replica becomes the active copy. It sends the replies it kept of the records at
     * {@code committed} or later (the old active's last committed offset: it may not have answered those), so the
     * statements still waiting for them get their answer; -1 when the group has no committed offset (all kept).
     * Returns how many it sent.
     */
    public int promote(long committed) {
        int sent = links.decider() ? links.takeOver(plan, stream, committed, replies, this::checkpointNow)
                : replies.promote(committed, null);
        this.role = TaskRole.ACTIVE;
        roleChanged();
        sinks.role(true); // its writer writes what the old active had not committed, then goes on
        return sent;
    }

    private void roleChanged() {
        if (state != TaskState.FAILED) {
            links.roleChanged(role);
        }
    }

    /** Checkpoints now (a decider taking over, before it sends its forwards again). */
    private void checkpointNow() {
        if (state != TaskState.FAILED && links.readyForCheckpoint(plan)) {
            sinks.checkpointing(plan);
            plan.checkpoint();
            dirty = false;
        }
    }

    /** The message of the task's last failure, or null. */
    public String lastError() {
        return failures.lastError();
    }

    /** When the task last failed (ms since the epoch), or 0. */
    public long lastErrorAt() {
        return failures.lastErrorAt();
    }

    /** The stream as this task runs it (its latest schema version). */
    public StreamDef stream() {
        return stream;
    }

    /** The metrics this task runs. */
    public List<MetricDef> metrics() {
        return metrics;
    }

    /** Where consumption resumes: right after the last checkpointed record. */
    public long nextOffset() {
        return plan.nextOffset();
    }

    /**
     * The offset the task's group may commit (a replica that takes over answers and forwards from there): its next
     * offset, or for a decider the oldest decision whose forward Kafka has not acknowledged, if older.
     */
    public long committableOffset() {
        long next = plan.nextOffset();
        return state == TaskState.FAILED ? next : links.committable(next);
    }

    /** Takes the stream's new schema version between two events. */
    public void alterStream(StreamDef altered) {
        stream = altered;
        if (state == TaskState.FAILED) {
            return; // taken when the task is opened again
        }
        plan.alterStream(altered);
        links.streamChanged(altered);
    }

    /** Whether a metric of this task is being filled from history ({@link #backfill}). */
    public boolean hasBackfillWork() {
        return state != TaskState.FAILED && (plan.hasBackfillWork() || links.fillsPartitioners(role)
                || links.seedWork(role, plan));
    }

    /** Whether one of the task's metrics is being filled from history (not a replay), or an added partitioner. */
    public boolean filling() {
        return state != TaskState.FAILED && (plan.filling() || links.fillsPartitioners(role));
    }

    /**
     * Lets the task's backfills apply history until {@code deadlineNanos}, between two records; a metric whose
     * backfill caught up reports from the next event on. A failing backfill rolls the task back to its checkpoint
     * (where the backfill begins again), as a failing event does.
     */
    public void backfill(long deadlineNanos) {
        if (!hasBackfillWork()) {
            return;
        }
        try {
            dirty = true; // the backfill's rows go with the next checkpoint
            links.background(role, plan, stream, deadlineNanos);
            long stepBegan = System.nanoTime();
            for (MetricDef live : plan.backfillStep(deadlineNanos)) {
                Long began = starts.filled(live.name());
                LOG.info("task={} metric={} backfilled{}: it is live at offset {} (the last step took {} ms)", id,
                        live.name(), began == null ? "" : " in " + (System.currentTimeMillis() - began) + " ms",
                        plan.nextOffset(), (System.nanoTime() - stepBegan) / 1_000_000);
                planChanged();
            }
        } catch (Throwable t) {
            TaskFailurePolicy.rethrowIfFatal(t);
            LOG.error("task={} a backfill failed: rolling back to the last checkpoint, where it begins again", id, t);
            failures.failed(t, System.currentTimeMillis());
            String stop = failures.stopReason(t.toString());
            if (stop != null) {
                stop(stop);
                return;
            }
            reopen();
        }
    }

    /**
     * The backfills under way, each {@code metric:applied:total:elapsedMs} (how long it has run here), for
     * coilgun.metrics, which estimates the time left from all the metric's tasks; empty when there are none.
     */
    public List<String> backfillProgress() {
        if (state == TaskState.FAILED) {
            return List.of();
        }
        List<String> fills = links.fillProgress(role);
        if (fills != null) {
            return fills;
        }
        return plan.hasBackfillWork() ? starts.progress(plan) : List.of();
    }

    /** The metrics this task runs or fills from history (one whose start marker it has not taken is not here). */
    public List<String> metricNames() {
        List<String> names = new ArrayList<>();
        for (MetricDef m : metrics) {
            names.add(m.name());
        }
        if (state != TaskState.FAILED) {
            for (MetricDef m : plan.backfillingMetrics()) {
                names.add(m.name());
            }
        }
        return names;
    }

    /** Removes a metric and its state between two events. */
    public void dropMetric(String name) {
        if (state == TaskState.FAILED) {
            metrics = metrics.stream().filter(m -> !m.name().equals(name)).toList(); // its rows go at the next open
            return;
        }
        plan.dropMetric(name);
        planChanged();
        plan.checkpoint();
    }

    /**
     * Applies one record and answers it.
     *
     * @return true when the unit must stop taking this partition's records of the current poll: the task rolled back
     *     (seek the partition to {@link #nextOffset()}) or stopped ({@link #state()} {@code FAILED}: pause it)
     */
    public boolean process(ConsumerRecord<byte[], byte[]> record) {
        if (state == TaskState.FAILED) {
            reply(record, ReplyStatus.FAILED, "task " + id + " is stopped: " + failures.lastError()
                    + "; the event stays in Kafka and is applied when the task runs again");
            return false;
        }
        if (rollBackIfAForwardFailed()) {
            return true;
        }
        links.beforeRecord(role);
        long offset = record.offset();
        lastRecordTimestamp = record.timestamp();
        if (offset < plan.nextOffset()) {
            return false; // already applied before the last checkpoint
        }
        if (state == TaskState.RECOVERING && offset >= answeredThrough) {
            state = TaskState.RUNNING; // caught up with where it failed
        }
        Header start = record.headers().lastHeader(KafkaHeaders.START_METRIC);
        if (start != null) {
            return startMetric(record, new String(start.value(), StandardCharsets.UTF_8));
        }
        if (links.isControl(record)) {
            try {
                links.control(record, plan, stream, role == TaskRole.ACTIVE);
            } catch (Throwable t) {
                TaskFailurePolicy.rethrowIfFatal(t);
                LOG.error("task={} offset={} failed on its stream's own record: rolling back to its last checkpoint",
                        id, offset, t);
                failures.failed(t, System.currentTimeMillis());
                reopen();
                return true;
            }
            clock.streamTime(plan.streamTime()); // a new decider's history moves its stream time
            dirty = true;
            return false;
        }
        if (EventCodec.schemaVersionOf(record.value()) > stream.schemaVersion()
                && !schemas.goOn(record, System.currentTimeMillis())) {
            return true; // its ALTER STREAM is not applied on this node yet: the same record again at the next poll
        }
        schemas.caughtUp();
        if (plan.isFailedEvent(offset)) {
            plan.skip(offset); // answered with its error when it failed
            dirty = true;
            return false;
        }
        ReplyStatus status;
        String message = null;
        long decision = Forwarder.decisionOf(record);
        try {
            if (record.headers().lastHeader(KafkaHeaders.PROBE) != null) {
                // the front end asks whether a row that looks late is a retry: answered, never applied
                status = plan.isDuplicate(record.value()) ? ReplyStatus.DUPLICATE : ReplyStatus.NOT_DUPLICATE;
                plan.skip(offset);
            } else if (decision >= 0) {
                // decided by the stream's decider: applied as decided, once, in the order decided
                if (!Forwarder.inTurn(record, decision, plan.lastDecision())) {
                    plan.skip(offset); // applied already, or one before it is missing: both come again
                    dirty = true;
                    return false;
                }
                plan.processDecided(record.value(), offset, decision, results);
                clock.streamTime(plan.streamTime());
                status = ReplyStatus.APPLIED;
            } else if (links.refusesEvents(plan)) {
                // published by a front end that did not know the stream is gaining a decider (see StreamCut)
                status = ReplyStatus.RETRY;
                message = "stream \"" + stream.name() + "\" is gaining a partitioner (ALTER STREAM … ADD PARTITION "
                        + "BY): the event was not applied; send it again";
                plan.skip(offset);
            } else {
                status = ReplyStatus.of(plan.process(record.value(), offset, results));
                clock.streamTime(plan.streamTime());
                message = status.message(id);
            }
        } catch (Throwable t) {
            TaskFailurePolicy.rethrowIfFatal(t);
            return failed(record, t);
        }
        dirty = true;
        if (status == ReplyStatus.APPLIED) {
            // forwarded again after a rollback too: a forward may be what was lost (its partitioners skip copies)
            links.accepted(stream, record, plan, role == TaskRole.ACTIVE, replies);
        }
        if (offset <= answeredThrough) {
            return false; // applied again after a rollback: answered, fed and counted the first time
        }
        answeredThrough = offset;
        outcomes[status.ordinal()]++;
        try {
            // every copy feeds (one volatile read; empty while nobody subscribes): a subscriber keeps each event
            // once by its offset, and a failover then loses none the old leader had not forwarded yet
            FeedSubscriber[] subscribers = feed.subscribers();
            if (subscribers.length != 0 && status == ReplyStatus.APPLIED && (role == TaskRole.ACTIVE
                    || record.timestamp() > System.currentTimeMillis() - REPLICA_FEEDS_MS)) {
                feed(subscribers, offset);
            }
            if (status == ReplyStatus.APPLIED) {
                sinks.applied(offset, stream, metrics, plan, results);
            }
            if (role != TaskRole.ACTIVE) {
                // a replica: the active answers; the reply is kept in case this copy takes over
                replies.keep(record, encodeReply(status, message));
                return false;
            }
            replies.send(record, encodeReply(status, message));
            meters.answered(record.timestamp());
        } catch (Throwable t) {
            // The event was applied (its state is whole); only its answer could not be made.
            TaskFailurePolicy.rethrowIfFatal(t);
            LOG.error("task={} offset={} applied an event but could not answer it", id, offset, t);
            failures.failed(t, System.currentTimeMillis());
            reply(record, ReplyStatus.FAILED, "the event was applied by task " + id
                    + ", but its reply could not be built: " + t);
        }
        return false;
    }

    /**
     * A metric's start marker ({@link MetricStarts}): taken again (a replay after a crash, a second marker) it changes
     * nothing. Answered DROPPED (not an event), or kept as a replica's answer.
     */
    private boolean startMetric(ConsumerRecord<byte[], byte[]> record, String marker) {
        long offset = record.offset();
        MetricDef def = starts.definition(marker);
        try {
            if (starts.start(plan, offset, marker, def)) {
                planChanged();
            }
        } catch (Throwable t) {
            TaskFailurePolicy.rethrowIfFatal(t);
            return failed(record, t);
        }
        if (offset <= answeredThrough) {
            return false;
        }
        answeredThrough = offset;
        byte[] reply = ReplyCodec.encode(ReplyStatus.DROPPED, null, List.of(), new Object[0]);
        if (role == TaskRole.ACTIVE) {
            replies.send(record, reply);
        } else {
            replies.keep(record, reply);
        }
        return false;
    }

    /** Applying the record threw: answer it, roll back to the checkpoint and skip it from now on (see class doc). */
    private boolean failed(ConsumerRecord<byte[], byte[]> record, Throwable error) {
        long offset = record.offset();
        long now = System.currentTimeMillis();
        String text = error.toString();
        if (Forwarder.decisionOf(record) >= 0) {
            return failedDecided(record, error, now);
        }
        LOG.error("task={} offset={} failed to apply an event: rolling back to its last checkpoint and skipping it",
                id, offset, error);
        FailedEvent failed = plan.describe(record.value(), offset, text, now);
        if (offset > answeredThrough) {
            answeredThrough = offset;
            outcomes[ReplyStatus.FAILED.ordinal()]++;
            reply(record, ReplyStatus.FAILED, "task " + id + " failed on this event and skipped it (nothing of it "
                    + "was applied; see coilgun.failed_events): " + text);
        }
        failures.failed(error, now);
        String stop = failures.stopReason(text);
        if (stop != null) {
            stop(stop);
            return true;
        }
        if (!reopen()) {
            return true;
        }
        try {
            plan.recordFailedEvent(failed);
        } catch (RuntimeException recording) {
            LOG.error("task={} cannot record the event it failed on", id, recording);
            stop("cannot record the event it failed on: " + recording);
        }
        return true;
    }

    /**
     * Applying an event the stream's decider accepted threw. The other partitionings apply it, so it is never
     * skipped: rolled back and taken again once (a passing fault), then the task stops and applies it when it runs
     * again (the event stays in Kafka); nothing is recorded in coilgun.failed_events.
     */
    private boolean failedDecided(ConsumerRecord<byte[], byte[]> record, Throwable error, long now) {
        long offset = record.offset();
        failures.failed(error, now);
        if (failures.retryDecided(offset)) {
            LOG.error("task={} offset={} failed to apply a decided event: rolling back to its last checkpoint and "
                    + "taking it again", id, offset, error);
            reopen();
            return true;
        }
        if (offset > answeredThrough) {
            answeredThrough = offset;
            outcomes[ReplyStatus.FAILED.ordinal()]++;
            reply(record, ReplyStatus.FAILED, "the event was accepted and goes to every partitioning, but task " + id
                    + " failed on it twice and stopped; it applies the event when it runs again: " + error);
        }
        stop("failed twice on the event at offset " + offset + ", which the stream's decider accepted (a decided "
                + "event is never skipped); last: " + error);
        return true;
    }

    /**
     * Closes the plan without a checkpoint (what it changed since the last one is dropped) and opens it again at the
     * checkpoint; false when it cannot (the task is stopped then).
     */
    private boolean reopen() {
        List<MetricDef> all = new ArrayList<>(metrics);
        all.addAll(plan.backfillingMetrics());
        try {
            plan.close();
        } catch (RuntimeException closing) {
            LOG.warn("task={} closing its plan after a failure failed too", id, closing);
        }
        try {
            plan = opener.open(stream, all);
            links.opened(plan, stream);
        } catch (RuntimeException reopening) {
            LOG.error("task={} cannot reopen its data after a failure", id, reopening);
            stop("cannot reopen its data: " + reopening);
            return false;
        }
        state = TaskState.RECOVERING;
        planChanged();
        clock.streamTime(plan.streamTime());
        dirty = false;
        return true;
    }

    /**
     * A decider one of whose forwards Kafka refused rolls back to its last checkpoint (its unit then seeks its
     * partition there) to forward everything since again: at its next record, or at once when its unit is told
     * ({@link Forwarder}'s failure hook). Whether it rolled back.
     */
    public boolean rollBackIfAForwardFailed() {
        Exception lost = state == TaskState.FAILED ? null : links.takeFailure();
        if (lost == null) {
            return false;
        }
        LOG.warn("task={} a forward to a partitioner topic failed: rolling back to forward again", id, lost);
        reopen();
        return true;
    }

    /** Stops the task from outside its own processing (its unit is going down): see {@link #stop}. */
    public void stopFor(String reason) {
        try {
            stop(reason);
        } catch (RuntimeException e) {
            clock.stopped(reason);
        }
    }

    /** Stops the task: no more records, statements for it refused by the front end, until the node restarts. */
    private void stop(String reason) {
        LOG.error("task={} stopped: {}; its partition is paused until the node restarts", id, reason);
        failures.stopped(reason, System.currentTimeMillis());
        if (state != TaskState.FAILED) {
            state = TaskState.FAILED;
            try {
                plan.close();
            } catch (RuntimeException closing) {
                LOG.warn("task={} closing its plan failed", id, closing);
            }
        }
        dirty = false;
        clock.stopped(reason);
    }

    /** The events this task failed on and skips, oldest first (empty while stopped). */
    public List<FailedEvent> failedEvents() {
        return state == TaskState.FAILED ? List.of() : plan.failedEvents();
    }

    /** The active copy answers a record with a status and message but no values; never throws. */
    private void reply(ConsumerRecord<byte[], byte[]> record, ReplyStatus status, String message) {
        if (role == TaskRole.ACTIVE) {
            replies.sendStatus(record, status, message);
        }
    }

    /** A reply with the task's metrics; a decider's says how many partitioners answer after it. */
    private byte[] encodeReply(ReplyStatus status, String message) {
        int followers = links.followers(stream);
        return followers < 0 ? ReplyCodec.encode(status, message, metrics, results)
                : ReplyCodec.encode(status, message, metrics, results, followers);
    }

    /** Hands the event just applied to the subscribers of this task's topic (copies: the arrays are reused). */
    private void feed(FeedSubscriber[] subscribers, long offset) {
        FeedEvent event = null;
        for (FeedSubscriber subscriber : subscribers) {
            if (subscriber.wants(id.topic())) {
                if (event == null) {
                    event = new FeedEvent(id.topic(), id.partition(), offset, role == TaskRole.ACTIVE,
                            plan.assignedId(), plan.lastEvent().clone(), metrics,
                            results.clone());
                }
                subscriber.offer(event);
            }
        }
    }

    /** Checkpoints if anything was applied since the last checkpoint. */
    public void checkpointIfDirty() {
        if (dirty && state != TaskState.FAILED) {
            if (!links.readyForCheckpoint(plan)) {
                return; // a forward failed: it rolls back to its last checkpoint first
            }
            sinks.checkpointing(plan);
            plan.checkpoint();
            dirty = false;
        }
    }

    /**
     * Releases the task without checkpointing (its stream is being dropped); its directory may be deleted
     * afterwards.
     */
    public void discard() {
        dirty = false; // a later checkpointIfDirty (the unit's touched set) does nothing
        sinks.close();
        if (state != TaskState.FAILED) {
            plan.discard();
        }
    }

    @Override
    public void close() {
        sinks.close();
        if (state == TaskState.FAILED) {
            return; // its plan is closed already
        }
        try {
            links.close(dirty);
            checkpointIfDirty();
        } finally {
            plan.close();
        }
    }
}
