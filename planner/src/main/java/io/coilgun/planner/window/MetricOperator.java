package io.coilgun.planner.window;

import io.coilgun.planner.model.MetricDef;

/** The per-task operator of one metric: it takes each accepted event and reports the metric's values for it. */
public interface MetricOperator {
    MetricDef def();

    /**
     * Takes event {@code values} (time {@code eventTime}, reservoir sequence {@code seq}) after the task's stream
     * time became {@code streamTime}, and writes one value per aggregation into {@code out} from {@code at}.
     */
    void onEvent(Object[] values, long eventTime, long seq, long streamTime, Object[] out, int at);

    /** Puts the operator's own position (its tails) into the state store's pending batch. */
    void checkpoint();
}
