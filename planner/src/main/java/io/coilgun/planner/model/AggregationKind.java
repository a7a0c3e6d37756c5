package io.coilgun.planner.model;

/** The aggregation functions of docs/sql.md. */
public enum AggregationKind {
    COUNT_STAR, COUNT, SUM, AVG, STDDEV, STDDEV_POP, MIN, MAX, LAST, PREV, COUNT_DISTINCT
}
