package io.coilgun.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coilgun.cluster.catalog.CatalogKey;
import io.coilgun.cluster.kafka.KafkaClients;
import io.coilgun.cluster.kafka.Topics;
import io.coilgun.server.embedded.EmbeddedKafka;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --kafka host:port}: the node runs the same event path against a Kafka it did not start (here a KRaft
 * broker in its own directory, standing in for a cluster), writes nothing Kafka-related to its own data
 * directory, and keeps its streams, metrics and window state across a restart.
 */
@Tag("integration")
@Timeout(300)
@SecondNodeLane
class ExternalKafkaIT {
    @TempDir
    Path dir;

    @Test
    void sameEventPathAgainstAnExternalBroker() throws Exception {
        try (EmbeddedKafka broker = EmbeddedKafka.start(dir.resolve("broker"), 0);
                TestNode node = new TestNode(dir.resolve("node"), broker.bootstrapServers())) {
            try (Connection c = node.connect(); Statement s = c.createStatement()) {
                s.execute(WalkingSkeletonIT.CREATE_STREAM);
                s.execute(WalkingSkeletonIT.CREATE_METRIC);
                WalkingSkeletonIT.assertRow(s, "INSERT INTO payments VALUES (1, TIMESTAMP '2026-01-01 10:00:00', "
                        + "'c1', 'm1', 10.0) RETURNING *", 1, 10.0, 1);
                WalkingSkeletonIT.assertRow(s, "INSERT INTO payments VALUES (2, TIMESTAMP '2026-01-01 10:04:59', "
                        + "'c1', 'm2', 5.0) RETURNING *", 2, 15.0, 2);
            }
            org.junit.jupiter.api.Assertions.assertFalse(Files.exists(dir.resolve("node").resolve("kafka")),
                    "no embedded broker data when --kafka is given");
            node.restart();
            try (Connection c = node.connect(); Statement s = c.createStatement()) {
                WalkingSkeletonIT.assertRow(s, "INSERT INTO payments VALUES (3, TIMESTAMP '2026-01-01 10:05:00', "
                        + "'c1', 'm1', 1.0) RETURNING *", 3, 6.0, 2);
            }
        }
    }
    /**
     * A catalog record written by a version before NUMERIC stream columns were exact (no format header): its stream
     * comes back with those columns as DOUBLE, what its events hold; a stream made now keeps exact decimals, also
     * after a restart.
     */
    @Test
    void aStreamMadeBeforeExactNumericsKeepsItsNumericColumnsAsDoubles() throws Exception {
        try (EmbeddedKafka broker = EmbeddedKafka.start(dir.resolve("broker"), 0)) {
            new TestNode(dir.resolve("node"), broker.bootstrapServers()).close(); // the catalog topic
            try (KafkaProducer<byte[], byte[]> older = KafkaClients.producer(broker.bootstrapServers(), "older")) {
                older.send(new ProducerRecord<>(Topics.CATALOG, 0,
                        CatalogKey.stream("legacy").text().getBytes(StandardCharsets.UTF_8),
                        ("CREATE STREAM legacy (id BIGINT, ts TIMESTAMP, k VARCHAR, amount NUMERIC(10, 2)) WITH "
                                + "(event_id = 'id', partition_by = 'k')").getBytes(StandardCharsets.UTF_8))).get();
            }
            try (TestNode node = new TestNode(dir.resolve("node"), broker.bootstrapServers())) {
                try (Connection c = node.connect(); Statement s = c.createStatement()) {
                    s.execute("CREATE STREAM fresh (id BIGINT, ts TIMESTAMP, k VARCHAR, amount NUMERIC(10, 2)) WITH "
                            + "(event_id = 'id', partition_by = 'k')");
                    s.execute("CREATE METRIC ml AS SELECT SUM(amount) AS total FROM legacy GROUP BY k OVER SLIDING 1 "
                            + "HOUR");
                    s.execute("CREATE METRIC mf AS SELECT SUM(amount) AS total FROM fresh GROUP BY k OVER SLIDING 1 "
                            + "HOUR");
                    amounts(s, 1);
                }
                node.restart();
                try (Connection c = node.connect(); Statement s = c.createStatement()) {
                    amounts(s, 2);
                }
            }
        }
    }

    /** Event {@code id} of 1.005 into both streams: a double in the older one, 1.01 in the new one. */
    private static void amounts(Statement s, int id) throws Exception {
        try (ResultSet rs = s.executeQuery("SELECT name, columns FROM coilgun.streams ORDER BY name")) {
            assertTrue(rs.next());
            assertEquals("id BIGINT, ts TIMESTAMP, k VARCHAR, amount NUMERIC(10,2)", rs.getString(2));
            assertTrue(rs.next());
            assertEquals("id BIGINT, ts TIMESTAMP, k VARCHAR, amount DOUBLE", rs.getString(2));
        }
        try (ResultSet rs = s.executeQuery("INSERT INTO legacy VALUES (" + id + ", now(), 'k', 1.005) RETURNING *")) {
            assertTrue(rs.next());
            assertEquals(1.005 * id, rs.getDouble("ml_total"), 1e-12);
            assertEquals("float8", rs.getMetaData().getColumnTypeName(rs.findColumn("ml_total")));
        }
        try (ResultSet rs = s.executeQuery("INSERT INTO fresh VALUES (" + id + ", now(), 'k', 1.005) RETURNING *")) {
            assertTrue(rs.next());
            assertEquals(new BigDecimal("1.01").multiply(BigDecimal.valueOf(id)), rs.getBigDecimal("mf_total"));
        }
    }
}
