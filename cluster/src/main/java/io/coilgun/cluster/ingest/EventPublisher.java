package io.coilgun.cluster.ingest;

import io.coilgun.cluster.kafka.KafkaHeaders;
import io.coilgun.cluster.kafka.Topics;
import io.coilgun.cluster.reply.Reply;
import io.coilgun.cluster.reply.ReplyCodec;
import io.coilgun.cluster.reply.ReplyRouter;
import io.coilgun.planner.event.EventCodec;
import io.coilgun.planner.event.GroupKeys;
import io.coilgun.planner.model.StreamDef;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;

/**
 * The front end's side of the event path (paper, figure 3): publishes each event once per partitioner topic of
 * its stream, keyed by that field's value, with this node as reply address, and waits for the tasks' replies.
 */
public final class EventPublisher {
    private final String nodeId;
    private final byte[] nodeIdBytes;
    private final KafkaProducer<byte[], byte[]> producer;
    private final ReplyRouter router;
    private final AtomicLong correlations = new AtomicLong(System.nanoTime());
    private final AtomicLong assignedIds;

    public EventPublisher(String nodeId, KafkaProducer<byte[], byte[]> producer, ReplyRouter router) {
        this.nodeId = nodeId;
        this.nodeIdBytes = nodeId.getBytes(StandardCharsets.UTF_8);
        this.producer = producer;
        this.router = router;
        // Ids for streams without an event_id column: microseconds at start, then counting up.
        this.assignedIds = new AtomicLong(System.currentTimeMillis() * 1000);
    }

    public String nodeId() {
        return nodeId;
    }

    /** An id for an event of a stream that has no event_id column. */
    public long assignId() {
        return assignedIds.incrementAndGet();
    }

    /**
     * Publishes one event and completes with one reply per partitioner topic, or exceptionally if Kafka
     * refused it or no reply came in time.
     */
    public CompletableFuture<List<Reply>> publish(StreamDef stream, EventCodec codec, Object[] values, long assignedId) {
        long correlation = correlations.incrementAndGet();
        byte[] payload = codec.encode(values, assignedId);
        List<String> fields = stream.partitionBy();
        CompletableFuture<List<Reply>> replies = router.expect(correlation, fields.size());
        List<CompletableFuture<Void>> sent = new ArrayList<>(fields.size());
        for (String field : fields) {
            int column = stream.columnIndex(field).orElseThrow();
            RecordHeaders headers = new RecordHeaders();
            headers.add(KafkaHeaders.REPLY_TO, nodeIdBytes);
            headers.add(KafkaHeaders.CORRELATION, ReplyCodec.correlationKey(correlation));
            CompletableFuture<Void> ack = new CompletableFuture<>();
            producer.send(new ProducerRecord<>(Topics.partitioner(stream.name(), field), null,
                    GroupKeys.encodeOne(values[column]), payload, headers), (md, e) -> {
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
