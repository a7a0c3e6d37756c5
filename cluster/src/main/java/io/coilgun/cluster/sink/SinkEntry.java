package io.coilgun.cluster.sink;

/**
 * One sink record of one event, not yet known to be in its topic.
 *
 * @param offset the event's offset in its task's partition (what the sink's group commits past)
 * @param group the sink's consumer group ({@link io.coilgun.planner.model.SinkDef#group()})
 * @param sink the sink's name (its meters)
 * @param topic the topic the record goes to
 * @param key the record's key (the GROUP BY value), or null
 * @param value the record's value (the JSON object)
 */
record SinkEntry(long offset, String group, String sink, String topic, byte[] key, byte[] value) {
}
