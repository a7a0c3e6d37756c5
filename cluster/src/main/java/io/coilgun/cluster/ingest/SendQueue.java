package io.coilgun.cluster.ingest;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The front end's records, handed to Kafka's producer in the order they were queued, by whichever caller finds the
 * queue free to drain ({@link #flush}): no thread of its own, so a statement's records cost no hand-over between
 * threads on the way out.
 *
 * <p>A statement's rows are judged for lateness and {@link #add queued} under the stream's ingest lock, so their order
 * in each partition is the order they were judged in (what {@link IngestGate}'s verdict needs); they are flushed after
 * the lock is released, so the lock is never held across {@code producer.send}, which blocks when the producer's
 * buffer is full or a topic's metadata is missing (up to {@code max.block.ms}; the node's bound of events in flight,
 * {@link InflightBudget}, keeps the buffer from filling, and topics' metadata is fetched when they are deployed).
 * A caller that finds another draining returns at once: the drainer sends its records too, in order.
 */
final class SendQueue {
    private static final Logger LOG = LoggerFactory.getLogger(SendQueue.class);

    private record Queued(ProducerRecord<byte[], byte[]> record, Callback callback) {
    }

    private final KafkaProducer<byte[], byte[]> producer;
    private final ConcurrentLinkedQueue<Queued> queue = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean draining = new AtomicBoolean();
    private volatile boolean closed;

    SendQueue(KafkaProducer<byte[], byte[]> producer) {
        this.producer = producer;
    }

    /**
     * Queues a record, sent after every record queued before it by the next {@link #flush}. {@code callback} gets
     * Kafka's answer, or the error that kept it from being sent (the producer refused it, the node stopped).
     */
    void add(ProducerRecord<byte[], byte[]> record, Callback callback) {
        queue.add(new Queued(record, callback));
    }

    /** {@link #add}, then {@link #flush}: for a caller that holds no lock. */
    void send(ProducerRecord<byte[], byte[]> record, Callback callback) {
        add(record, callback);
        flush();
    }

    /**
     * Sends what is queued, in order, unless another caller is doing so (it sends these too before it stops). Never
     * under a lock other callers wait for.
     */
    void flush() {
        while (!queue.isEmpty() && draining.compareAndSet(false, true)) {
            try {
                Queued q;
                while ((q = queue.poll()) != null) {
                    sendNow(q);
                }
            } finally {
                draining.set(false);
            }
            // a record queued after the last poll and before the flag came down is sent by this loop's next turn
        }
    }

    private void sendNow(Queued q) {
        if (closed) {
            refuse(q, new KafkaException("the node is stopping: the event was not published"));
            return;
        }
        try {
            producer.send(q.record(), q.callback());
        } catch (RuntimeException e) {
            // the producer is closed, or refused the record before sending it (it answers most refusals through
            // the callback itself)
            refuse(q, e);
        }
    }

    private static void refuse(Queued q, RuntimeException e) {
        try {
            q.callback().onCompletion(null, e);
        } catch (RuntimeException again) {
            LOG.warn("A send's callback failed", again);
        }
    }

    /** The node stops: what is still queued is answered with an error. Before the producer closes. */
    void close() {
        closed = true;
        flush();
    }
}
