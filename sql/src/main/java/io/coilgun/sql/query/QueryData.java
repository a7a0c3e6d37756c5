package io.coilgun.sql.query;

import io.coilgun.planner.model.Catalog;
import io.coilgun.planner.model.MetricDef;
import io.coilgun.planner.model.StreamDef;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * What SELECT reads beyond the catalog, supplied by the node: metric state, a stream's recent events and the rows of
 * the system tables. Called on a query thread; implementations may block.
 */
public interface QueryData {
    Catalog catalog();

    /** Whether {@code user} may read {@code relation} (a stream, a metric or {@code coilgun.<table>}). */
    default boolean maySelect(String user, String relation) {
        return hasPrivilege(user, relation, "SELECT");
    }

    /**
     * Whether {@code user} holds {@code privilege} (SELECT or INSERT, upper case) on {@code relation} (a stream, a
     * metric or {@code coilgun.<table>}): as owner, superuser, or by a grant to it or to PUBLIC.
     */
    default boolean hasPrivilege(String user, String relation, String privilege) {
        return true;
    }

    /** Whether {@code user} is a superuser (sees every session's query, cancels any). */
    default boolean superuser(String user) {
        return true;
    }

    /** A role as pg_roles shows it. */
    record Role(String name, boolean superuser, boolean login) {
    }

    /**
     * The roles {@code user}'s session can see in pg_roles: the catalog's, the node's configured users (superusers)
     * and, when it is neither (trust), the user itself (a superuser).
     */
    default List<Role> roles(String user) {
        return List.of(new Role(user, true, true));
    }

    /**
     * Visits the metric's groups with their current values (see {@link MetricRow}): all groups, or with {@code key}
     * (a value for every group-by column, in GROUP BY order, as the column's Java class) only that one.
     */
    void metricRows(StreamDef stream, MetricDef metric, Object[] key, Consumer<MetricRow> visitor);

    /**
     * The stream's most recent events, newest last, at most {@code limit} per task: each its column values (timestamps
     * as micros) in the stream's column order.
     */
    List<Object[]> recentEvents(StreamDef stream, int limit);

    /** Rows of {@code coilgun.tasks}: see {@link SystemTables#TASKS} for the columns. */
    List<Object[]> tasks();

    /** Rows of {@code coilgun.sources}: this node's readers of the streams' Kafka topics. */
    default List<Object[]> sources() {
        return List.of();
    }

    /** How many records the sink wrote from this node since it started ({@code coilgun.sinks}). */
    default long sinkRecords(String sink) {
        return 0;
    }

    /** Rows of {@code coilgun.source_errors}: the bad records this node's source readers skipped or stopped at. */
    default List<Object[]> sourceErrors() {
        return List.of();
    }

    /** Rows of {@code coilgun.failed_events}: see {@link SystemTables#FAILED_EVENTS}. */
    List<Object[]> failedEvents();

    /** Rows of {@code coilgun.nodes}: see {@link SystemTables#NODES}. */
    List<Object[]> nodes();

    /** Rows of {@code coilgun.statistics}: see {@link SystemTables#STATISTICS}. */
    List<Object[]> statistics();

    /**
     * The metrics being filled from history ({@code WITH (backfill = …)}) by name: events applied and in all over the
     * active copies of their tasks, and the longest estimated time left (-1 unknown).
     */
    default Map<String, Backfill> backfills() {
        return Map.of();
    }

    /**
     * Rows of {@code coilgun.partitioners}: each partitioner topic of each stream (stream_name, partitioner,
     * partitions, added, state, filled_events, fill_events).
     */
    default List<Object[]> partitioners() {
        List<Object[]> rows = new java.util.ArrayList<>();
        for (io.coilgun.planner.model.StreamDef s : catalog().streams()) {
            for (String field : s.partitionBy()) {
                rows.add(new Object[] {s.name(), field, s.partitions(field), s.addedPartitionBy().contains(field),
                    "live", null, null});
            }
        }
        return rows;
    }

    /** A metric's backfill progress, summed over its tasks. */
    record Backfill(long applied, long total, long etaSeconds) {
    }

    /** The node's client sessions, for {@code pg_stat_activity}. */
    default List<SessionActivity> sessions() {
        return List.of();
    }

    /**
     * One group of a metric as of its task's stream time.
     *
     * @param group the group-by values in GROUP BY order (timestamps as micros)
     * @param values one per aggregation (SUM of integers as Long, timestamps as micros)
     * @param streamTime micros, or null before the task's first event
     */
    record MetricRow(Object[] group, Object[] values, Long streamTime) {
    }
}
