package io.coilgun.planner.model;

import java.util.List;
import java.util.Locale;
import java.util.OptionalInt;

/**
 * A stream's definition: typed columns, which column is the event time and which the event id,
 * the partitioner fields (one Kafka topic each), partitions per topic and the lateness policy.
 *
 * @param eventIdIndex the event id column, or -1 when ids are assigned on ingest
 * @param ddl the CREATE STREAM text it was made from (what the durable catalog stores)
 */
public record StreamDef(
        String name,
        List<StreamColumn> columns,
        int eventTimeIndex,
        int eventIdIndex,
        List<String> partitionBy,
        int partitions,
        long latenessMicros,
        LatePolicy latePolicy,
        String ddl) {

    public static final long DEFAULT_LATENESS_MICROS = 10_000_000L;
    public static final int DEFAULT_PARTITIONS = 4;

    public StreamDef {
        columns = List.copyOf(columns);
        partitionBy = List.copyOf(partitionBy);
    }

    public OptionalInt columnIndex(String column) {
        for (int i = 0; i < columns.size(); i++) {
            if (columns.get(i).name().equals(column)) {
                return OptionalInt.of(i);
            }
        }
        return OptionalInt.empty();
    }

    public StreamColumn column(int index) {
        return columns.get(index);
    }

    public int partitionerIndex(String field) {
        return partitionBy.indexOf(field.toLowerCase(Locale.ROOT));
    }
}
