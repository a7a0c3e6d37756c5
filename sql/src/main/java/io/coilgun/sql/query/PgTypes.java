package io.coilgun.sql.query;

import io.coilgun.planner.model.ColumnType;
import io.coilgun.sql.compile.SqlTypeNames;
import java.math.BigDecimal;
import org.apache.calcite.sql.type.SqlTypeName;

/** Postgres type oids, names and sizes, for the catalog tables; and the oid of each column type. */
public final class PgTypes {
    static final int BOOL = 16;
    static final int BYTEA = 17;
    static final int CHAR = 18;
    static final int NAME = 19;
    static final int INT8 = 20;
    static final int INT2 = 21;
    static final int INT4 = 23;
    static final int TEXT = 25;
    static final int OID = 26;
    static final int FLOAT4 = 700;
    static final int FLOAT8 = 701;
    static final int VARCHAR = 1043;
    static final int DATE = 1082;
    static final int TIMESTAMP = 1114;
    static final int TIMESTAMPTZ = 1184;
    static final int INTERVAL = 1186;
    static final int NUMERIC = 1700;
    static final int TEXT_ARRAY = 1009;

    /** oid, name, length (-1 variable), category, format_type name. */
    public record TypeInfo(int oid, String name, int length, String category, String formatted) {
    }

    static final TypeInfo[] ALL = {
        new TypeInfo(BOOL, "bool", 1, "B", "boolean"),
        new TypeInfo(BYTEA, "bytea", -1, "U", "bytea"),
        new TypeInfo(CHAR, "char", 1, "Z", "\"char\""),
        new TypeInfo(NAME, "name", 64, "S", "name"),
        new TypeInfo(INT8, "int8", 8, "N", "bigint"),
        new TypeInfo(INT2, "int2", 2, "N", "smallint"),
        new TypeInfo(INT4, "int4", 4, "N", "integer"),
        new TypeInfo(TEXT, "text", -1, "S", "text"),
        new TypeInfo(OID, "oid", 4, "N", "oid"),
        new TypeInfo(FLOAT4, "float4", 4, "N", "real"),
        new TypeInfo(FLOAT8, "float8", 8, "N", "double precision"),
        new TypeInfo(VARCHAR, "varchar", -1, "S", "character varying"),
        new TypeInfo(DATE, "date", 4, "D", "date"),
        new TypeInfo(TIMESTAMP, "timestamp", 8, "D", "timestamp without time zone"),
        new TypeInfo(TIMESTAMPTZ, "timestamptz", 8, "D", "timestamp with time zone"),
        new TypeInfo(INTERVAL, "interval", 16, "T", "interval"),
        new TypeInfo(NUMERIC, "numeric", -1, "N", "numeric"),
        new TypeInfo(TEXT_ARRAY, "_text", -1, "A", "text[]"),
    };

    private PgTypes() {
    }

    /** The pg_type row of this oid as the catalog tables show it, or null. */
    public static TypeInfo info(int oid) {
        for (TypeInfo t : ALL) {
            if (t.oid == oid) {
                return t;
            }
        }
        return null;
    }

    static TypeInfo byName(String name) {
        for (TypeInfo t : ALL) {
            if (t.name.equals(name) || t.formatted.equals(name)) {
                return t;
            }
        }
        return null;
    }

    /** The Postgres type oid of a column type (NUMERIC only as a result type). */
    public static int of(ColumnType t) {
        return switch (t) {
            case BOOLEAN -> BOOL;
            case INTEGER -> INT4;
            case BIGINT -> INT8;
            case DOUBLE -> FLOAT8;
            case VARCHAR -> VARCHAR;
            case TIMESTAMP -> TIMESTAMP;
            case NUMERIC -> NUMERIC;
        };
    }

    static SqlTypeName sql(ColumnType t) {
        return SqlTypeNames.of(t);
    }

    /** A stream value in the query engine's representation (timestamps as micros, see EngineTimestamps). */
    static Object toCalcite(ColumnType t, Object v) {
        if (v == null) {
            return null;
        }
        if (t == ColumnType.TIMESTAMP) {
            return ((Number) v).longValue();
        }
        if (t == ColumnType.INTEGER) {
            return ((Number) v).intValue();
        }
        if (t == ColumnType.BIGINT) {
            return ((Number) v).longValue();
        }
        if (t == ColumnType.DOUBLE) {
            return ((Number) v).doubleValue();
        }
        if (t == ColumnType.NUMERIC) {
            return v instanceof BigDecimal d ? d : BigDecimal.valueOf(((Number) v).longValue());
        }
        return v;
    }
}
