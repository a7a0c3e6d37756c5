package io.coilgun.cluster.ingest;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The front end's records, handed to Kafka's producer on a thread of their own, in the order they were queued.
 *
 * <p>A statement's rows are judged for lateness and queued under the stream's ingest lock, so their order in each
 * partition is the order they were judged in (what {@link IngestGate}'s verdict needs); but the lock is never held
 * across {@code producer.send}, which blocks when the producer's buffer is full or a topic's metadata is missing (up
 * to {@code max.block.ms}). Only this thread waits then; the statements behind it wait for their replies within
 * their timeouts, and {@link InflightBudget} turns new ones away.
 */
final class SendQueue implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SendQueue.class);

    private record Queued(ProducerRecord<byte[], byte[]> record, Callback callback) {
    }

    private final KafkaProducer<byte[], byte[]> producer;
    private final LinkedBlockingQueue<Queued> queue = new LinkedBlockingQueue<>();
    private final Thread thread;
    private volatile boolean closed;

    SendQueue(KafkaProducer<byte[], byte[]> producer, String nodeId) {
        this.producer = producer;
        this.thread = new Thread(this::run, "coilgun-send-" + nodeId);
        thread.setDaemon(true);
        thread.start();
    }

    /**
     * Queues a record: sent after every record queued before it. {@code callback} gets Kafka's answer, or the error
     * that kept it from being sent (the producer refused it, the node stopped).
     */
    void send(ProducerRecord<byte[], byte[]> record, Callback callback) {
        if (closed) {
            callback.onCompletion(null, new KafkaException("the node is stopping: the event was not published"));
            return;
        }
        queue.add(new Queued(record, callback));
    }

    private void run() {
        List<Queued> batch = new ArrayList<>();
        while (true) {
            try {
                batch.add(queue.take());
            } catch (InterruptedException e) {
                break;
            }
            queue.drainTo(batch);
            for (Queued q : batch) {
                sendNow(q);
            }
            batch.clear();
        }
        // the node stops: what is left is answered, not left waiting
        queue.drainTo(batch);
        for (Queued q : batch) {
            q.callback().onCompletion(null, new KafkaException("the node is stopping: the event was not published"));
        }
    }

    private void sendNow(Queued q) {
        try {
            producer.send(q.record(), q.callback());
        } catch (RuntimeException e) {
            // the producer is closed, or refused the record before sending it (it answers most refusals through
            // the callback itself)
            try {
                q.callback().onCompletion(null, e);
            } catch (RuntimeException again) {
                LOG.warn("A send's callback failed", again);
            }
        }
    }

    /** Stops the thread; records still queued are answered with an error. Before the producer closes. */
    @Override
    public void close() {
        closed = true;
        thread.interrupt();
        try {
            thread.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        List<Queued> left = new ArrayList<>();
        queue.drainTo(left); // queued while it stopped
        for (Queued q : left) {
            q.callback().onCompletion(null, new KafkaException("the node is stopping: the event was not published"));
        }
    }
}
