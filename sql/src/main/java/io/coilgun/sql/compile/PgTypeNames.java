package io.coilgun.sql.compile;

import io.coilgun.planner.model.ColumnType;

/** Column types as Postgres names them in its error messages ("double precision", "character varying"). */
final class PgTypeNames {
    private PgTypeNames() {
    }

    static String of(ColumnType type) {
        return switch (type) {
            case BOOLEAN -> "boolean";
            case INTEGER -> "integer";
            case BIGINT -> "bigint";
            case DOUBLE -> "double precision";
            case VARCHAR -> "character varying";
            case TIMESTAMP -> "timestamp without time zone";
            case NUMERIC -> "numeric";
        };
    }
}
