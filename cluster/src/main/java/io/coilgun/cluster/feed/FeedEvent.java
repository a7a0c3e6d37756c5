package io.coilgun.cluster.feed;

import io.coilgun.planner.model.MetricDef;
import java.util.List;

/**
 * One event a task applied, with every metric value the task computed for it: what INSERT … RETURNING * reports,
 * handed to subscribers. The arrays are copies the task no longer touches.
 *
 * @param topic the partitioner topic of the task that applied it
 * @param partition the task's partition
 * @param offset the event's offset in that partition: with {@code partition}, what a subscriber keeps an event
 *     by once, whichever copy of the task it came from
 * @param active whether the copy that applied it leads the task (replicas feed too, so that a failover loses
 *     nothing: {@link FeedSubscriber#poll})
 * @param assignedId the id the front end assigned (streams without an event_id column)
 * @param values the event's column values, as the task decoded them (timestamps in microseconds)
 * @param metrics the task's metrics, in the order of {@code results}
 * @param results each aggregation's value of each metric (Long, Double or null)
 */
public record FeedEvent(String topic, int partition, long offset, boolean active, long assignedId, Object[] values,
        List<MetricDef> metrics, Object[] results) {
}
