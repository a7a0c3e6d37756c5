package io.coilgun.server.config;

import java.nio.file.Path;

/**
 * How a node runs. Defaults: pgwire on 127.0.0.1:5433, data under ./data, an embedded Kafka broker.
 *
 * @param kafka bootstrap servers of an external Kafka, or null to start the embedded broker
 * @param kafkaPort the embedded broker's client port (0: pick a free one)
 * @param processorUnits processor threads (default: number of cores)
 */
public record NodeConfig(String host, int port, Path dataDir, String kafka, int kafkaPort, String nodeId,
        int processorUnits, long kafkaConnectTimeoutMs) {

    public static final String DEFAULT_HOST = "127.0.0.1";
    public static final int DEFAULT_PORT = 5433;

    public static NodeConfig defaults() {
        return new NodeConfig(DEFAULT_HOST, DEFAULT_PORT, Path.of("data"), null, 0, "node-1",
                Math.max(1, Runtime.getRuntime().availableProcessors()), 15_000);
    }

    public boolean embeddedKafka() {
        return kafka == null || kafka.isBlank();
    }

    public NodeConfig withPort(int p) {
        return new NodeConfig(host, p, dataDir, kafka, kafkaPort, nodeId, processorUnits, kafkaConnectTimeoutMs);
    }

    public NodeConfig withDataDir(Path d) {
        return new NodeConfig(host, port, d, kafka, kafkaPort, nodeId, processorUnits, kafkaConnectTimeoutMs);
    }

    public NodeConfig withKafka(String k) {
        return new NodeConfig(host, port, dataDir, k, kafkaPort, nodeId, processorUnits, kafkaConnectTimeoutMs);
    }
}
