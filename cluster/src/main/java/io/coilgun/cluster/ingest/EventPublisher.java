package io.coilgun.cluster.ingest;

import io.coilgun.cluster.kafka.KafkaHeaders;
import io.coilgun.cluster.kafka.Topics;
import io.coilgun.cluster.reply.Reply;
import io.coilgun.cluster.reply.ReplyCodec;
import io.coilgun.cluster.reply.ReplyRouter;
import io.coilgun.cluster.reply.ReplyStatus;
import io.coilgun.planner.event.EventCodec;
import io.coilgun.planner.event.GroupKeys;
import io.coilgun.planner.model.StreamDef;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.utils.Utils;

/**
 * The front end's side of the event path (paper, figure 3): publishes each event once per partitioner topic of
 * its stream, keyed by that field's value, with this node as reply address, and waits for the tasks' replies.
 */
public final class EventPublisher implements AutoCloseable {
    private final String nodeId;
    private final byte[] nodeIdBytes;
    /** Every record of the publisher goes through it, in the order queued; sent outside the stream's ingest lock. */
    private final SendQueue sends;
    private final ReplyRouter router;
    private final AtomicLong correlations = new AtomicLong(System.nanoTime());
    private final AtomicLong assignedIds;
    /** The stream-time clocks of the tasks, by partitioner topic. */
    private final Map<String, TaskClock[]> clocks = new ConcurrentHashMap<>();
    private final Map<String, Object> locks = new ConcurrentHashMap<>();

    public EventPublisher(String nodeId, KafkaProducer<byte[], byte[]> producer, ReplyRouter router) {
        this.nodeId = nodeId;
        this.nodeIdBytes = nodeId.getBytes(StandardCharsets.UTF_8);
        this.sends = new SendQueue(producer);
        this.router = router;
        // Ids for streams without an event_id column: microseconds at start, then counting up.
        this.assignedIds = new AtomicLong(System.currentTimeMillis() * 1000);
    }

    /** The node stops: records not yet sent are answered with an error. Before the producer closes. */
    @Override
    public void close() {
        sends.close();
    }

    /**
     * Sends the records {@link #publishAll} queued (and any queued before them), in order. Called once the stream's
     * ingest lock is released: the lock is never held across {@code producer.send}.
     */
    public void flush() {
        sends.flush();
    }

    public String nodeId() {
        return nodeId;
    }

    /** An id for an event of a stream that has no event_id column. */
    public long assignId() {
        return assignedIds.incrementAndGet();
    }

    /** The partition of a record key in a topic of {@code partitions} partitions: Kafka's default partitioner. */
    public static int partition(byte[] key, int partitions) {
        return Utils.toPositive(Utils.murmur2(key)) % partitions;
    }

    /**
     * Registers the stream-time clocks of a partitioner topic's tasks (one per partition), which the tasks update
     * and {@link #publishAll} judges lateness against.
     */
    public TaskClock[] registerClocks(String topic, int partitions) {
        TaskClock[] c = new TaskClock[partitions];
        for (int p = 0; p < partitions; p++) {
            c[p] = new TaskClock();
        }
        clocks.put(topic, c);
        return c;
    }

    /** The topic's tasks are gone (their stream was dropped). */
    public void unregisterClocks(String topic) {
        clocks.remove(topic);
    }

    /**
     * The lock a statement holds while its rows are judged and published ({@link #publishAll}), and DROP STREAM
     * while it takes the stream away: statements of one stream publish one after the other.
     */
    public Object ingestLock(String stream) {
        return locks.computeIfAbsent(stream, k -> new Object());
    }

    /**
     * Publishes a statement's events, all or none: under {@code late_events = 'reject'} every row is first judged
     * against its tasks' stream times ({@link IngestGate}); if one is late nothing is published. The caller holds
     * {@link #ingestLock} of the stream; the events are queued, and sent by its {@link #flush} after the lock.
     *
     * @return per row, its replies (one per partitioner topic)
     * @throws LateEventException for the first late row
     */
    public List<CompletableFuture<List<Reply>>> publishAll(StreamDef stream, EventCodec codec, List<Object[]> rows,
            long[] assignedIds) {
        return publishAll(stream, codec, rows, assignedIds, null);
    }

