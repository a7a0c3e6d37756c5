package io.coilgun.tests;

import io.coilgun.server.CoilgunNode;
import io.coilgun.server.config.NodeConfig;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;

/**
 * A real Coilgun node for integration tests: embedded KRaft broker, RocksDB, Netty pgwire on an ephemeral
 * port of 127.0.0.1, data under a test directory. {@link #restart()} stops it cleanly and starts it again on
 * the same data.
 */
final class TestNode implements AutoCloseable {
    private final Path dataDir;
    private final String kafka;
    private final java.util.function.UnaryOperator<NodeConfig> configured;
    private CoilgunNode node;

    TestNode(Path dataDir) {
        this(dataDir, null);
    }

    /** A node using the Kafka at {@code kafka} (host:port), or its own embedded broker when null. */
    TestNode(Path dataDir, String kafka) {
        this(dataDir, kafka, c -> c);
    }

    /** A node whose configuration {@code configured} changes (e.g. a small bound of events in flight). */
    TestNode(Path dataDir, String kafka, java.util.function.UnaryOperator<NodeConfig> configured) {
        this.dataDir = dataDir;
        this.kafka = kafka;
        this.configured = configured;
        start();
    }

    private void start() {
        node = CoilgunNode.start(configured.apply(new NodeConfig(NodeConfig.DEFAULT_HOST, 0, dataDir, kafka, 0,
                "node-1", 2, 15_000)));
    }

    void restart() {
        node.close();
        start();
    }

    /** The node's Kafka (its embedded broker's host:port). */
    String bootstrap() {
        return node.bootstrapServers();
    }

    int port() {
        return node.port();
    }

    /** The port of the node's HTTP listener (/metrics, the status page, /health, /ready). */
    int httpPort() {
        return node.httpPort();
    }

    /** The number of open SUBSCRIBE statements on the node (its result feed's subscribers). */
    int subscriptions() {
        return node.feed().size();
    }

    /** Waits (up to 30 s) until the number of open SUBSCRIBE statements is what {@code wanted} accepts. */
    void awaitSubscriptions(java.util.function.IntPredicate wanted) throws InterruptedException {
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(30);
        while (!wanted.test(subscriptions())) {
            org.junit.jupiter.api.Assertions.assertTrue(System.nanoTime() < deadline,
                    "subscriptions now " + subscriptions());
            Thread.sleep(20);
        }
    }

    /** A pgjdbc connection with the driver's defaults (extended protocol, server-prepared statements). */
    Connection connect() throws SQLException {
        return connect("");
    }

    /** A pgjdbc connection with extra URL parameters, e.g. {@code preferQueryMode=simple&} (end each with &). */
    Connection connect(String extraParameters) throws SQLException {
        return DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + port() + "/coilgun?" + extraParameters
                + "user=tester&connectTimeout=10&socketTimeout=60");
    }

    @Override
    public void close() {
        node.close();
    }
}
