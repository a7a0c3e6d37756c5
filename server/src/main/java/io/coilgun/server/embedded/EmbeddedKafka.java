package io.coilgun.server.embedded;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Properties;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.metadata.storage.Formatter;
import org.apache.kafka.server.common.Feature;
import org.apache.kafka.server.common.MetadataVersion;

/**
 * A single-node Kafka broker in KRaft mode (combined broker and controller), run inside the Coilgun process,
 * storing under {@code <data>/kafka}. The storage is formatted on first start (cluster id kept in
 * meta.properties); later starts reuse it. Both listeners bind 127.0.0.1.
 *
 * <p>In-process keeps start-up to one JVM; the broker then shares the heap and GC with the node. Moving it to a
 * child process (for GC isolation under load) changes only this class.
 */
public final class EmbeddedKafka implements AutoCloseable {
    private static final String CONTROLLER = "CONTROLLER";

    private final KafkaRaftServer server;
    private final int port;

    private EmbeddedKafka(KafkaRaftServer server, int port) {
        this.server = server;
        this.port = port;
    }

    /**
     * Formats (if needed) and starts the broker.
     *
     * @param port the client port, or 0 to pick a free one
     */
    public static EmbeddedKafka start(Path dataDir, int port) {
        Path logDir = dataDir.resolve("kafka").toAbsolutePath();
        try {
            Files.createDirectories(logDir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create " + logDir, e);
        }
        int brokerPort = port == 0 ? freePort() : port;
        int controllerPort = freePort();
        Properties p = new Properties();
        p.put("process.roles", "broker,controller");
        p.put("node.id", "1");
        p.put("controller.quorum.voters", "1@127.0.0.1:" + controllerPort);
        p.put("listeners", "PLAINTEXT://127.0.0.1:" + brokerPort + "," + CONTROLLER + "://127.0.0.1:" + controllerPort);
        p.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + brokerPort);
        p.put("controller.listener.names", CONTROLLER);
        p.put("inter.broker.listener.name", "PLAINTEXT");
        p.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT," + CONTROLLER + ":PLAINTEXT");
        p.put("log.dirs", logDir.toString());
        p.put("metadata.log.dir", logDir.toString());
        p.put("num.partitions", "1");
        p.put("default.replication.factor", "1");
        p.put("offsets.topic.replication.factor", "1");
        p.put("offsets.topic.num.partitions", "4");
        p.put("transaction.state.log.replication.factor", "1");
        p.put("transaction.state.log.min.isr", "1");
        p.put("transaction.state.log.num.partitions", "4");
        p.put("share.coordinator.state.topic.replication.factor", "1");
        p.put("share.coordinator.state.topic.min.isr", "1");
        p.put("group.initial.rebalance.delay.ms", "0");
        p.put("auto.create.topics.enable", "false");
        p.put("num.network.threads", "2");
        p.put("num.io.threads", "2");
        p.put("background.threads", "2");
        p.put("log.cleaner.threads", "1");
        p.put("log.cleaner.dedupe.buffer.size", String.valueOf(8L << 20));
        p.put("num.recovery.threads.per.data.dir", "1");
        p.put("log.segment.bytes", String.valueOf(64 << 20));

        if (!Files.exists(logDir.resolve("meta.properties"))) {
            format(logDir);
        }
        KafkaRaftServer server = new KafkaRaftServer(KafkaConfig.fromProps(p, false), Time.SYSTEM);
        server.startup();
        return new EmbeddedKafka(server, brokerPort);
    }

    private static void format(Path logDir) {
        try {
            new Formatter()
                    .setPrintStream(new PrintStream(OutputStream.nullOutputStream()))
                    .setSupportedFeatures(Feature.PRODUCTION_FEATURES)
                    .setClusterId(Uuid.randomUuid().toString())
                    .setNodeId(1)
                    .setControllerListenerName(CONTROLLER)
                    .setMetadataLogDirectory(logDir.toString())
                    .setDirectories(List.of(logDir.toString()))
                    .setReleaseVersion(MetadataVersion.latestProduction())
                    .run();
        } catch (Exception e) {
            throw new IllegalStateException("cannot format Kafka storage in " + logDir + ": " + e.getMessage(), e);
        }
    }

    private static int freePort() {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free port on 127.0.0.1", e);
        }
    }

    public String bootstrapServers() {
        return "127.0.0.1:" + port;
    }

    @Override
    public void close() {
        server.shutdown();
        server.awaitShutdown();
    }
}
