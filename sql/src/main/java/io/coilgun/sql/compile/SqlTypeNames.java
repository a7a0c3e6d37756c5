package io.coilgun.sql.compile;

import io.coilgun.planner.model.ColumnType;
import org.apache.calcite.sql.type.SqlTypeName;

/** A column type as Calcite's SQL type: the one mapping, for validation (metrics) and for queries (SELECT). */
public final class SqlTypeNames {
    private SqlTypeNames() {
    }

    public static SqlTypeName of(ColumnType t) {
        return switch (t) {
            case BOOLEAN -> SqlTypeName.BOOLEAN;
            case INTEGER -> SqlTypeName.INTEGER;
            case BIGINT -> SqlTypeName.BIGINT;
            case DOUBLE -> SqlTypeName.DOUBLE;
            case VARCHAR -> SqlTypeName.VARCHAR;
            case TIMESTAMP -> SqlTypeName.TIMESTAMP;
            case NUMERIC -> SqlTypeName.DECIMAL;
        };
    }
}
