package io.coilgun.planner.model;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalInt;

/**
 * A stream's definition: typed columns, which column is the event time and which the event id,
 * the partitioner fields (one Kafka topic each), partitions per topic and the lateness policy.
 *
 * @param eventIdIndex the event id column, or -1 when ids are assigned on ingest
 * @param ddl the CREATE STREAM text it was made from (what the durable catalog stores)
 * @param schemaWidths the number of columns of each schema version, oldest first: ALTER STREAM ... ADD COLUMN
 *     appends a column and a version, so version {@code v} has the first {@code schemaWidths.get(v - 1)} columns
 * @param backfillHorizonMicros history kept in the reservoirs beyond the longest window of the stream's metrics,
 *     for metrics created later with a backfill (option {@code backfill_horizon}, default 0)
 * @param dedupHorizonMicros how far behind the stream time an accepted event's id is still recognized, so that a
 *     retry of it is answered as a duplicate whatever its lateness (option {@code dedup_horizon}, default 1 hour, at
 *     least the lateness)
 * @param replicas the copies each task of the stream keeps on distinct nodes, the active included (option
 *     {@code replicas}, default 1: no replica); fewer while the cluster has fewer nodes
 * @param partitionCounts the partitioner topics whose partition count is not {@code partitions} (option {@code
 *     partitions = 'card_id 8, merchant_id 16'}): see {@link #partitions(String)}
 * @param addedPartitionBy the partitioners of {@code partitionBy} added by {@code ALTER STREAM … ADD PARTITION BY}
 *     (after the others): their tasks are filled from the decider's history before it forwards to them live
 * @param source the Kafka topic the stream's events also come from (options {@code kafka_topic}, {@code format},
 *     {@code bad_records}), or null: events come by INSERT and COPY only
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
        String ddl,
        List<Integer> schemaWidths,
        long backfillHorizonMicros,
        long dedupHorizonMicros,
        int replicas,
        Map<String, Integer> partitionCounts,
        List<String> addedPartitionBy,
        StreamSource source) {

    public static final long DEFAULT_LATENESS_MICROS = 10_000_000L;
    public static final long DEFAULT_DEDUP_HORIZON_MICROS = 3_600_000_000L;
    public static final int DEFAULT_PARTITIONS = 4;

    public StreamDef {
        columns = List.copyOf(columns);
        partitionBy = List.copyOf(partitionBy);
        schemaWidths = List.copyOf(schemaWidths);
        partitionCounts = Map.copyOf(partitionCounts);
        addedPartitionBy = List.copyOf(addedPartitionBy);
        if (schemaWidths.isEmpty() || schemaWidths.get(schemaWidths.size() - 1) != columns.size()) {
            throw new IllegalArgumentException("the newest schema version must have every column");
        }
    }

    /** A stream fed by INSERT and COPY only. */
    public StreamDef(String name, List<StreamColumn> columns, int eventTimeIndex, int eventIdIndex,
            List<String> partitionBy, int partitions, long latenessMicros, LatePolicy latePolicy, String ddl,
            List<Integer> schemaWidths, long backfillHorizonMicros, long dedupHorizonMicros, int replicas,
            Map<String, Integer> partitionCounts, List<String> addedPartitionBy) {
        this(name, columns, eventTimeIndex, eventIdIndex, partitionBy, partitions, latenessMicros, latePolicy, ddl,
                schemaWidths, backfillHorizonMicros, dedupHorizonMicros, replicas, partitionCounts, addedPartitionBy,
                null);
    }

    /** A stream as created: no partitioner added since. */
    public StreamDef(String name, List<StreamColumn> columns, int eventTimeIndex, int eventIdIndex,
            List<String> partitionBy, int partitions, long latenessMicros, LatePolicy latePolicy, String ddl,
            List<Integer> schemaWidths, long backfillHorizonMicros, long dedupHorizonMicros, int replicas,
            Map<String, Integer> partitionCounts) {
        this(name, columns, eventTimeIndex, eventIdIndex, partitionBy, partitions, latenessMicros, latePolicy, ddl,
                schemaWidths, backfillHorizonMicros, dedupHorizonMicros, replicas, partitionCounts, List.of());
    }

    /** A stream whose partitioner topics all have {@code partitions} partitions. */
    public StreamDef(String name, List<StreamColumn> columns, int eventTimeIndex, int eventIdIndex,
            List<String> partitionBy, int partitions, long latenessMicros, LatePolicy latePolicy, String ddl,
            List<Integer> schemaWidths, long backfillHorizonMicros, long dedupHorizonMicros, int replicas) {
        this(name, columns, eventTimeIndex, eventIdIndex, partitionBy, partitions, latenessMicros, latePolicy, ddl,
                schemaWidths, backfillHorizonMicros, dedupHorizonMicros, replicas, Map.of());
    }

    /** A stream at its first schema version. */
    public StreamDef(String name, List<StreamColumn> columns, int eventTimeIndex, int eventIdIndex,
            List<String> partitionBy, int partitions, long latenessMicros, LatePolicy latePolicy, String ddl) {
        this(name, columns, eventTimeIndex, eventIdIndex, partitionBy, partitions, latenessMicros, latePolicy, ddl,
                List.of(columns.size()), 0, Math.max(DEFAULT_DEDUP_HORIZON_MICROS, latenessMicros), 1);
    }

    /** The current schema version (1 for a stream never altered). */
    public int schemaVersion() {
        return schemaWidths.size();
    }

    /** Columns of schema version {@code version}: the first ones of {@link #columns()}. */
    public int schemaWidth(int version) {
        return schemaWidths.get(version - 1);
    }

    /** The same stream with {@code replicas} copies of each task (ALTER STREAM … SET (replicas = n)). */
    public StreamDef withReplicas(int copies) {
        return new StreamDef(name, columns, eventTimeIndex, eventIdIndex, partitionBy, partitions, latenessMicros,
                latePolicy, ddl, schemaWidths, backfillHorizonMicros, dedupHorizonMicros, copies, partitionCounts,
                addedPartitionBy, source);
    }

    /** The next schema version: {@code column} added at the end. */
    public StreamDef withColumn(StreamColumn column) {
        List<StreamColumn> cols = new ArrayList<>(columns);
        cols.add(column);
        List<Integer> widths = new ArrayList<>(schemaWidths);
        widths.add(cols.size());
        return new StreamDef(name, cols, eventTimeIndex, eventIdIndex, partitionBy, partitions, latenessMicros,
                latePolicy, ddl, widths, backfillHorizonMicros, dedupHorizonMicros, replicas, partitionCounts,
                addedPartitionBy, source);
    }

    /**
     * The stream with partitioner {@code field} added at the end, its topic of {@code count} partitions
     * (ALTER STREAM … ADD PARTITION BY).
     */
    public StreamDef withPartitioner(String field, int count) {
        List<String> fields = new ArrayList<>(partitionBy);
        fields.add(field);
        Map<String, Integer> counts = new HashMap<>(partitionCounts);
        if (count != partitions) {
            counts.put(field, count);
        }
        List<String> added = new ArrayList<>(addedPartitionBy);
        added.add(field);
        return new StreamDef(name, columns, eventTimeIndex, eventIdIndex, fields, partitions, latenessMicros,
                latePolicy, ddl, schemaWidths, backfillHorizonMicros, dedupHorizonMicros, replicas, counts, added,
                source);
    }

    /** The stream without partitioner {@code field} (ALTER STREAM … DROP PARTITION BY). */
    public StreamDef withoutPartitioner(String field) {
        List<String> fields = new ArrayList<>(partitionBy);
        fields.remove(field);
        Map<String, Integer> counts = new HashMap<>(partitionCounts);
        counts.remove(field);
        List<String> added = new ArrayList<>(addedPartitionBy);
        added.remove(field);
        return new StreamDef(name, columns, eventTimeIndex, eventIdIndex, fields, partitions, latenessMicros,
                latePolicy, ddl, schemaWidths, backfillHorizonMicros, dedupHorizonMicros, replicas, counts, added,
                source);
    }

    /**
     * Whether the stream has a decider (a one-partition topic whose task decides each event once, then forwards it
     * to every partitioner topic): it is partitioned by several fields.
     */
    public boolean decided() {
        return partitionBy.size() > 1;
    }

    /** The partitions of the partitioner topic of {@code field}: each a task. */
    public int partitions(String field) {
        return partitionCounts.getOrDefault(field, partitions);
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
