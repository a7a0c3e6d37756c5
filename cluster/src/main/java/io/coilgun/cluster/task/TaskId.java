package io.coilgun.cluster.task;

import org.apache.kafka.common.TopicPartition;

/** A task: one partition of one partitioner topic. Its string form names its data directory. */
public record TaskId(String topic, int partition) {
    public static TaskId of(TopicPartition tp) {
        return new TaskId(tp.topic(), tp.partition());
    }

    public TopicPartition topicPartition() {
        return new TopicPartition(topic, partition);
    }

    @Override
    public String toString() {
        return topic + "-" + partition;
    }

    public static TaskId parse(String s) {
        int dash = s.lastIndexOf('-');
        return new TaskId(s.substring(0, dash), Integer.parseInt(s.substring(dash + 1)));
    }
}
