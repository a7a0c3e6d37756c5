package io.coilgun.cluster.task;

import io.coilgun.cluster.feed.FeedEvent;
import io.coilgun.cluster.feed.FeedSubscriber;
import io.coilgun.cluster.feed.ResultFeed;
import io.coilgun.cluster.ingest.TaskClock;
import io.coilgun.cluster.kafka.KafkaHeaders;
import io.coilgun.cluster.kafka.Topics;
import io.coilgun.cluster.reply.ReplyCodec;
import io.coilgun.cluster.reply.ReplyStatus;
import io.coilgun.planner.model.MetricDef;
import io.coilgun.planner.plan.TaskPlan;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one task: takes its Kafka records in offset order, applies them to the task plan, and sends each
 * event's reply to the node that asked (headers {@link KafkaHeaders}). Owned by one processor unit thread.
 */
public final class TaskProcessor implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(TaskProcessor.class);

    private final TaskId id;
    private final TaskPlan plan;
    private final Producer<byte[], byte[]> replies;
    private final ResultFeed feed;
    private Object[] decoded;
    private Object[] results;
    private List<MetricDef> metrics;
    private boolean dirty;
    /** Events processed since this task started on this node, by {@link ReplyStatus} ordinal. */
    private final long[] outcomes = new long[ReplyStatus.values().length];
    /** Where the front end reads this task's stream time (lateness judged before publishing). */
    private final TaskClock clock;

    public TaskProcessor(TaskId id, TaskPlan plan, Producer<byte[], byte[]> replies) {
        this(id, plan, replies, new ResultFeed(), new TaskClock());
    }

    /**
     * @param feed where applied events go when someone subscribes (SUBSCRIBE)
     * @param clock where the front end reads this task's stream time (lateness judged before publishing)
     */
    public TaskProcessor(TaskId id, TaskPlan plan, Producer<byte[], byte[]> replies, ResultFeed feed,
            TaskClock clock) {
        this.id = id;
        this.plan = plan;
        this.replies = replies;
        this.feed = feed;
        this.decoded = new Object[plan.stream().columns().size()];
        this.clock = clock;
        clock.streamTime(plan.streamTime());
        planChanged();
    }

    private void planChanged() {
        this.metrics = plan.metrics();
        this.results = new Object[plan.resultWidth()];
    }

    /** How many events got each outcome since the task started here (coilgun.statistics). */
    public long outcomes(ReplyStatus status) {
        return outcomes[status.ordinal()];
    }

    /** The task plan, for reads on the unit's thread (SELECT over metric state). */
    public TaskPlan plan() {
        return plan;
    }

    public TaskId id() {
        return id;
    }

    /** Where consumption resumes: right after the last checkpointed record. */
    public long nextOffset() {
        return plan.nextOffset();
    }

    /** Takes the stream's new schema version between two events. */
    public void alterStream(io.coilgun.planner.model.StreamDef stream) {
        plan.alterStream(stream);
        decoded = new Object[stream.columns().size()];
    }

    /** Removes a metric and its state between two events. */
    public void dropMetric(String name) {
        plan.dropMetric(name);
        planChanged();
        plan.checkpoint();
    }

    /** Adds a metric between two events; it starts empty at the current stream time. */
    public void addMetric(MetricDef metric) {
        plan.addNewMetric(metric);
        planChanged();
        plan.checkpoint();
    }

    public void process(ConsumerRecord<byte[], byte[]> record) {
        if (record.offset() < plan.nextOffset()) {
            return; // already applied before the last checkpoint
        }
        ReplyStatus status;
        String message = null;
        try {
            TaskPlan.Outcome outcome = plan.process(record.value(), record.offset(), decoded, results);
            clock.streamTime(plan.streamTime());
            status = switch (outcome) {
                case APPLIED -> ReplyStatus.APPLIED;
                case DROPPED -> ReplyStatus.DROPPED;
                case DUPLICATE -> {
                    message = "duplicate event id: already counted";
                    yield ReplyStatus.DUPLICATE;
                }
                case LATE -> {
                    message = "event time is older than the stream time minus the stream's lateness "
                            + "(task " + id + ")";
                    yield ReplyStatus.LATE;
                }
                case NULL_TIME -> {
                    message = "event time is NULL";
                    yield ReplyStatus.INVALID;
                }
            };
        } catch (RuntimeException e) {
            // A record the plan cannot apply must not stop the task; the client learns why.
            LOG.error("task={} offset={} failed to apply event", id, record.offset(), e);
            plan.skip(record.offset());
            status = ReplyStatus.FAILED;
            message = "event could not be applied: " + e;
        }
        dirty = true;
        outcomes[status.ordinal()]++;
        FeedSubscriber[] subscribers = feed.subscribers(); // one volatile read; empty while nobody subscribes
        if (subscribers.length != 0 && status == ReplyStatus.APPLIED) {
            feed(subscribers);
        }
        Header replyTo = record.headers().lastHeader(KafkaHeaders.REPLY_TO);
        Header correlation = record.headers().lastHeader(KafkaHeaders.CORRELATION);
        if (replyTo != null && correlation != null) {
            String node = new String(replyTo.value(), java.nio.charset.StandardCharsets.UTF_8);
            replies.send(new ProducerRecord<>(Topics.replies(node), 0, correlation.value(),
                    ReplyCodec.encode(status, message, metrics, results)));
        }
    }

    /** Hands the event just applied to the subscribers of this task's topic (copies: the arrays are reused). */
    private void feed(FeedSubscriber[] subscribers) {
        FeedEvent event = null;
        for (FeedSubscriber subscriber : subscribers) {
            if (subscriber.wants(id.topic())) {
                if (event == null) {
                    event = new FeedEvent(id.topic(), plan.assignedId(), decoded.clone(), metrics, results.clone());
                }
                subscriber.offer(event);
            }
        }
    }

    /** Checkpoints if anything was applied since the last checkpoint. */
    public void checkpointIfDirty() {
        if (dirty) {
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
        plan.discard();
    }

    @Override
    public void close() {
        try {
            checkpointIfDirty();
        } finally {
            plan.close();
        }
    }
}
