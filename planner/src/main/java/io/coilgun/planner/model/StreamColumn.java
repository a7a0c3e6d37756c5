package io.coilgun.planner.model;

/** One typed column of a stream. */
public record StreamColumn(String name, ColumnType type, boolean notNull) {
}
