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

/**
 * A Kafka that requires SASL/SCRAM over TLS (issue 42) for a test's cluster: {@code coilgun kafka --scram-users
 * --tls-*} options for its brokers (a self-signed certificate made with keytool), the {@code --kafka-config} file of
 * its nodes (the client settings of every producer, consumer and admin client a node makes), one with a wrong
 * password, and the checks a cluster on it passes: the README's example and a sink read back by an authenticated
 * read_committed consumer, a node with the wrong password refused at start saying why, no password in any log.
 */
final class SecuredKafka {
    private static final String NODE_PASSWORD = "node-pass-2";
    private static final String WRONG_PASSWORD = "not-the-password-3";
    private static final String STORE_PASSWORD = "store-pass-4";

    private final TestCertificates tls;
    private final List<String> brokerOptions;
    private final Path nodeConfig;
    private final Path wrongConfig;

    private SecuredKafka(TestCertificates tls, List<String> brokerOptions, Path nodeConfig, Path wrongConfig) {
        this.tls = tls;
        this.brokerOptions = brokerOptions;
        this.nodeConfig = nodeConfig;
        this.wrongConfig = wrongConfig;
    }

    static SecuredKafka make(Path dir) throws Exception {
        Files.createDirectories(dir);
        Path users = dir.resolve("scram-users.properties");
        Files.writeString(users, "broker = broker-pass-1\ncoilgun = " + NODE_PASSWORD + "\n");
        TestCertificates tls = TestCertificates.make(dir.resolve("tls"), STORE_PASSWORD);
        List<String> brokers = new ArrayList<>(List.of("--scram-users", users.toString()));
        brokers.addAll(tls.brokerOptions());
        return new SecuredKafka(tls, List.copyOf(brokers), clientConfig(dir, tls, NODE_PASSWORD),
                clientConfig(dir, tls, WRONG_PASSWORD));
    }

    /** {@code coilgun kafka}'s options (and each restarted broker's). */
    List<String> brokerOptions() {
        return brokerOptions;
    }

    /** A node's options for this Kafka. */
    List<String> nodeOptions() {
        return List.of("--kafka-config", nodeConfig.toString());
    }

    /**
     * The README's example on the node at {@code port}, with a sink of its metric read back from Kafka by a
     * read_committed consumer that authenticates as the node does; then its stream is dropped.
     */
    void readmeExampleWithASink(int port, String bootstrap) throws Exception {
        try (Connection conn = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + port
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
            List<String> sunk = readCommitted(bootstrap, "card_features", 3);
            assertEquals(3, sunk.size(), "the sink's records: " + sunk);
            assertTrue(sunk.get(2).contains("\"card_5m_total\":6.0"), sunk.get(2));
            s.execute("DROP STREAM payments CASCADE");
        }
    }

    /** A node with the wrong password fails to start, saying why; no password is in any node's log. */
    void wrongCredentialsRefusedAndNoPasswordLogged(ClusterProcesses c, String id) throws Exception {
        AssertionError refused = assertThrows(AssertionError.class,
                () -> c.startNode(id, "--kafka-config", wrongConfig.toString()));
        assertTrue(refused.getMessage().contains("refused this node's credentials (see --kafka-config)"),
                refused.getMessage());
        List<String> nodes = new ArrayList<>(c.nodeIds());
        nodes.add(id);
        for (String node : nodes) {
            String log = c.log(node);
            assertFalse(log.contains(NODE_PASSWORD) || log.contains(WRONG_PASSWORD) || log.contains(STORE_PASSWORD),
                    "a password in " + node + "'s log");
        }
    }

    private static Path clientConfig(Path dir, TestCertificates tls, String password) throws Exception {
        Path file = dir.resolve("kafka-client-" + password + ".properties");
        try (var out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            clientSettings(tls, password).store(out, "Kafka client settings of a node");
        }
        return file;
    }

    private static Properties clientSettings(TestCertificates tls, String password) {
        Properties p = new Properties();
        p.put("security.protocol", "SASL_SSL");
        p.put("ssl.truststore.type", "PKCS12");
        p.put("ssl.truststore.location", tls.truststore().toString());
        p.put("ssl.truststore.password", tls.password());
        p.put("sasl.mechanism", "SCRAM-SHA-256");
        p.put("sasl.jaas.config", "org.apache.kafka.common.security.scram.ScramLoginModule required username="
                + "\"coilgun\" password=\"" + password + "\";");
        return p;
    }

    /** The topic's records, read_committed, by a consumer that authenticates as the node does. */
    private List<String> readCommitted(String bootstrap, String topic, int expected) {
        Properties p = clientSettings(tls, NODE_PASSWORD);
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
