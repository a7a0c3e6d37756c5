package io.coilgun.server.embedded;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The embedded KRaft broker starts, stores a record, and keeps it across a restart. */
class EmbeddedKafkaTest {
    @Test
    void keepsRecordsAcrossRestart(@TempDir Path dir) throws Exception {
        try (EmbeddedKafka kafka = EmbeddedKafka.start(dir, 0)) {
            try (Admin admin = Admin.create(Map.of("bootstrap.servers", kafka.bootstrapServers()))) {
                admin.createTopics(List.of(new NewTopic("t", 1, (short) 1))).all().get();
            }
            Properties p = new Properties();
            p.put("bootstrap.servers", kafka.bootstrapServers());
            try (KafkaProducer<String, String> producer =
                    new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
                producer.send(new ProducerRecord<>("t", "k", "v")).get();
            }
        }
        try (EmbeddedKafka kafka = EmbeddedKafka.start(dir, 0)) {
            Properties p = new Properties();
            p.put("bootstrap.servers", kafka.bootstrapServers());
            try (KafkaConsumer<String, String> consumer =
                    new KafkaConsumer<>(p, new StringDeserializer(), new StringDeserializer())) {
                TopicPartition tp = new TopicPartition("t", 0);
                consumer.assign(List.of(tp));
                consumer.seekToBeginning(List.of(tp));
                var records = consumer.poll(java.time.Duration.ofSeconds(20));
                assertEquals("v", records.iterator().next().value());
            }
        }
    }
}
