package io.coilgun.planner.model;

import java.math.BigDecimal;

/**
 * The column types a stream can declare, with the Java value class used in memory.
 * TIMESTAMP values are {@link Long} microseconds since the epoch (UTC), as in Postgres.
 */
public enum ColumnType {
    BOOLEAN(Boolean.class, "BOOLEAN"),
    INTEGER(Integer.class, "INTEGER"),
    BIGINT(Long.class, "BIGINT"),
    DOUBLE(Double.class, "DOUBLE"),
    VARCHAR(String.class, "VARCHAR"),
    TIMESTAMP(Long.class, "TIMESTAMP"),
    /**
     * Exact decimal numbers, as Postgres' numeric: a stream column's values are {@link BigDecimal}s, of the column's
     * scale when it declares one ({@link StreamColumn#scale()}); also the result of {@code SUM} of {@code BIGINT}.
     */
    NUMERIC(BigDecimal.class, "NUMERIC");

    private final Class<?> javaClass;
    private final String sqlName;

    ColumnType(Class<?> javaClass, String sqlName) {
        this.javaClass = javaClass;
        this.sqlName = sqlName;
    }

    public Class<?> javaClass() {
        return javaClass;
    }

    public String sqlName() {
        return sqlName;
    }

    public boolean isNumeric() {
        return this == INTEGER || this == BIGINT || this == DOUBLE || this == NUMERIC;
    }

    public boolean isIntegral() {
        return this == INTEGER || this == BIGINT;
    }
}
