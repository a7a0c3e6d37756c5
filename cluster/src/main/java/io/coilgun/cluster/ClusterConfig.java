package io.coilgun.cluster;

import java.nio.file.Path;

/**
 * What the cluster layer of a node needs.
 *
 * @param nodeId names this node's reply topic; stable across restarts
 * @param dataDir where task data (reservoirs, state stores) lives
 * @param processorUnits processor threads
 * @param chunkCacheChunks decoded reservoir chunks each processor unit keeps in memory, at most
 * @param chunkCacheBytes ... and at most this many bytes of them
 * @param peerHost the address the node's snapshot server listens on, which peers copy tasks from (peer recovery)
 * @param peerPort its port; 0 for any free one (the peers learn it from the node's status on Kafka)
 * @param recoveryBytesPerSecond the rate at which the node sends task data to peers, all transfers together; 0 for
 *     no limit
 * @param replicaRestoreDelayMs how long the copies of a node that left or drains are awaited back before other
 *     nodes get new ones (when this node leads the group); 0 for not at all
 * @param peerSecurity TLS and the cluster secret of the snapshot server and of the copies from peers
 */
public record ClusterConfig(String nodeId, String bootstrapServers, Path dataDir, int processorUnits,
        long connectTimeoutMs, long replyTimeoutMs, int chunkCacheChunks, long chunkCacheBytes, String peerHost,
        int peerPort, long recoveryBytesPerSecond, long replicaRestoreDelayMs,
        io.coilgun.cluster.recovery.PeerSecurity peerSecurity) {

    /** A minute, as Elasticsearch waits for a departed node's shards: enough for a restart, short for a loss. */
    public static final long DEFAULT_REPLICA_RESTORE_DELAY_MS = 60_000;

    public static final int DEFAULT_CHUNK_CACHE_CHUNKS = 256;
    public static final long DEFAULT_CHUNK_CACHE_BYTES = 64L << 20;
    /** 50 MiB/s: a copy of 10 GiB takes under 4 minutes and leaves a disk and a 1 Gbit/s link most of their room. */
    public static final long DEFAULT_RECOVERY_BYTES_PER_SECOND = 50L << 20;

    public ClusterConfig(String nodeId, String bootstrapServers, Path dataDir, int processorUnits,
            long connectTimeoutMs, long replyTimeoutMs, int chunkCacheChunks, long chunkCacheBytes, String peerHost,
            int peerPort, long recoveryBytesPerSecond, long replicaRestoreDelayMs) {
        this(nodeId, bootstrapServers, dataDir, processorUnits, connectTimeoutMs, replyTimeoutMs, chunkCacheChunks,
                chunkCacheBytes, peerHost, peerPort, recoveryBytesPerSecond, replicaRestoreDelayMs,
                io.coilgun.cluster.recovery.PeerSecurity.NONE);
    }

    /** The same, its peers' transfers protected as {@code security} says. */
    public ClusterConfig withPeerSecurity(io.coilgun.cluster.recovery.PeerSecurity security) {
        return new ClusterConfig(nodeId, bootstrapServers, dataDir, processorUnits, connectTimeoutMs, replyTimeoutMs,
                chunkCacheChunks, chunkCacheBytes, peerHost, peerPort, recoveryBytesPerSecond, replicaRestoreDelayMs,
                security);
    }

    public ClusterConfig(String nodeId, String bootstrapServers, Path dataDir, int processorUnits,
            long connectTimeoutMs, long replyTimeoutMs) {
        this(nodeId, bootstrapServers, dataDir, processorUnits, connectTimeoutMs, replyTimeoutMs,
                DEFAULT_CHUNK_CACHE_CHUNKS, DEFAULT_CHUNK_CACHE_BYTES, "127.0.0.1", 0,
                DEFAULT_RECOVERY_BYTES_PER_SECOND, DEFAULT_REPLICA_RESTORE_DELAY_MS);
    }
}
