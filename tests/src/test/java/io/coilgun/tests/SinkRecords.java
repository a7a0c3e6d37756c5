package io.coilgun.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * A sink's topic read as its consumers read it: a plain Kafka consumer in read_committed mode, every partition from
 * the start. Each record is a JSON object; the key is the GROUP BY value.
 */
final class SinkRecords {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** One record: its key, value and partition, in the order of its partition. */
    record Read(String key, JsonNode value, int partition) {
    }

    private SinkRecords() {
    }

    /**
     * Reads {@code topic} until it holds at least {@code expected} records and nothing more comes for a second (or 90
     * s passed), in each partition's order.
     */
    static List<Read> readCommitted(String bootstrap, String topic, int expected) throws Exception {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        List<Read> all = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(p, new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic).stream()
                    .map(i -> new TopicPartition(topic, i.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            long deadline = System.currentTimeMillis() + 90_000;
            long quietSince = System.currentTimeMillis();
            while (System.currentTimeMillis() < deadline) {
                var records = consumer.poll(Duration.ofMillis(200));
                for (ConsumerRecord<byte[], byte[]> r : records) {
                    all.add(new Read(r.key() == null ? null : new String(r.key(), StandardCharsets.UTF_8),
                            JSON.readTree(r.value()), r.partition()));
                }
                if (!records.isEmpty()) {
                    quietSince = System.currentTimeMillis();
                } else if (all.size() >= expected && System.currentTimeMillis() - quietSince > 1_000) {
                    break;
                }
            }
        }
        return all;
    }

    /**
     * The sink of a metric {@code SUM(amount) AS total, COUNT(*) AS n … GROUP BY card OVER SLIDING 30 DAYS} over
     * payments less than 30 days apart: exactly one record per accepted payment ({@code valid}: id -> card), and each
     * record's values are those of its card's payments up to it, in the order the records of the card come (a
     * card's records come in event order: the brute-force value as of each payment).
     */
    static void assertExactlyOncePerEvent(List<Read> records, Map<Long, String> valid, Map<Long, Double> amounts,
            String metric) {
        Set<Long> seen = new HashSet<>();
        Map<String, double[]> running = new HashMap<>();
        List<String> wrong = new ArrayList<>();
        for (Read r : records) {
            long id = r.value().get("id").asLong();
            assertTrue(seen.add(id), "payment " + id + " has more than one record");
            String card = valid.get(id);
            assertTrue(card != null, "a record of an event that was not accepted: " + r.value());
            assertEquals(card, r.key(), "the record's key is its card");
            assertEquals(card, r.value().get("card").asText());
            double[] v = running.computeIfAbsent(card, k -> new double[2]);
            v[0] += amounts.get(id);
            v[1]++;
            JsonNode n = r.value().get(metric + "_n");
            JsonNode total = r.value().get(metric + "_total");
            if (n.asLong() != (long) v[1] || Math.abs(total.asDouble() - v[0]) > 1e-6) {
                wrong.add(r.value() + " (expected n " + (long) v[1] + ", total " + v[0] + ")");
            }
        }
        assertEquals(valid.size(), seen.size(), "one record per accepted payment");
        assertTrue(wrong.isEmpty(), wrong.size() + " records differ from brute force, e.g. "
                + wrong.subList(0, Math.min(3, wrong.size())));
    }
}
