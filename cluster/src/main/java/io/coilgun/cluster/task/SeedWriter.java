package io.coilgun.cluster.task;

import io.coilgun.cluster.kafka.KafkaHeaders;
import io.coilgun.storage.reservoir.HistoryCursor;
import io.coilgun.storage.reservoir.Reservoir;
import java.util.Arrays;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;

/**
 * Hands a task's history to its stream's new decider ({@link StreamCut}): every event the task's reservoir holds, in
 * time order, to the task's partition of the stream's seed topic, then an end record with the count. One attempt is
 * one random number: a copy that takes over writes its own attempt, and the decider takes the first that ended.
 * Runs in slices on the task's thread; never waits for Kafka (it stops reading while many sends are unacknowledged).
 */
final class SeedWriter {
    /** How many unacknowledged sends a slice lets pile up before it ends. */
    private static final int MAX_IN_FLIGHT = 20_000;

    private final Forwarder.Sender sender;
    private final String topic;
    private final int partition;
    private final Reservoir reservoir;
    private final AtomicLong inFlight = new AtomicLong();
    private final AtomicReference<Exception> failure = new AtomicReference<>();
    private long attempt;
    private HistoryCursor cursor;
    private long index;
    private boolean ended;

    SeedWriter(Forwarder.Sender sender, String topic, int partition, Reservoir reservoir) {
        this.sender = sender;
        this.topic = topic;
        this.partition = partition;
        this.reservoir = reservoir;
        begin();
    }

    private void begin() {
        attempt = ThreadLocalRandom.current().nextLong(1, Long.MAX_VALUE);
        cursor = reservoir.history(Long.MIN_VALUE);
        index = 0;
        ended = false;
    }

    /** Writes until {@code deadlineNanos} (System.nanoTime); true once the whole history and its end are in Kafka. */
    boolean step(long deadlineNanos) {
        Exception failed = failure.getAndSet(null);
        if (failed != null) {
            begin(); // a send failed: a new attempt from the beginning (the decider ignores one that did not end)
        }
        while (!cursor.done() && inFlight.get() < MAX_IN_FLIGHT && System.nanoTime() - deadlineNanos < 0) {
            if (!cursor.ready()) {
                return false;
            }
            cursor.step((seq, time, schema, data, off, len) -> send(KafkaHeaders.SEED,
                    KafkaHeaders.numbers(attempt, index++, time), Arrays.copyOfRange(data, off, off + len)));
        }
        if (cursor.done() && !ended) {
            send(KafkaHeaders.SEED_END, KafkaHeaders.numbers(attempt, index), new byte[0]);
            ended = true;
        }
        return ended && inFlight.get() == 0 && failure.get() == null;
    }

    /** How many events this attempt wrote so far. */
    long written() {
        return index;
    }

    private void send(String header, byte[] numbers, byte[] value) {
        RecordHeaders headers = new RecordHeaders();
        headers.add(header, numbers);
        inFlight.incrementAndGet();
        sender.send(new ProducerRecord<>(topic, partition, (byte[]) null, value, headers), (md, e) -> {
            if (e != null) {
                failure.compareAndSet(null, e);
            }
            inFlight.decrementAndGet();
        });
    }
}
