package io.coilgun.cluster.reply;

import java.util.Map;

/**
 * A task's answer for one event: its status, a message when it was not applied, and the values of the metrics
 * that run on that task, by metric name (one value per aggregation).
 */
public record Reply(long correlation, ReplyStatus status, String message, Map<String, Object[]> metrics) {
}
