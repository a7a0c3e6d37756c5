package io.coilgun.cluster;

import java.nio.file.Path;

/**
 * What the cluster layer of a node needs.
 *
 * @param nodeId names this node's reply topic; stable across restarts
 * @param dataDir where task data (reservoirs, state stores) lives
 * @param processorUnits processor threads
 */
public record ClusterConfig(String nodeId, String bootstrapServers, Path dataDir, int processorUnits,
        long connectTimeoutMs, long replyTimeoutMs) {
}
