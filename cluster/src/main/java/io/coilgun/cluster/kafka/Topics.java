package io.coilgun.cluster.kafka;

/** Every Kafka topic name Coilgun uses, derived in this one place. */
public final class Topics {
    public static final String PREFIX = "coilgun.";
    /** The durable catalog: one record per stream or metric, keyed by kind and name, the value its DDL text. */
    public static final String CATALOG = PREFIX + "catalog";

    private Topics() {
    }

    /** The partitioner topic of a stream's top-level group-by field: events keyed by that field. */
    /** The consumer group of every processor unit's active consumer in the cluster. */
    public static final String TASK_GROUP = PREFIX + "tasks";

    public static String partitioner(String stream, String field) {
        return PREFIX + "stream." + stream + "." + field;
    }

    /** Where the task processors send a node's per-event replies. */
    public static String replies(String nodeId) {
        return PREFIX + "replies." + nodeId;
    }
}
