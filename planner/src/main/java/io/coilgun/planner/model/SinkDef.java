package io.coilgun.planner.model;

/**
 * One CREATE SINK: every event a metric (or every metric of a stream) computes values for becomes a record of a Kafka
 * topic, with the event's id and the values as of that event: what {@code INSERT … RETURNING} gives the inserter.
 *
 * @param name the sink's name (in the namespace of streams and metrics)
 * @param from the metric, or the stream, whose values it writes
 * @param stream the stream of those events
 * @param wholeStream whether {@code from} is a stream: then every metric of each of its partitionings is written
 * @param topic the Kafka topic the records go to
 * @param ddl the CREATE SINK text (what the durable catalog stores)
 * @param id the offset of its catalog record: tells apart sinks of one name created one after another (the consumer
 *     group its progress is committed to is {@link #group()}); -1 before it is written
 */
public record SinkDef(String name, String from, String stream, boolean wholeStream, String topic, String ddl,
        long id) {
    /** The sink as its catalog record at {@code offset} made it. */
    public SinkDef withId(long offset) {
        return new SinkDef(name, from, stream, wholeStream, topic, ddl, offset);
    }

    /**
     * The consumer group whose committed offset of a task's partition says through which event of that task the
     * sink's records are in the topic (committed with them, in one Kafka transaction).
     */
    public String group() {
        return "coilgun.sink." + name + "." + id;
    }

    /** Whether a task running {@code metric} writes records for this sink. */
    public boolean reads(MetricDef metric) {
        return wholeStream ? metric.stream().equals(stream) : metric.name().equals(from);
    }
}
