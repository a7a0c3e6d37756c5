package io.coilgun.planner.model;

/**
 * One typed column of a stream. A NUMERIC column has Postgres' type modifier: {@code NUMERIC(precision, scale)}
 * keeps every value at that scale, {@code NUMERIC} without one ({@code precision} and {@code scale} -1) keeps each
 * value's own scale; other types have -1 for both.
 */
public record StreamColumn(String name, ColumnType type, boolean notNull, int precision, int scale) {
    public StreamColumn(String name, ColumnType type, boolean notNull) {
        this(name, type, notNull, -1, -1);
    }

    /** Whether this is a NUMERIC column whose values keep their own scale (no precision declared). */
    public boolean unconstrained() {
        return type == ColumnType.NUMERIC && precision < 0;
    }

    /** The type as a statement writes it: {@code NUMERIC(12,2)}, {@code NUMERIC}, {@code VARCHAR}, … */
    public String typeName() {
        return type == ColumnType.NUMERIC && precision >= 0 ? "NUMERIC(" + precision + "," + scale + ")"
                : type.sqlName();
    }
}
