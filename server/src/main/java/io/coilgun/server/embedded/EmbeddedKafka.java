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
    private static final String LOOPBACK = "127.0.0.1";

    private final KafkaRaftServer server;
    private final String host;
    private final int port;

    private EmbeddedKafka(KafkaRaftServer server, String host, int port) {
        this.server = server;
        this.host = host;
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
        int brokerPort = port == 0 ? freePort(-1) : port;
        int controllerPort = freePort(brokerPort);
        Properties p = config(LOOPBACK, 1, brokerPort, controllerPort, "1@127.0.0.1:" + controllerPort, logDir, 1,
                BrokerSecurity.none());
        if (!Files.exists(logDir.resolve("meta.properties"))) {
            format(logDir, 1, Uuid.randomUuid().toString(), BrokerSecurity.none());
        }
        KafkaRaftServer server = new KafkaRaftServer(KafkaConfig.fromProps(p, false), Time.SYSTEM);
        server.startup();
        return new EmbeddedKafka(server, LOOPBACK, brokerPort);
    }

    /**
     * One member of a KRaft cluster of {@code brokers} nodes, each broker and controller (combined mode), on
     * {@code host} (127.0.0.1, or a test's private address): node {@code id} (1-based) listens on
     * {@code basePort + id - 1} for clients and
     * {@code basePort + 100 + id - 1} for the controller quorum. Topics get {@code min(3, brokers)} replicas and, with
     * three brokers or more, {@code min.insync.replicas = 2}: an acknowledged write survives one broker's loss.
     *
     * @param clusterId the same for every member (the launcher picks it once)
     */
    public static EmbeddedKafka startMember(Path logDir, String host, int id, int brokers, int basePort,
            String clusterId) {
        return startMember(logDir, host, id, brokers, basePort, clusterId, BrokerSecurity.none());
    }

    /**
     * As {@link #startMember(Path, String, int, int, int, String)}, its clients authenticated as {@code security}
     * says.
     */
    public static EmbeddedKafka startMember(Path logDir, String host, int id, int brokers, int basePort,
            String clusterId, BrokerSecurity security) {
        try {
            Files.createDirectories(logDir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create " + logDir, e);
        }
        StringBuilder voters = new StringBuilder();
        for (int n = 1; n <= brokers; n++) {
            voters.append(n == 1 ? "" : ",").append(n).append('@').append(host).append(':')
                    .append(basePort + 100 + n - 1);
        }
        int brokerPort = basePort + id - 1;
        Properties p = config(host, id, brokerPort, basePort + 100 + id - 1, voters.toString(),
                logDir.toAbsolutePath(), brokers, security);
        if (!Files.exists(logDir.resolve("meta.properties"))) {
            format(logDir.toAbsolutePath(), id, clusterId, security);
        }
        KafkaRaftServer server = new KafkaRaftServer(KafkaConfig.fromProps(p, false), Time.SYSTEM);
        server.startup();
        return new EmbeddedKafka(server, host, brokerPort);
    }

    /** A combined broker and controller's settings, small thread pools (a laptop or a test machine). */
    private static Properties config(String host, int id, int brokerPort, int controllerPort, String voters,
            Path logDir, int brokers, BrokerSecurity security) {
        String listener = security.protocol();
        String replication = String.valueOf(Math.min(3, brokers));
        String minIsr = brokers >= 3 ? "2" : "1";
        Properties p = new Properties();
        p.put("process.roles", "broker,controller");
        p.put("node.id", String.valueOf(id));
        p.put("controller.quorum.voters", voters);
        p.put("listeners", listener + "://" + host + ":" + brokerPort + "," + CONTROLLER + "://" + host + ":"
                + controllerPort);
        p.put("advertised.listeners", listener + "://" + host + ":" + brokerPort);
        p.put("controller.listener.names", CONTROLLER);
        p.put("inter.broker.listener.name", listener);
        p.put("listener.security.protocol.map", listener + ":" + listener + "," + CONTROLLER + ":PLAINTEXT");
        security.configure(p);
        p.put("log.dirs", logDir.toString());
        p.put("metadata.log.dir", logDir.toString());
        p.put("num.partitions", "1");
        p.put("default.replication.factor", replication);
        p.put("min.insync.replicas", minIsr);
        p.put("offsets.topic.replication.factor", replication);
        p.put("offsets.topic.num.partitions", "4");
        p.put("transaction.state.log.replication.factor", replication);
        p.put("transaction.state.log.min.isr", minIsr);
        p.put("transaction.state.log.num.partitions", "4");
        p.put("share.coordinator.state.topic.replication.factor", replication);
        p.put("share.coordinator.state.topic.min.isr", minIsr);
        p.put("group.initial.rebalance.delay.ms", "0");
        // a node's death is noticed after its units' session timeout: Coilgun's nodes ask for 1 s (Kafka's floor is 6)
        p.put("group.min.session.timeout.ms", "500");
        // a broker that died is fenced (its partitions led elsewhere) after 3 s rather than Kafka's 9
        p.put("broker.session.timeout.ms", "3000");
        p.put("broker.heartbeat.interval.ms", "500");
        p.put("auto.create.topics.enable", "false");
        p.put("num.network.threads", "2");
        p.put("num.io.threads", "2");
        p.put("background.threads", "2");
        p.put("log.cleaner.threads", "1");
        p.put("log.cleaner.dedupe.buffer.size", String.valueOf(8L << 20));
        p.put("num.recovery.threads.per.data.dir", "1");
        p.put("log.segment.bytes", String.valueOf(64 << 20));

        return p;
    }

    private static void format(Path logDir, int id, String clusterId, BrokerSecurity security) {
        try {
            new Formatter()
                    .setScramArguments(security.formatArguments())
                    .setPrintStream(new PrintStream(OutputStream.nullOutputStream()))
                    .setSupportedFeatures(Feature.PRODUCTION_FEATURES)
                    .setClusterId(clusterId)
                    .setNodeId(id)
                    .setControllerListenerName(CONTROLLER)
                    .setMetadataLogDirectory(logDir.toString())
                    .setDirectories(List.of(logDir.toString()))
                    .setReleaseVersion(MetadataVersion.latestProduction())
                    .run();
        } catch (Exception e) {
            throw new IllegalStateException("cannot format Kafka storage in " + logDir + ": " + e.getMessage(), e);
        }
    }

    /**
     * A port free on 127.0.0.1 now, other than {@code taken}, below the ephemeral range (Linux hands out 32768 and up
     * to outgoing connections): a port probed free there could be taken by some client's socket before the broker
     * binds it (seen in CI: a node restarted on its data failed with "Address already in use"). Falls back to an
     * ephemeral one when none below is free. The OS may also hand the same ephemeral port out twice in a row once
     * the first probe closed it (seen in CI: broker and controller on one port, refused by Kafka).
     */
    private static int freePort(int taken) {
        java.util.concurrent.ThreadLocalRandom random = java.util.concurrent.ThreadLocalRandom.current();
        for (int attempt = 0; attempt < 50; attempt++) {
            int port = random.nextInt(20_000, 32_000);
            if (port != taken && free(port)) {
                return port;
            }
        }
        for (int attempt = 0; attempt < 20; attempt++) {
            try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                if (s.getLocalPort() != taken) {
                    return s.getLocalPort();
                }
            } catch (IOException e) {
                throw new UncheckedIOException("no free port on 127.0.0.1", e);
            }
        }
        throw new IllegalStateException("no free port on 127.0.0.1 other than " + taken);
    }

    private static boolean free(int port) {
        try (ServerSocket s = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    public String bootstrapServers() {
        return host + ":" + port;
    }

    @Override
    public void close() {
        server.shutdown();
        server.awaitShutdown();
    }
}
