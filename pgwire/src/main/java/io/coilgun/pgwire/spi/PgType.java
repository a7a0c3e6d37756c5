package io.coilgun.pgwire.spi;

import java.util.List;

/** The Postgres types Coilgun sends, with their OIDs and sizes (pg_type.typlen, -1 for variable). */
public enum PgType {
    BOOL(16, 1),
    BYTEA(17, -1),
    INT8(20, 8),
    INT2(21, 2),
    INT4(23, 4),
    TEXT(25, -1),
    FLOAT4(700, 4),
    FLOAT8(701, 8),
    VARCHAR(1043, -1),
    DATE(1082, 4),
    TIMESTAMP(1114, 8),
    TIMESTAMPTZ(1184, 8),
    INTERVAL(1186, 16),
    NUMERIC(1700, -1),
    /** {@code text[]}: a {@link List} of strings (nulls allowed), one dimension. */
    TEXT_ARRAY(1009, -1),
    /** An untyped literal or a parameter whose type the server left open: sent and read as text. */
    UNKNOWN(705, -2);

    private final int oid;
    private final int size;

    PgType(int oid, int size) {
        this.oid = oid;
        this.size = size;
    }

    public int oid() {
        return oid;
    }

    public int size() {
        return size;
    }

    /** The type with this OID, or null when Coilgun does not know it. */
    public static PgType of(int oid) {
        for (PgType type : values()) {
            if (type.oid == oid) {
                return type;
            }
        }
        return null;
    }
}
