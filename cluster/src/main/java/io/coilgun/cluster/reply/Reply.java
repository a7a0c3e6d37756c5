package io.coilgun.cluster.reply;

import java.util.Map;

/**
 * A task's answer for one event: its status, a message when it was not applied, and the values of the metrics
 * that run on that task, by metric name (one value per aggregation).
 *
 * @param source the partitioner topic of the task that answered (empty when not known): an event published to
 *     several topics gets one reply from each, and a task's reply may come twice (its new leader re-sends what its
 *     old one may not have sent)
 * @param followers a decider's accepted event: how many partitioners answer after it (-1: not said)
 */
public record Reply(long correlation, ReplyStatus status, String message, Map<String, Object[]> metrics,
        String source, int followers) {
    public Reply(long correlation, ReplyStatus status, String message, Map<String, Object[]> metrics,
            String source) {
        this(correlation, status, message, metrics, source, -1);
    }
}
