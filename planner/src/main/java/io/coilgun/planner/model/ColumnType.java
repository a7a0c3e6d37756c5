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
     * Only as the result type of an aggregation ({@code SUM} of {@code BIGINT}, exact, as Postgres' numeric): a
     * stream column declared NUMERIC is stored as a DOUBLE.
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
