package io.coilgun.server.session;

import io.coilgun.pgwire.spi.PgType;
import io.coilgun.planner.model.ColumnType;
import io.coilgun.sql.query.PgTypes;
import java.math.BigDecimal;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.Locale;

/**
 * Stream values and metric values as pgwire sends them: the Postgres type of a column, and each value in the Java
 * class of that type (int4 an Integer, numeric a BigDecimal, timestamp a LocalDateTime). Values reach here in the
 * engine's representations: integers as Integer or Long (a value read back from state is a Long), timestamps as
 * Long microseconds, SUM of BIGINT as a BigDecimal or a Long.
 */
final class PgValues {
    private PgValues() {
    }

    /** The Postgres type of a stream column (an event value). */
    static PgType columnType(ColumnType t) {
        return PgType.of(PgTypes.of(t)); // the one mapping, by oid
    }

    /** The Postgres type of an aggregation's result: as Postgres reports it, text for MIN/MAX/LAST of varchar. */
    static PgType resultType(ColumnType t) {
        return t == ColumnType.VARCHAR ? PgType.TEXT : columnType(t);
    }

    /** {@code v} in the Java class pgwire encodes for type {@code t}. */
    static Object toWire(ColumnType t, Object v) {
        if (v == null) {
            return null;
        }
        return switch (t) {
            // already of the wire's type (the usual case): no new box
            case INTEGER -> v instanceof Integer ? v : (Object) ((Number) v).intValue();
            case BIGINT -> v instanceof Long ? v : (Object) ((Number) v).longValue();
            case DOUBLE -> v instanceof Double ? v : (Object) ((Number) v).doubleValue();
            case NUMERIC -> v instanceof BigDecimal d ? d : BigDecimal.valueOf(((Number) v).longValue());
            case TIMESTAMP -> v instanceof Long ? v : (Object) ((Number) v).longValue(); // microseconds: pgwire takes them
            case VARCHAR, BOOLEAN -> v;
        };
    }

    /**
     * A timestamp as Postgres prints it ({@code 2026-01-01 10:00:05}, with the fraction of a second only when there is
     * one, trailing zeros dropped), for messages.
     */
    static String timestampText(long micros) {
        LocalDateTime t = timestamp(micros);
        String text = String.format(Locale.ROOT, "%s %02d:%02d:%02d", t.toLocalDate(), t.getHour(),
                t.getMinute(), t.getSecond());
        long fraction = Math.floorMod(micros, 1_000_000L);
        return fraction == 0 ? text : text + "." + String.format("%06d", fraction).replaceAll("0+$", "");
    }

    /** Microseconds since the epoch as a UTC timestamp without time zone. */
    static LocalDateTime timestamp(long micros) {
        return LocalDateTime.ofEpochSecond(Math.floorDiv(micros, 1_000_000L),
                (int) Math.floorMod(micros, 1_000_000L) * 1000, ZoneOffset.UTC);
    }
}