    /**
     * {@link #publishAll(StreamDef, EventCodec, List, long[])} leaving out the rows marked in {@code excluded}:
     * retries a probe found to be duplicates ({@link #probe}), answered as such without being published again.
     *
     * @throws LateEventException listing every late row ({@link LateEventException#lateRows()})
     */
    public List<CompletableFuture<List<Reply>>> publishAll(StreamDef stream, EventCodec codec, List<Object[]> rows,
            long[] assignedIds, boolean[] excluded) {
        Routes r = routes(stream, rows);
        List<String> fields = entryFields(stream);
        String[] topics = r.topics();
        TaskClock[][] taskClocks = r.clocks();
        byte[][][] keys = r.keys();
        int[][] partitions = r.partitions();
        refuseStoppedTasks(taskClocks, partitions, topics);
        if (decided(stream)) {
            refuseStoppedPartitioners(stream, rows);
        }
        IngestGate.check(stream, rows, taskClocks, partitions, topics, excluded);
        IngestGate.markPublished(stream, rows, taskClocks, partitions, excluded);
        List<CompletableFuture<List<Reply>>> replies = new ArrayList<>(rows.size());
        for (int i = 0; i < rows.size(); i++) {
            if (excluded != null && excluded[i]) {
                replies.add(CompletableFuture.completedFuture(List.of(new Reply(0, ReplyStatus.DUPLICATE,
                        "duplicate event id: already counted", Map.of(), ""))));
                continue;
            }
            byte[][] rowKeys = new byte[fields.size()][];
            int[] rowPartitions = new int[fields.size()];
            for (int f = 0; f < fields.size(); f++) {
                rowKeys[f] = keys[f][i];
                rowPartitions[f] = partitions[f][i];
            }
            replies.add(send(codec.encode(rows.get(i), assignedIds[i]), topics, rowKeys, rowPartitions,
                    expectedReplies(stream)));
        }
        return replies;
    }

    /**
     * Judges rows for lateness as {@link #publishAll} would, without publishing them: {@code judged} carries the
     * simulated stream times on to the next call (a COPY too big to publish at once, judged whole first). The caller
     * holds {@link #ingestLock} of the stream.
     *
     * @throws LateEventException listing every late row of {@code rows}
     */
    public void judge(StreamDef stream, List<Object[]> rows, boolean[] excluded, LateJudgement judged) {
        Routes r = routes(stream, rows);
        IngestGate.check(stream, rows, r.clocks(), r.partitions(), r.topics(), excluded, judged);
    }

    /** Per entry topic of a stream: its name, its tasks' clocks, and each row's key and partition there. */
    private record Routes(String[] topics, TaskClock[][] clocks, byte[][][] keys, int[][] partitions) {
    }

    private Routes routes(StreamDef stream, List<Object[]> rows) {
        List<String> fields = entryFields(stream);
        String[] topics = new String[fields.size()];
        TaskClock[][] taskClocks = new TaskClock[fields.size()][];
        byte[][][] keys = new byte[fields.size()][rows.size()][];
        int[][] partitions = new int[fields.size()][rows.size()];
        for (int f = 0; f < fields.size(); f++) {
            topics[f] = entryTopic(stream, fields.get(f));
            taskClocks[f] = clocks.get(topics[f]);
            int column = stream.columnIndex(fields.get(f)).orElseThrow();
            for (int i = 0; i < rows.size(); i++) {
                keys[f][i] = GroupKeys.encodeOne(rows.get(i)[column]);
                partitions[f][i] = decided(stream) ? 0 : partition(keys[f][i], stream.partitions(fields.get(f)));
            }
        }
        return new Routes(topics, taskClocks, keys, partitions);
    }

    /**
     * Whether the stream's events go to its decider ({@link Topics#decider}): a stream partitioned by several fields,
     * whose every partitioning must apply the same decision on each event.
     */
    private static boolean decided(StreamDef stream) {
        return stream.decided();
    }

    /** The fields whose topics an event is published to: the first (for its key) when the stream has a decider. */
    private static List<String> entryFields(StreamDef stream) {
        return decided(stream) ? stream.partitionBy().subList(0, 1) : stream.partitionBy();
    }

