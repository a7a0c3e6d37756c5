package io.coilgun.server.config;

import java.nio.file.Path;

/**
 * How a node runs. Defaults: pgwire on 127.0.0.1:5433, data under ./data, an embedded Kafka broker.
 *
 * @param kafka bootstrap servers of an external Kafka, or null to start the embedded broker
 * @param kafkaPort the embedded broker's client port (0: pick a free one)
 * @param processorUnits processor threads (default: number of cores)
 * @param chunkCacheChunks decoded reservoir chunks cached per processor unit, at most (default 256)
 * @param chunkCacheMb ... and at most this many MiB of them (default 64)
 * @param security pgwire authentication and TLS (default: trust, no TLS)
 * @param peerPort the port of the snapshot server peers copy tasks from (default 0: any free port, told to the
 *     peers through Kafka); it listens on {@code host}
 * @param recoveryMbPerSecond the rate at which the node sends task data to peers, MiB/s, fractions allowed (default 50; 0: no limit)
 * @param replicaRestoreSeconds how long the copies of a node that left or drains are awaited back before other nodes
 *     get new ones (default 60; 0: not at all)
 * @param httpPort the port of the HTTP listener for operators (/metrics, the status page, /health, /ready) on
 *     {@code host}: {@link #HTTP_PORT_DEFAULT} for the pgwire port + 1000 (any free port when pgwire's is 0), 0 for
 *     any free port, {@link #HTTP_OFF} for none
 * @param maxInflightEvents the events the node has published and not yet answered, at most: past it statements wait
 *     for room, then fail with 53000 (default {@link #DEFAULT_MAX_INFLIGHT_EVENTS})
 */
