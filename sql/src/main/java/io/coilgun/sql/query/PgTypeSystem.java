package io.coilgun.sql.query;

import org.apache.calcite.rel.type.RelDataTypeSystemImpl;
import org.apache.calcite.sql.type.SqlTypeName;

/**
 * Calcite's type system with Postgres' defaults where they differ: a {@code timestamp} without a precision keeps
 * its fraction of a second ({@code '… 10:00:00.5'::timestamp}), to the millisecond that Calcite's engine holds
 * (Postgres: the microsecond).
 */
public final class PgTypeSystem extends RelDataTypeSystemImpl {
    public static final PgTypeSystem INSTANCE = new PgTypeSystem();

    private PgTypeSystem() {
    }

    @Override
    public int getDefaultPrecision(SqlTypeName typeName) {
        return switch (typeName) {
            case TIMESTAMP, TIMESTAMP_WITH_LOCAL_TIME_ZONE, TIME -> getMaxPrecision(typeName);
            default -> super.getDefaultPrecision(typeName);
        };
    }
}
