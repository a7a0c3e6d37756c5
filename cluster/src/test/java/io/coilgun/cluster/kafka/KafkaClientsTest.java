package io.coilgun.cluster.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.util.Properties;
import org.junit.jupiter.api.Test;

class KafkaClientsTest {
    @Test
    void aSystemPropertyWithTheClientsPrefixOverridesThatSetting() {
        System.setProperty("coilgun.kafka.producer.linger.ms", "3");
        System.setProperty("coilgun.kafka.producer.", "ignored: no setting named");
        try {
            Properties p = new Properties();
            p.put("linger.ms", "0");
            p.put("acks", "all");
            KafkaClients.overrides(p, KafkaClients.PRODUCER_OVERRIDES);
            assertEquals("3", p.get("linger.ms"));
            assertEquals("all", p.get("acks"));
            assertFalse(p.containsKey(""));
            Properties consumer = new Properties();
            KafkaClients.overrides(consumer, KafkaClients.CONSUMER_OVERRIDES);
            assertFalse(consumer.containsKey("linger.ms"), "a producer setting stays with the producer");
        } finally {
            System.clearProperty("coilgun.kafka.producer.linger.ms");
            System.clearProperty("coilgun.kafka.producer.");
        }
    }
}
