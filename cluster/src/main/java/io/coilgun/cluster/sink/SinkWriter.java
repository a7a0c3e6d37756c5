package io.coilgun.cluster.sink;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes the sink records of one task's active copy, on a thread of its own (a processor thread never waits for
 * Kafka). Each batch is one Kafka transaction: its records, and for each sink the task's offset past its last event,
 * committed to the sink's consumer group. The producer's transactional id is the task's, so a copy that takes over
 * fences this one (its open transaction is aborted) and goes on after what the groups say was committed: every
 * event's record is in the topic once, for read_committed consumers.
 *
 * <p>A failure (fenced included: a copy that leads the task meanwhile, until this one is told it does not) closes
 * the producer and starts again from the groups' committed offsets: a transaction that did commit is not written
 * again, one that did not is written whole.
 */
final class SinkWriter {
    private static final Logger LOG = LoggerFactory.getLogger(SinkWriter.class);
    static final int MAX_BATCH = 5_000;
    private static final long IDLE_PARK_NS = TimeUnit.MILLISECONDS.toNanos(50);

    private final TopicPartition task;
    private final SinkRegistry registry;
    private final ConcurrentLinkedQueue<SinkEntry> queue = new ConcurrentLinkedQueue<>();
    private final Thread thread;
    private final SinkWriterStats stats;
    private volatile boolean closed;
    /** Set while the writer waits for entries (then a new one wakes it). */
    private volatile boolean idle;
    /**
     * The offset of the last event whose records were committed: every entry handed over with an earlier offset is
     * in its topic (or was there already); of this offset's, some may still come (one record per sink).
     */
    private volatile long committedThrough = -1;

    SinkWriter(TopicPartition task, SinkRegistry registry) {
        this.task = task;
        this.registry = registry;
        this.stats = new SinkWriterStats(registry.commitTimer());
        this.thread = new Thread(this::run, "coilgun-sink-" + task);
        this.thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    /** Hands an entry over (the task's unit thread); never blocks, and wakes the writer only when it waits. */
    void offer(SinkEntry entry) {
        queue.offer(entry);
        if (idle) {
            LockSupport.unpark(thread);
        }
    }

    long committedThrough() {
        return committedThrough;
    }

    /**
     * Stops writing, without waiting (the caller is a processor thread): the writer ends after the transaction it
     * may be in, or has it aborted by the copy that writes next (whose producer fences this one).
     */
    void close() {
        closed = true;
        LockSupport.unpark(thread);
    }

    private void run() {
        List<SinkEntry> batch = new ArrayList<>();
        while (!closed) {
            KafkaProducer<byte[], byte[]> producer = null;
            try {
                producer = registry.transactionalProducer(task);
                producer.initTransactions(); // fences every earlier copy; its open transaction is aborted
                Map<String, Long> next = new HashMap<>(); // per sink group: the first task offset not yet written
                write(producer, batch, next);
            } catch (ProducerFencedException | InvalidProducerEpochException e) {
                // another copy opened the task's transactional id: it leads the task now, and this copy is told so
                // soon (and closes this writer); until then it tries again, from the offsets that copy committed
                LOG.info("task={} sink writer fenced by another copy of the task; trying again in 2 s", task);
                closeQuietly(producer);
                producer = null;
                LockSupport.parkNanos(TimeUnit.SECONDS.toNanos(2));
            } catch (RuntimeException e) {
                if (closed) {
                    break;
                }
                LOG.warn("task={} sink writer failed; starting again from the committed offsets: {}", task,
                        e.toString());
                closeQuietly(producer);
                producer = null;
                LockSupport.parkNanos(TimeUnit.SECONDS.toNanos(1));
            }
            if (producer != null) {
                closeQuietly(producer);
            }
        }
    }

    /** Writes batches until closed; a batch that fails stays in {@code batch} for the next producer. */
    private void write(KafkaProducer<byte[], byte[]> producer, List<SinkEntry> batch, Map<String, Long> next) {
        while (!closed) {
            if (batch.isEmpty()) {
                SinkEntry e;
                while (batch.size() < MAX_BATCH && (e = queue.poll()) != null) {
                    batch.add(e);
                }
                if (batch.isEmpty()) {
                    idle = true;
                    if (queue.isEmpty() && !closed) { // an entry offered after this check sees idle and wakes it
                        LockSupport.parkNanos(IDLE_PARK_NS);
                    }
                    idle = false;
                    continue;
                }
            }
            Map<String, Long> last = new LinkedHashMap<>(); // per group: the batch's last offset written
            List<SinkEntry> toSend = new ArrayList<>(batch.size());
            for (SinkEntry e : batch) {
                long from = next.computeIfAbsent(e.group(), g -> registry.committedNext(g, task));
                if (e.offset() >= from) {
                    toSend.add(e);
                    last.put(e.group(), e.offset());
                }
            }
            if (!toSend.isEmpty()) {
                long began = System.nanoTime();
                producer.beginTransaction();
                for (SinkEntry e : toSend) {
                    producer.send(new ProducerRecord<>(e.topic(), e.key(), e.value()));
                }
                for (Map.Entry<String, Long> g : last.entrySet()) {
                    producer.sendOffsetsToTransaction(Map.of(task, new OffsetAndMetadata(g.getValue() + 1)),
                            new ConsumerGroupMetadata(g.getKey()));
                }
                producer.commitTransaction();
                last.forEach((g, o) -> next.put(g, o + 1));
                registry.written(toSend);
                stats.committed(task, toSend.size(), System.nanoTime() - began);
            }
            committedThrough = batch.get(batch.size() - 1).offset();
            batch.clear();
        }
    }

    private static void closeQuietly(KafkaProducer<byte[], byte[]> producer) {
        if (producer == null) {
            return;
        }
        try {
            producer.close(Duration.ofSeconds(1));
        } catch (RuntimeException e) {
            LOG.debug("closing a sink producer", e);
        }
    }
}