    /** The topic an event is published to for {@code field}: the decider's when the stream has one. */
    private static String entryTopic(StreamDef stream, String field) {
        return decided(stream) ? Topics.decider(stream.name()) : Topics.partitioner(stream.name(), field);
    }

    /**
     * The replies an event gets when accepted: one per partitioner topic, and the decider's first (a decider that does
     * not accept it answers alone: {@code ReplyRouter} completes on its answer).
     */
    private static int expectedReplies(StreamDef stream) {
        return stream.partitionBy().size() + (decided(stream) ? 1 : 0);
    }

    /**
     * Asks the task of partitioner topic {@code topicIndex} whether the event in {@code row} was accepted within the
     * stream's dedup horizon: a record marked {@link KafkaHeaders#PROBE}, taken in partition order after every event
     * published before it, which the task answers without applying it. Completes with true for a duplicate.
     */
    public CompletableFuture<Boolean> probe(StreamDef stream, EventCodec codec, Object[] row, long assignedId,
            int topicIndex) {
        String field = entryFields(stream).get(topicIndex);
        byte[] key = GroupKeys.encodeOne(row[stream.columnIndex(field).orElseThrow()]);
        long correlation = correlations.incrementAndGet();
        CompletableFuture<List<Reply>> reply = router.expect(correlation, 1);
        RecordHeaders headers = new RecordHeaders();
        headers.add(KafkaHeaders.REPLY_TO, nodeIdBytes);
        headers.add(KafkaHeaders.CORRELATION, ReplyCodec.correlationKey(correlation));
        headers.add(KafkaHeaders.PROBE, new byte[] {1});
        sends.send(new ProducerRecord<>(entryTopic(stream, field), decided(stream) ? 0
                : partition(key, stream.partitions(field)), key, codec.encode(row, assignedId), headers), (md, e) -> {
                    if (e != null) {
                        router.cancel(correlation);
                        reply.completeExceptionally(e);
                    }
                });
        return reply.thenApply(r -> r.get(0).status() == ReplyStatus.DUPLICATE);
    }

    /**
     * Publishes a metric's start marker ({@link KafkaHeaders#START_METRIC}, value {@code name@version}) to the
     * partitions {@code fromPartition} (inclusive) to {@code toPartition} (exclusive) of partitioner topic
     * {@code topic}: each task's copies add the metric when they take it. Completes with each
     * task's answer (APPLIED once the active added it, FAILED from a stopped task, which adds it when it runs again).
     */
    public List<CompletableFuture<List<Reply>>> startMetric(String topic, int fromPartition, int toPartition,
            String metric) {
        List<CompletableFuture<List<Reply>>> replies = new ArrayList<>(toPartition - fromPartition);
        for (int p = fromPartition; p < toPartition; p++) {
            long correlation = correlations.incrementAndGet();
            CompletableFuture<List<Reply>> reply = router.expect(correlation, 1);
            RecordHeaders headers = new RecordHeaders();
            headers.add(KafkaHeaders.REPLY_TO, nodeIdBytes);
            headers.add(KafkaHeaders.CORRELATION, ReplyCodec.correlationKey(correlation));
            headers.add(KafkaHeaders.START_METRIC, metric.getBytes(StandardCharsets.UTF_8));
            sends.send(new ProducerRecord<>(topic, p, (byte[]) null, new byte[0], headers), (md, e) -> {
                if (e != null) {
                    router.cancel(correlation);
                    reply.completeExceptionally(e);
                }
            });
            replies.add(reply);
        }
        return replies;
    }

