package io.coilgun.sql.query;

import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.sql.type.SqlTypeName;

/**
 * A column of a relation SELECT can read: its SQL type for Calcite and its Postgres type oid for the catalog
 * ({@code pg_attribute.atttypid}).
 */
record Col(String name, SqlTypeName type, int pgType, boolean nullable) {
    static Col text(String name) {
        return new Col(name, SqlTypeName.VARCHAR, PgTypes.TEXT, true);
    }

    static Col name(String name) {
        return new Col(name, SqlTypeName.VARCHAR, PgTypes.NAME, true);
    }

    static Col oid(String name) {
        return new Col(name, SqlTypeName.INTEGER, PgTypes.OID, true);
    }

    static Col int4(String name) {
        return new Col(name, SqlTypeName.INTEGER, PgTypes.INT4, true);
    }

    static Col int2(String name) {
        return new Col(name, SqlTypeName.SMALLINT, PgTypes.INT2, true);
    }

    static Col int8(String name) {
        return new Col(name, SqlTypeName.BIGINT, PgTypes.INT8, true);
    }

    static Col bool(String name) {
        return new Col(name, SqlTypeName.BOOLEAN, PgTypes.BOOL, true);
    }

    static Col float4(String name) {
        return new Col(name, SqlTypeName.REAL, PgTypes.FLOAT4, true);
    }

    static Col timestamp(String name) {
        return new Col(name, SqlTypeName.TIMESTAMP, PgTypes.TIMESTAMP, true);
    }

    /** Postgres' single-byte {@code "char"} (relkind, typtype, …). */
    static Col chr(String name) {
        return new Col(name, SqlTypeName.VARCHAR, PgTypes.CHAR, true);
    }

    RelDataType relType(RelDataTypeFactory types) {
        RelDataType t = type == SqlTypeName.TIMESTAMP ? types.createSqlType(type, 3) : types.createSqlType(type);
        return types.createTypeWithNullability(t, nullable);
    }
}
