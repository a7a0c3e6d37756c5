package io.coilgun.planner.window;

import io.coilgun.planner.agg.Results;
import io.coilgun.planner.model.MetricDef;
import io.coilgun.planner.model.StreamDef;

/**
 * The per-task operator of one metric. For each accepted event the task plan calls {@link #accept}, then moves the
 * reservoir's iterators (which pass expiring events to the operators' subscriptions), then calls {@link #report}.
 */
public interface MetricOperator {
    MetricDef def();

    /**
     * Takes the accepted event (time {@code eventTime}, seq = Kafka offset), the one the task's shared operators hold
     * ({@link SharedOperators#arrived}), into its group.
     */
    void accept(long eventTime, long seq);

    /**
     * Writes the metric's values for the event last accepted, one per aggregation, into {@code out} from
     * {@code at}; {@code streamTime} is the task's stream time after that event.
     */
    void report(long streamTime, Results out, int at);

    /** The stream has a new schema version: decode events with it from now on. */
    void streamChanged(StreamDef stream);

    /** How far behind the stream time this operator reads the reservoir: what retention must keep. */
    long reach();

    /** Puts the operator's own position into the state store's pending batch. */
    void checkpoint();

    /** Stops reading the reservoir. */
    void close();

    /**
     * The metric's current values for one group as of {@code streamTime} (the task's stream time: a window ending at
     * S), one per aggregation into {@code out} from {@code at}. For SELECT; not on the per-event path.
     *
     * @return false when the metric never saw the group (then {@code out} is untouched)
     */
    boolean current(byte[] group, long streamTime, Object[] out, int at);

    /**
     * Visits up to {@code limit} groups in key order after {@code after} (null: from the first) with their current
     * values as of {@code streamTime}, written into {@code out} from 0 (reused between calls).
     *
     * @return the last group visited when there may be more, null when the scan is complete
     */
    byte[] scanCurrent(byte[] after, int limit, long streamTime, Object[] out, CurrentValues visitor);

    /** Receives a group key (see {@link io.coilgun.planner.event.GroupKeys}) and its values. */
    interface CurrentValues {
        void accept(byte[] group, Object[] values);
    }
}
