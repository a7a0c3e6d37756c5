package io.coilgun.planner.window;

import io.coilgun.planner.model.MetricDef;

/**
 * The per-task operator of one metric. For each accepted event the task plan calls {@link #accept}, then moves the
 * reservoir's iterators (which pass expiring events to the operators' subscriptions), then calls {@link #report}.
 */
public interface MetricOperator {
    MetricDef def();

    /** Takes the accepted event {@code values} (time {@code eventTime}, seq = Kafka offset) into its group. */
    void accept(Object[] values, long eventTime, long seq);

    /**
     * Writes the metric's values for the event last accepted, one per aggregation, into {@code out} from
     * {@code at}; {@code streamTime} is the task's stream time after that event.
     */
    void report(long streamTime, Object[] out, int at);

    /** The stream has a new schema version: decode events with it from now on. */
    void streamChanged(io.coilgun.planner.model.StreamDef stream);

    /** How far behind the stream time this operator reads the reservoir: what retention must keep. */
    long reach();

    /** Puts the operator's own position into the state store's pending batch. */
    void checkpoint();

    /** Stops reading the reservoir. */
    void close();
}
