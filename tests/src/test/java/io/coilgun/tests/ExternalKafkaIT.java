package io.coilgun.tests;

import io.coilgun.server.embedded.EmbeddedKafka;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
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
}
