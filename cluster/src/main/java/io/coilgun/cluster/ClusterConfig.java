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
 */
public record ClusterConfig(String nodeId, String bootstrapServers, Path dataDir, int processorUnits,
        long connectTimeoutMs, long replyTimeoutMs, int chunkCacheChunks, long chunkCacheBytes) {

    public static final int DEFAULT_CHUNK_CACHE_CHUNKS = 256;
    public static final long DEFAULT_CHUNK_CACHE_BYTES = 64L << 20;

    public ClusterConfig(String nodeId, String bootstrapServers, Path dataDir, int processorUnits,
            long connectTimeoutMs, long replyTimeoutMs) {
        this(nodeId, bootstrapServers, dataDir, processorUnits, connectTimeoutMs, replyTimeoutMs,
                DEFAULT_CHUNK_CACHE_CHUNKS, DEFAULT_CHUNK_CACHE_BYTES);
    }
}
