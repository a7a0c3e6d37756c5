package io.coilgun.cluster.task;

import io.coilgun.cluster.kafka.KafkaHeaders;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The new decider's active copy merges the histories the stream's tasks handed over ({@link SeedWriter}: one
 * partition of the seed topic each, in time order) into one history in time order, and writes it to its own decision
 * log ({@link KafkaHeaders#SEEDED}, numbered), then the end ({@link KafkaHeaders#SEEDED_END}). Every copy of the
 * decider takes those records in log order ({@link Seeding}), so all hold the same history at the same offsets.
 *
 * <p>Deterministic, so that a copy that takes over writes the same numbered records from where the log stops (the
 * copies take each number once, the first time it comes): per partition, the first attempt that ended counts (a task
 * that failed over wrote another), its events in the order written; ties in time go to the lower partition.
 * Its own thread (it waits for Kafka); at most 10,000 records per partition in memory, 20,000 sends in flight.
 */
final class SeedMerge implements Runnable {
    private static final Logger LOG = LoggerFactory.getLogger(SeedMerge.class);
    private static final int MAX_QUEUED = 10_000;
    private static final int MAX_IN_FLIGHT = 20_000;

    private record Seed(long time, byte[] payload) {
    }

    private final Supplier<Consumer<byte[], byte[]>> consumers;
    private final Forwarder.Sender sender;
    private final String seedTopic;
    private final int partitions;
    private final String deciderTopic;
    private final long from;
    private final AtomicLong inFlight = new AtomicLong();
    private final AtomicReference<Exception> failure = new AtomicReference<>();
    private volatile boolean stopped;
    private Thread thread;

    /**
     * @param from the first number the decider has not taken yet (what it has is not written again)
     */
    SeedMerge(Supplier<Consumer<byte[], byte[]>> consumers, Forwarder.Sender sender, String seedTopic, int partitions,
            String deciderTopic, long from) {
        this.consumers = consumers;
        this.sender = sender;
        this.seedTopic = seedTopic;
        this.partitions = partitions;
        this.deciderTopic = deciderTopic;
        this.from = from;
    }

    void start(String name) {
        thread = new Thread(this, name);
        thread.setDaemon(true);
        thread.start();
    }

    /**
     * Stops writing (the copy is no longer active, or closes) within a poll (never interrupted: its consumer closes
     * cleanly); a record being sent may still land.
     */
    void stop() {
        stopped = true;
    }

    @Override
    public void run() {
        while (!stopped) {
            try (Consumer<byte[], byte[]> consumer = consumers.get()) {
                List<TopicPartition> tps = new ArrayList<>();
                for (int p = 0; p < partitions; p++) {
                    tps.add(new TopicPartition(seedTopic, p));
                }
                consumer.assign(tps);
                long[][] ends = endedAttempts(consumer, tps);
                if (ends != null) {
                    merge(consumer, tps, ends);
                }
                return;
            } catch (RuntimeException e) {
                if (stopped) {
                    return;
                }
                LOG.warn("topic={} merging the tasks' histories failed; beginning again", seedTopic, e);
                failure.set(null);
                sleep(1_000);
            }
        }
    }

    /** Per partition the first attempt that ended and its count; null when stopped first. */
    private long[][] endedAttempts(Consumer<byte[], byte[]> consumer, List<TopicPartition> tps) {
        consumer.seekToBeginning(tps);
        long[][] ends = new long[partitions][];
        int found = 0;
        while (found < partitions) {
            if (stopped) {
                return null;
            }
            for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                int p = r.partition();
                if (ends[p] == null && r.headers().lastHeader(KafkaHeaders.SEED_END) != null) {
                    ends[p] = new long[] {KafkaHeaders.numberOf(r.headers(), KafkaHeaders.SEED_END, 0),
                        KafkaHeaders.numberOf(r.headers(), KafkaHeaders.SEED_END, 1)};
                    found++;
                    consumer.pause(List.of(new TopicPartition(seedTopic, p)));
                }
            }
        }
        consumer.resume(tps);
        return ends;
    }

    private void merge(Consumer<byte[], byte[]> consumer, List<TopicPartition> tps, long[][] ends) {
        consumer.seekToBeginning(tps);
        List<ArrayDeque<Seed>> queues = new ArrayList<>();
        long[] read = new long[partitions]; // events of the counted attempt queued so far, per partition
        long[] taken = new long[partitions];
        boolean[] paused = new boolean[partitions];
        for (int p = 0; p < partitions; p++) {
            queues.add(new ArrayDeque<>());
        }
        long next = 0;
        while (!stopped) {
            // take the earliest head while every partition not done has one
            while (true) {
                int best = -1;
                boolean blocked = false;
                for (int p = 0; p < partitions; p++) {
                    Seed head = queues.get(p).peekFirst();
                    if (head == null) {
                        if (taken[p] < ends[p][1]) {
                            blocked = true;
                            break;
                        }
                    } else if (best < 0 || head.time() < queues.get(best).peekFirst().time()) {
                        best = p;
                    }
                }
                if (blocked || best < 0 || inFlight.get() >= MAX_IN_FLIGHT) {
                    if (!blocked && best < 0) {
                        await(() -> inFlight.get() == 0);
                        send(KafkaHeaders.SEEDED_END, next, new byte[0]);
                        await(() -> inFlight.get() == 0);
                        LOG.info("topic={} the tasks' histories are in the decision log: {} events", deciderTopic,
                                next);
                        return;
                    }
                    break;
                }
                Seed s = queues.get(best).pollFirst();
                taken[best]++;
                if (next >= from) {
                    send(KafkaHeaders.SEEDED, next, s.payload());
                }
                next++;
            }
            Exception failed = failure.get();
            if (failed != null) {
                throw new IllegalStateException("a send to the decision log failed", failed);
            }
            for (int p = 0; p < partitions; p++) {
                TopicPartition tp = new TopicPartition(seedTopic, p);
                boolean full = queues.get(p).size() >= MAX_QUEUED || read[p] >= ends[p][1];
                if (full && !paused[p]) {
                    consumer.pause(List.of(tp));
                    paused[p] = true;
                } else if (!full && paused[p]) {
                    consumer.resume(List.of(tp));
                    paused[p] = false;
                }
            }
            for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(inFlight.get() >= MAX_IN_FLIGHT
                    ? 5 : 100))) {
                int p = r.partition();
                if (r.headers().lastHeader(KafkaHeaders.SEED) == null
                        || KafkaHeaders.numberOf(r.headers(), KafkaHeaders.SEED, 0) != ends[p][0]
                        || KafkaHeaders.numberOf(r.headers(), KafkaHeaders.SEED, 1) != read[p]
                        || read[p] >= ends[p][1]) {
                    continue; // another attempt's, a copy sent twice, or past the end
                }
                read[p]++;
                queues.get(p).addLast(new Seed(KafkaHeaders.numberOf(r.headers(), KafkaHeaders.SEED, 2), r.value()));
            }
        }
    }

    private void send(String header, long number, byte[] value) {
        RecordHeaders headers = new RecordHeaders();
        headers.add(header, KafkaHeaders.numbers(number));
        inFlight.incrementAndGet();
        sender.send(new ProducerRecord<>(deciderTopic, 0, (byte[]) null, value, headers), (md, e) -> {
            if (e != null) {
                failure.compareAndSet(null, e);
            }
            inFlight.decrementAndGet();
        });
    }

    private void await(java.util.function.BooleanSupplier condition) {
        while (!condition.getAsBoolean() && !stopped) {
            sleep(5);
        }
        Exception failed = failure.get();
        if (failed != null) {
            throw new IllegalStateException("a send to the decision log failed", failed);
        }
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public String toString() {
        return "SeedMerge" + Arrays.asList(seedTopic, deciderTopic, from);
    }
}