    /**
     * Writes a cut marker ({@link KafkaHeaders#CUT}) to every partition of {@code topic}, after every event this
     * node published there (one producer keeps them in order). Completes when Kafka has them all.
     */
    public CompletableFuture<Void> cut(String topic, int partitions, byte[] marker) {
        List<CompletableFuture<Void>> sent = new ArrayList<>(partitions);
        for (int p = 0; p < partitions; p++) {
            RecordHeaders headers = new RecordHeaders();
            headers.add(KafkaHeaders.CUT, marker);
            CompletableFuture<Void> ack = new CompletableFuture<>();
            sends.send(new ProducerRecord<>(topic, p, (byte[]) null, new byte[0], headers), (md, e) -> {
                if (e != null) {
                    ack.completeExceptionally(e);
                } else {
                    ack.complete(null);
                }
            });
            sent.add(ack);
        }
        return CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new));
    }

    /**
     * Fails a statement at once, before anything is published, when one of its rows goes to a stopped task: its
     * reply would never come.
     *
     * @throws TaskStoppedException naming the first such task
     */
    private static void refuseStoppedTasks(TaskClock[][] clocks, int[][] partitions, String[] topics) {
        for (int f = 0; f < clocks.length; f++) {
            if (clocks[f] == null) {
                continue;
            }
            for (int p : partitions[f]) {
                String reason = p < clocks[f].length ? clocks[f][p].stopped() : null;
                if (reason != null) {
                    throw new TaskStoppedException(topics[f] + "-" + p, reason);
                }
            }
        }
    }

    /**
     * A decided stream's rows go on from its decider to a task of each partitioner topic: refused at once, before
     * anything is published, when one of those is stopped (it would take the event only when it runs again).
     *
     * @throws TaskStoppedException naming the first such task
     */
    private void refuseStoppedPartitioners(StreamDef stream, List<Object[]> rows) {
        for (String field : stream.partitionBy()) {
            String topic = Topics.partitioner(stream.name(), field);
            TaskClock[] tasks = clocks.get(topic);
            if (tasks == null) {
                continue;
            }
            int column = stream.columnIndex(field).orElseThrow();
            for (Object[] row : rows) {
                int p = partition(GroupKeys.encodeOne(row[column]), stream.partitions(field));
                String reason = p < tasks.length ? tasks[p].stopped() : null;
                if (reason != null) {
                    throw new TaskStoppedException(topic + "-" + p, reason);
                }
            }
        }
    }

    /**
     * Publishes one event and completes with one reply per partitioner topic, or exceptionally if Kafka
     * refused it or no reply came in time. Not judged for lateness: the tasks judge it.
     */
    public CompletableFuture<List<Reply>> publish(StreamDef stream, EventCodec codec, Object[] values, long assignedId) {
        List<String> fields = entryFields(stream);
        String[] topics = new String[fields.size()];
        byte[][] keys = new byte[fields.size()][];
        int[] partitions = new int[fields.size()];
        for (int f = 0; f < fields.size(); f++) {
            topics[f] = entryTopic(stream, fields.get(f));
            keys[f] = GroupKeys.encodeOne(values[stream.columnIndex(fields.get(f)).orElseThrow()]);
            partitions[f] = decided(stream) ? 0 : partition(keys[f], stream.partitions(fields.get(f)));
        }
        CompletableFuture<List<Reply>> replies = send(codec.encode(values, assignedId), topics, keys, partitions,
                expectedReplies(stream));
        sends.flush();
        return replies;
    }

    private CompletableFuture<List<Reply>> send(byte[] payload, String[] topics, byte[][] keys,
            int[] partitions, int expected) {
        long correlation = correlations.incrementAndGet();
        CompletableFuture<List<Reply>> replies = router.expect(correlation, expected);
        List<CompletableFuture<Void>> sent = new ArrayList<>(topics.length);
        for (int f = 0; f < topics.length; f++) {
            RecordHeaders headers = new RecordHeaders();
            headers.add(KafkaHeaders.REPLY_TO, nodeIdBytes);
            headers.add(KafkaHeaders.CORRELATION, ReplyCodec.correlationKey(correlation));
            CompletableFuture<Void> ack = new CompletableFuture<>();
            sends.add(new ProducerRecord<>(topics[f], partitions[f], keys[f], payload, headers), (md, e) -> {
                        if (e != null) {
                            ack.completeExceptionally(e);
                        } else {
                            ack.complete(null);
                        }
                    });
            sent.add(ack);
        }
        CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new)).whenComplete((v, e) -> {
            if (e != null) {
                router.cancel(correlation);
                replies.completeExceptionally(e);
            }
        });
        return replies;
    }
}
