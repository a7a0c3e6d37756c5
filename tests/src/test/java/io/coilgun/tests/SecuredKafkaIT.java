package io.coilgun.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Nodes on a Kafka that requires SASL/SCRAM over TLS (issue 42): {@code coilgun kafka --scram-users --tls-*} starts
 * the broker (a self-signed certificate made with keytool), a node
 * started with {@code --kafka-config} (the client settings for every producer, consumer and admin client it makes)
 * runs the README's example and a sink (a transactional producer and a consumer group, authenticated too); a node
 * with a wrong password fails to start, saying why; no password is in the logs.
 */
@Tag("integration")
@Timeout(240)
@SecondNodeLane
class SecuredKafkaIT {
    @TempDir
    Path dir;
    private TestCertificates tls;

    @Test
    void aNodeWithKafkaCredentialsWorksAndOneWithWrongCredentialsIsRefusedAtStart() throws Exception {
        Path users = dir.resolve("scram-users.properties");
        Files.writeString(users, "broker = broker-pass-1\ncoilgun = node-pass-2\n");
        tls = TestCertificates.make(dir.resolve("tls"), "store-pass-4");
        Path good = clientConfig("coilgun", "node-pass-2");
        Path wrong = clientConfig("coilgun", "not-the-password-3");
        List<String> brokers = new ArrayList<>(List.of("--scram-users", users.toString()));
        brokers.addAll(tls.brokerOptions());
        try (ClusterProcesses c = new ClusterProcesses(dir.resolve("cluster"), 1, brokers)) {
            c.startNode("n1", "--kafka-config", good.toString());
            try (Connection conn = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + c.port("n1")
                    + "/coilgun?user=tester"); Statement s = conn.createStatement()) {
                s.execute("CREATE STREAM payments (id BIGINT, ts TIMESTAMP, card_id VARCHAR, merchant_id VARCHAR, "
                        + "amount DOUBLE) WITH (event_time = 'ts', event_id = 'id', partition_by = 'card_id', "
                        + "partitions = 4)");
                s.execute("CREATE METRIC card_5m AS SELECT SUM(amount) AS total, COUNT(*) AS n FROM payments "
                        + "GROUP BY card_id OVER SLIDING INTERVAL '5' MINUTE");
                s.execute("CREATE SINK card_out FROM card_5m INTO KAFKA TOPIC 'card_features'");
                double[] totals = {10.0, 15.0, 6.0};
                String[] rows = {"(1, TIMESTAMP '2026-01-01 10:00:00', 'c1', 'm1', 10.0)",
                    "(2, TIMESTAMP '2026-01-01 10:04:59', 'c1', 'm2', 5.0)",
                    "(3, TIMESTAMP '2026-01-01 10:05:00', 'c1', 'm1', 1.0)"};
                for (int i = 0; i < rows.length; i++) {
                    try (ResultSet rs = s.executeQuery("INSERT INTO payments VALUES " + rows[i] + " RETURNING *")) {
                        assertTrue(rs.next());
                        assertEquals(totals[i], rs.getDouble("card_5m_total"), 1e-9);
                    }
                }
                List<String> sunk = readCommitted(c.bootstrap(), "card_features", 3);
                assertEquals(3, sunk.size(), "the sink's records: " + sunk);
                assertTrue(sunk.get(2).contains("\"card_5m_total\":6.0"), sunk.get(2));
            }
            AssertionError refused = assertThrows(AssertionError.class,
                    () -> c.startNode("n2", "--kafka-config", wrong.toString()));
            assertTrue(refused.getMessage().contains("refused this node's credentials (see --kafka-config)"),
                    refused.getMessage());
            for (String node : List.of("n1", "n2")) {
                String log = c.log(node);
                assertFalse(log.contains("node-pass-2") || log.contains("not-the-password-3")
                        || log.contains("store-pass-4"), "a password in " + node + "'s log");
            }
        }
    }

    private Path clientConfig(String user, String password) throws Exception {
        Path file = dir.resolve(user + "-" + password + ".properties");
        Properties p = clientSettings(tls, user, password);
        try (var out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            p.store(out, "Kafka client settings of a node");
        }
        return file;
    }

    private static Properties clientSettings(TestCertificates tls, String user, String password) {
        Properties p = new Properties();
        p.put("security.protocol", "SASL_SSL");
        p.put("ssl.truststore.type", "PKCS12");
        p.put("ssl.truststore.location", tls.truststore().toString());
        p.put("ssl.truststore.password", tls.password());
        p.put("sasl.mechanism", "SCRAM-SHA-256");
        p.put("sasl.jaas.config", "org.apache.kafka.common.security.scram.ScramLoginModule required username=\""
                + user + "\" password=\"" + password + "\";");
        return p;
    }

    /** The topic's records, read_committed, by a consumer that authenticates as the node does. */
    private List<String> readCommitted(String bootstrap, String topic, int expected) throws Exception {
        Properties p = clientSettings(tls, "coilgun", "node-pass-2");
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        List<String> values = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(p, new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            List<TopicPartition> tps = consumer.partitionsFor(topic).stream()
                    .map(i -> new TopicPartition(topic, i.partition())).toList();
            consumer.assign(tps);
            consumer.seekToBeginning(tps);
            long deadline = System.currentTimeMillis() + 30_000;
            while (values.size() < expected && System.currentTimeMillis() < deadline) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    values.add(new String(r.value(), StandardCharsets.UTF_8));
                }
            }
        }
        return values;
    }
}
