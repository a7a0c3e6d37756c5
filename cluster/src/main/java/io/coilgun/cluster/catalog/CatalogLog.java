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
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;

/**
 * The durable catalog: a compacted, single-partition Kafka topic whose records are the DDL statements that
 * created each stream and metric (key {@code stream:<name>} or {@code metric:<name>}, value the SQL text),
 * in the order they were made. A node replays it at start; keeping SQL makes it readable with any Kafka tool.
 *
 * <p>A record written since stream columns of type NUMERIC keep exact decimals carries the header {@value
 * #FORMAT_HEADER} = {@value #FORMAT}: in an older record's DDL, a NUMERIC or DECIMAL stream column is a double
 * precision one (what such a stream's events hold).
 */
public final class CatalogLog {
    public static final String FORMAT_HEADER = "coilgun-catalog-format";
    /** The format this version writes: NUMERIC stream columns are exact. */
    public static final String FORMAT = "2";

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
            ProducerRecord<byte[], byte[]> record = new ProducerRecord<>(Topics.CATALOG, 0,
                    key.text().getBytes(StandardCharsets.UTF_8), ddl.getBytes(StandardCharsets.UTF_8));
            record.headers().add(FORMAT_HEADER, FORMAT.getBytes(StandardCharsets.UTF_8));
            return producer.send(record).get(30, TimeUnit.SECONDS).offset();
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
                                r.value() == null ? null : new String(r.value(), StandardCharsets.UTF_8), r.offset(),
                                exactNumerics(r.headers())));
                    }
                }
            }
            return new Snapshot(entries, end);
        }
    }

    /** The catalog's entries up to {@code end} (exclusive). */
    public record Snapshot(List<Entry> entries, long end) {
    }

    /**
     * One catalog record at {@code offset}; {@code ddl} is null for a tombstone; {@code exactNumerics}: written in
     * {@link #FORMAT} (else its NUMERIC stream columns are double precision).
     */
    public record Entry(CatalogKey key, String ddl, long offset, boolean exactNumerics) {
    }

    /** Whether a catalog record with these headers was written in {@link #FORMAT} or later. */
    public static boolean exactNumerics(Headers headers) {
        Header h = headers.lastHeader(FORMAT_HEADER);
        return h != null && Integer.parseInt(new String(h.value(), StandardCharsets.UTF_8)) >= 2;
    }
}
