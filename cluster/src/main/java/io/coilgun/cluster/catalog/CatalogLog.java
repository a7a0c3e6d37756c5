package io.coilgun.cluster.catalog;

import io.coilgun.cluster.kafka.KafkaClients;
import io.coilgun.cluster.kafka.Topics;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;

/**
 * The durable catalog: a compacted, single-partition Kafka topic whose records are the DDL statements that
 * created each stream and metric (key {@code stream:<name>} or {@code metric:<name>}, value the SQL text),
 * in the order they were made. A node replays it at start; keeping SQL makes it readable with any Kafka tool.
 */
public final class CatalogLog {
    private final String bootstrapServers;
    private final KafkaProducer<byte[], byte[]> producer;

    public CatalogLog(String bootstrapServers, KafkaProducer<byte[], byte[]> producer) {
        this.bootstrapServers = bootstrapServers;
        this.producer = producer;
    }

    public static Map<String, String> topicConfig() {
        return Map.of("cleanup.policy", "compact");
    }

    /** Appends an entry and waits until Kafka has it; its offset in the catalog. */
    public long append(CatalogKey key, String ddl) {
        try {
            return producer.send(new ProducerRecord<>(Topics.CATALOG, 0, key.text().getBytes(StandardCharsets.UTF_8),
                    ddl.getBytes(StandardCharsets.UTF_8))).get(30, TimeUnit.SECONDS).offset();
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("cannot write the catalog topic: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted writing the catalog", e);
        }
    }

    /** Appends a tombstone: the entry is gone (and compaction removes it). Its offset in the catalog. */
    public long remove(CatalogKey key) {
        try {
            return producer.send(new ProducerRecord<>(Topics.CATALOG, 0, key.text().getBytes(StandardCharsets.UTF_8),
                    null)).get(30, TimeUnit.SECONDS).offset();
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("cannot write the catalog topic: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted writing the catalog", e);
        }
    }

    /**
     * Reads every entry, oldest first; a removed entry comes as a tombstone (null DDL) after it. The offset after the
     * last one read is where following the catalog goes on ({@link Snapshot#end()}).
     */
    public Snapshot readAll() {
        TopicPartition tp = new TopicPartition(Topics.CATALOG, 0);
        List<Entry> entries = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = KafkaClients.consumer(bootstrapServers, "coilgun-catalog", 0, 0)) {
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            long end = consumer.endOffsets(List.of(tp)).get(tp);
            while (consumer.position(tp) < end) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    if (r.offset() < end) {
                        entries.add(new Entry(CatalogKey.parse(new String(r.key(), StandardCharsets.UTF_8)),
                                r.value() == null ? null : new String(r.value(), StandardCharsets.UTF_8), r.offset()));
                    }
                }
            }
            return new Snapshot(entries, end);
        }
    }

    /** The catalog's entries up to {@code end} (exclusive). */
    public record Snapshot(List<Entry> entries, long end) {
    }

    /** One catalog record at {@code offset}; {@code ddl} is null for a tombstone. */
    public record Entry(CatalogKey key, String ddl, long offset) {
    }
}
