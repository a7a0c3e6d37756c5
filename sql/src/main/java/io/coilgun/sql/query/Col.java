package io.coilgun.sql.query;

import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.sql.type.SqlTypeName;

/**
 * A column of a relation SELECT can read: its SQL type for Calcite and its Postgres type oid for the catalog
 * ({@code pg_attribute.atttypid}), and its type modifier as Postgres writes it ({@code atttypmod}: -1 for none;
 * {@code numeric(p, s)} is {@code (p << 16 | s) + 4}).
 */
record Col(String name, SqlTypeName type, int pgType, boolean nullable, int typmod) {
    Col(String name, SqlTypeName type, int pgType, boolean nullable) {
        this(name, type, pgType, nullable, -1);
    }

    /** A NUMERIC column of {@code precision} and {@code scale} (-1: unconstrained). */
    static Col numeric(String name, int precision, int scale, boolean nullable) {
        return new Col(name, SqlTypeName.DECIMAL, PgTypes.NUMERIC, nullable,
                precision < 0 ? -1 : ((precision << 16) | scale) + 4);
    }

    /** The precision of a {@code numeric(p, s)} column; -1 for any other. */
    int numericPrecision() {
        return pgType == PgTypes.NUMERIC && typmod >= 4 ? (typmod - 4) >> 16 : -1;
    }

    /** The scale of a {@code numeric(p, s)} column; -1 for any other. */
    int numericScale() {
        return pgType == PgTypes.NUMERIC && typmod >= 4 ? (typmod - 4) & 0xffff : -1;
    }

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
        RelDataType t = type == SqlTypeName.TIMESTAMP ? types.createSqlType(type, 6)
                : numericPrecision() > 0 ? types.createSqlType(type, numericPrecision(), numericScale())
                : types.createSqlType(type);
        return types.createTypeWithNullability(t, nullable);
    }
}
