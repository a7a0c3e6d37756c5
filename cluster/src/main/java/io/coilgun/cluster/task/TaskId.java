package io.coilgun.cluster.task;

import io.coilgun.cluster.kafka.Topics;
import io.coilgun.planner.model.StreamDef;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.TopicPartition;

/** A task: one partition of one partitioner topic. Its string form names its data directory. */
public record TaskId(String topic, int partition) {
    public static TaskId of(TopicPartition tp) {
        return new TaskId(tp.topic(), tp.partition());
    }

    /** The task of partition {@code partition} of the stream's partitioner topic of {@code field}. */
    public static TaskId of(StreamDef stream, String field, int partition) {
        return new TaskId(Topics.partitioner(stream.name(), field), partition);
    }

    /** Every task of the stream's partitioner topic of {@code field}, by partition. */
    public static List<TaskId> allOf(StreamDef stream, String field) {
        List<TaskId> tasks = new ArrayList<>(stream.partitions(field));
        for (int p = 0; p < stream.partitions(field); p++) {
            tasks.add(of(stream, field, p));
        }
        return tasks;
    }

    /** The task of a stream's decision log (a stream partitioned by several fields), or null. */
    public static TaskId decider(StreamDef stream) {
        return stream.decided() ? new TaskId(Topics.decider(stream.name()), 0) : null;
    }

    /**
     * Every task of the stream: its decider's (when it has one), then each partitioner topic's (in {@code
     * partition_by} order), each partition.
     */
    public static List<TaskId> all(StreamDef stream) {
        List<TaskId> tasks = new ArrayList<>();
        if (decider(stream) != null) {
            tasks.add(decider(stream));
        }
        for (String field : stream.partitionBy()) {
            tasks.addAll(allOf(stream, field));
        }
        return tasks;
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
