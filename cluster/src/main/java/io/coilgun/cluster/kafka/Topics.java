package io.coilgun.cluster.kafka;

/** Every Kafka topic name Coilgun uses, derived in this one place. */
public final class Topics {
    public static final String PREFIX = "coilgun.";
    /** The durable catalog: one record per stream or metric, keyed by kind and name, the value its DDL text. */
    public static final String CATALOG = PREFIX + "catalog";

    private Topics() {
    }

    /** Each node's status (address, catalog applied, its tasks), keyed by node id; compacted. */
    public static final String NODES = PREFIX + "nodes";
    /** The consumer group of every processor unit's active consumer in the cluster. */
    public static final String TASK_GROUP = PREFIX + "tasks";
    private static final String STREAM = PREFIX + "stream.";

    /** Whether a topic is a stream's partitioner topic (its partitions are tasks). */
    public static boolean isPartitioner(String topic) {
        return topic.startsWith(STREAM);
    }

    /**
     * The decision log of a stream partitioned by several fields: one partition, whose task decides each event once
     * (duplicate, late, dropped, accepted at its final time) and forwards the accepted ones to the partitioner topics.
     * Named among the stream's partitioner topics (it goes with them), under a name no field has.
     */
    public static String decider(String stream) {
        return STREAM + stream + "." + DECIDER;
    }

    /** Whether a topic is a stream's decision log ({@link #decider}). */
    public static boolean isDecider(String topic) {
        return topic.startsWith(STREAM) && topic.endsWith("." + DECIDER);
    }

    private static final String DECIDER = "-decide";

    /**
     * Where the tasks of a stream partitioned by one field hand their history to the stream's new decider when it
     * gains a partitioner (one partition per task), under a name no field has; deleted once the decider took it.
     */
    public static String seed(String stream) {
        return STREAM + stream + ".-seed";
    }

    /** The partitioner topic of a stream's top-level group-by field: events keyed by that field. */
    public static String partitioner(String stream, String field) {
        return STREAM + stream + "." + field;
    }

    /** Where the task processors send a node's per-event replies. */
    public static String replies(String nodeId) {
        return PREFIX + "replies." + nodeId;
    }

    /** A node's inbox of requests and answers from other nodes (reads over metric state, subscriptions). */
    public static String peer(String nodeId) {
        return PREFIX + "peer." + nodeId;
    }
}