public record NodeConfig(String host, int port, Path dataDir, String kafka, int kafkaPort, String nodeId,
        int processorUnits, long kafkaConnectTimeoutMs, int chunkCacheChunks, long chunkCacheMb,
        SecurityConfig security, int peerPort, double recoveryMbPerSecond, double replicaRestoreSeconds,
        int httpPort, int maxInflightEvents) {

    public static final int HTTP_PORT_DEFAULT = -1;
    /** Events a node has published and not yet answered, at most, by default. */
    public static final int DEFAULT_MAX_INFLIGHT_EVENTS = 10_000;

    public NodeConfig(String host, int port, Path dataDir, String kafka, int kafkaPort, String nodeId,
            int processorUnits, long kafkaConnectTimeoutMs, int chunkCacheChunks, long chunkCacheMb,
            SecurityConfig security, int peerPort, double recoveryMbPerSecond, double replicaRestoreSeconds,
            int httpPort) {
        this(host, port, dataDir, kafka, kafkaPort, nodeId, processorUnits, kafkaConnectTimeoutMs, chunkCacheChunks,
                chunkCacheMb, security, peerPort, recoveryMbPerSecond, replicaRestoreSeconds, httpPort,
                DEFAULT_MAX_INFLIGHT_EVENTS);
    }
    public static final int HTTP_OFF = -2;

    public NodeConfig(String host, int port, Path dataDir, String kafka, int kafkaPort, String nodeId,
            int processorUnits, long kafkaConnectTimeoutMs, int chunkCacheChunks, long chunkCacheMb,
            SecurityConfig security, int peerPort, double recoveryMbPerSecond, double replicaRestoreSeconds) {
        this(host, port, dataDir, kafka, kafkaPort, nodeId, processorUnits, kafkaConnectTimeoutMs, chunkCacheChunks,
                chunkCacheMb, security, peerPort, recoveryMbPerSecond, replicaRestoreSeconds, HTTP_PORT_DEFAULT);
    }

    /** The HTTP listener's port to bind: 0 for any free one, -1 for none. */
    public int httpBindPort() {
        if (httpPort == HTTP_OFF) {
            return -1;
        }
        if (httpPort == HTTP_PORT_DEFAULT) {
            return port == 0 ? 0 : port + 1000;
        }
        return httpPort;
    }

    public NodeConfig withHttpPort(int p) {
        return new NodeConfig(host, port, dataDir, kafka, kafkaPort, nodeId, processorUnits, kafkaConnectTimeoutMs,
                chunkCacheChunks, chunkCacheMb, security, peerPort, recoveryMbPerSecond, replicaRestoreSeconds, p,
                maxInflightEvents);
    }

    public static final long DEFAULT_RECOVERY_MB_PER_SECOND = 50;
    public static final long DEFAULT_REPLICA_RESTORE_SECONDS = 60;

    public NodeConfig(String host, int port, Path dataDir, String kafka, int kafkaPort, String nodeId,
            int processorUnits, long kafkaConnectTimeoutMs, int chunkCacheChunks, long chunkCacheMb,
            SecurityConfig security) {
        this(host, port, dataDir, kafka, kafkaPort, nodeId, processorUnits, kafkaConnectTimeoutMs, chunkCacheChunks,
                chunkCacheMb, security, 0, DEFAULT_RECOVERY_MB_PER_SECOND, DEFAULT_REPLICA_RESTORE_SECONDS);
    }

    public static final int DEFAULT_CHUNK_CACHE_CHUNKS = 256;
    public static final long DEFAULT_CHUNK_CACHE_MB = 64;

    public NodeConfig(String host, int port, Path dataDir, String kafka, int kafkaPort, String nodeId,
            int processorUnits, long kafkaConnectTimeoutMs) {
        this(host, port, dataDir, kafka, kafkaPort, nodeId, processorUnits, kafkaConnectTimeoutMs,
                DEFAULT_CHUNK_CACHE_CHUNKS, DEFAULT_CHUNK_CACHE_MB);
    }

    public NodeConfig(String host, int port, Path dataDir, String kafka, int kafkaPort, String nodeId,
            int processorUnits, long kafkaConnectTimeoutMs, int chunkCacheChunks, long chunkCacheMb) {
        this(host, port, dataDir, kafka, kafkaPort, nodeId, processorUnits, kafkaConnectTimeoutMs, chunkCacheChunks,
                chunkCacheMb, SecurityConfig.defaults());
    }

    public static final String DEFAULT_HOST = "127.0.0.1";
    public static final int DEFAULT_PORT = 5433;

    public static NodeConfig defaults() {
        return new NodeConfig(DEFAULT_HOST, DEFAULT_PORT, Path.of("data"), null, 0, "node-1",
                Math.max(1, Runtime.getRuntime().availableProcessors()), 15_000);
    }

    public NodeConfig withSecurity(SecurityConfig s) {
        return new NodeConfig(host, port, dataDir, kafka, kafkaPort, nodeId, processorUnits, kafkaConnectTimeoutMs,
                chunkCacheChunks, chunkCacheMb, s, peerPort, recoveryMbPerSecond, replicaRestoreSeconds, httpPort,
                maxInflightEvents);
    }

    public boolean embeddedKafka() {
        return kafka == null || kafka.isBlank();
    }

    public NodeConfig withPort(int p) {
        return new NodeConfig(host, p, dataDir, kafka, kafkaPort, nodeId, processorUnits, kafkaConnectTimeoutMs,
                chunkCacheChunks, chunkCacheMb, security, peerPort, recoveryMbPerSecond, replicaRestoreSeconds, httpPort,
                maxInflightEvents);
    }

    public NodeConfig withDataDir(Path d) {
        return new NodeConfig(host, port, d, kafka, kafkaPort, nodeId, processorUnits, kafkaConnectTimeoutMs,
                chunkCacheChunks, chunkCacheMb, security, peerPort, recoveryMbPerSecond, replicaRestoreSeconds, httpPort,
                maxInflightEvents);
    }

    public NodeConfig withKafka(String k) {
        return new NodeConfig(host, port, dataDir, k, kafkaPort, nodeId, processorUnits, kafkaConnectTimeoutMs,
                chunkCacheChunks, chunkCacheMb, security, peerPort, recoveryMbPerSecond, replicaRestoreSeconds, httpPort,
                maxInflightEvents);
    }

    public NodeConfig withPeerRecovery(int peer, double mbPerSecond) {
        return new NodeConfig(host, port, dataDir, kafka, kafkaPort, nodeId, processorUnits, kafkaConnectTimeoutMs,
                chunkCacheChunks, chunkCacheMb, security, peer, mbPerSecond, replicaRestoreSeconds, httpPort,
                maxInflightEvents);
    }

    public NodeConfig withReplicaRestore(double seconds) {
        return new NodeConfig(host, port, dataDir, kafka, kafkaPort, nodeId, processorUnits, kafkaConnectTimeoutMs,
                chunkCacheChunks, chunkCacheMb, security, peerPort, recoveryMbPerSecond, seconds, httpPort,
                maxInflightEvents);
    }

    /** The bound of the node's events in flight (statements wait for room, then fail with 53000). */
    public NodeConfig withMaxInflightEvents(int n) {
        return new NodeConfig(host, port, dataDir, kafka, kafkaPort, nodeId, processorUnits, kafkaConnectTimeoutMs,
                chunkCacheChunks, chunkCacheMb, security, peerPort, recoveryMbPerSecond, replicaRestoreSeconds, httpPort,
                n);
    }
}
