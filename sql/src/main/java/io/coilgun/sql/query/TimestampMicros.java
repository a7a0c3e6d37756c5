package io.coilgun.sql.query;

import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Types;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.Map;

/**
 * The microseconds of the timestamps a query shows as they are stored. Events and metrics keep timestamps in
 * microseconds, as Postgres does, but Calcite's engine holds milliseconds; so while a query's tables are scanned,
 * each timestamp of a column the result shows unchanged (a select-list column that is the table's column itself, as
 * Calcite's column origins tell: {@code SELECT ts FROM payments WHERE …}, {@code SELECT *}) is remembered by its
 * millisecond, and the result's value gets its microseconds back. Two scanned values in the same millisecond with
 * different microseconds make that millisecond ambiguous: it is shown to the millisecond, as before. A computed
 * value ({@code ts + INTERVAL …}, {@code ts::text}) is not a column's own and stays at the millisecond.
 *
 * <p>One per query, used by its query thread and by the metric reads it waits for, one at a time.
 */
final class TimestampMicros {
    private static final long AMBIGUOUS = Long.MIN_VALUE;

    /** "schema.table.column" of each result column shown unchanged, to its scanned values: millis to micros. */
    private final Map<String, Map<Long, Long>> columns = new HashMap<>();

    /** Registers every TIMESTAMP column of the result that is a table's column as it is. */
    void showing(ResultSetMetaData md) throws SQLException {
        for (int i = 1; i <= md.getColumnCount(); i++) {
            String key = origin(md, i);
            if (key != null) {
                columns.putIfAbsent(key, new HashMap<>());
            }
        }
    }

    /** A scanned timestamp ({@code micros}) of {@code schema.table.column}: its value for Calcite, milliseconds. */
    long scanned(String schema, String table, String column, long micros) {
        long millis = Math.floorDiv(micros, 1000L);
        if (!columns.isEmpty()) {
            Map<Long, Long> values = columns.get(schema + "." + table + "." + column);
            if (values != null) {
                Long seen = values.putIfAbsent(millis, micros);
                if (seen != null && seen != micros) {
                    values.put(millis, AMBIGUOUS);
                }
            }
        }
        return millis;
    }

    /** The result's value {@code t} of column {@code i}, with its microseconds when they are known. */
    LocalDateTime exact(ResultSetMetaData md, int i, LocalDateTime t) throws SQLException {
        if (t == null || columns.isEmpty() || t.getNano() % 1_000_000 != 0) {
            return t;
        }
        String key = origin(md, i);
        Map<Long, Long> values = key == null ? null : columns.get(key);
        if (values == null) {
            return t;
        }
        long millis = t.toEpochSecond(ZoneOffset.UTC) * 1000L + t.getNano() / 1_000_000;
        Long micros = values.get(millis);
        if (micros == null || micros == AMBIGUOUS) {
            return t;
        }
        return LocalDateTime.ofEpochSecond(Math.floorDiv(micros, 1_000_000L),
                (int) Math.floorMod(micros, 1_000_000L) * 1000, ZoneOffset.UTC);
    }

    private static String origin(ResultSetMetaData md, int i) throws SQLException {
        if (md.getColumnType(i) != Types.TIMESTAMP) {
            return null;
        }
        String table = md.getTableName(i);
        String column = md.getColumnName(i);
        if (table == null || table.isEmpty() || column == null || column.isEmpty()) {
            return null;
        }
        return md.getSchemaName(i) + "." + table + "." + column;
    }
}
