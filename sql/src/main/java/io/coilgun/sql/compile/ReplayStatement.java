package io.coilgun.sql.compile;

import io.coilgun.planner.model.MetricDef;
import io.coilgun.planner.model.StreamDef;

/**
 * {@code REPLAY …}: {@link #metric} computed over each task's stored history, events with
 * {@code fromMicros <= t <= toMicros}, one row per event: every column of the stream, then the metric's
 * aggregations named by their aliases ({@link #shape}: the columns, as a subscription to such a metric has them).
 */
public record ReplayStatement(StreamDef stream, MetricDef metric, long fromMicros, long toMicros,
        SubscribeStatement shape) implements CompiledStatement {
}
