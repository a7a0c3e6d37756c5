package io.coilgun.sql.compile;

import io.coilgun.planner.error.SqlState;
import io.coilgun.planner.model.Catalog;
import io.coilgun.planner.model.MetricDef;
import io.coilgun.planner.model.StreamDef;
import io.coilgun.sql.parser.SqlAlterStream;
import io.coilgun.sql.parser.SqlOption;
import java.util.Locale;
import java.util.OptionalInt;
import org.apache.calcite.sql.SqlNode;

/**
 * {@code ALTER STREAM name ADD PARTITION BY field [WITH (partitions = n)]} and {@code ALTER STREAM name DROP
 * PARTITION BY field}: a partitioner topic added to a stream (its tasks filled from the history its decider holds,
 * then live) or dropped (when no metric runs on it). A stream partitioned by one field gains a decider with its
 * second (it decides each event once for every partitioning and holds the history in the order it decided: its
 * tasks hand theirs over first); a stream keeps at least two.
 */
final class StreamPartitioners {
    private StreamPartitioners() {
    }

    static AlterStreamStatement alter(SqlText sql, SqlAlterStream node, StreamDef stream, Catalog catalog,
            String ddl) {
        String field = node.partitioner().getSimple().toLowerCase(Locale.ROOT);
        boolean partitioner = stream.partitionBy().contains(field);
        if (node.dropsPartitioner()) {
            if (!partitioner) {
                throw sql.error(SqlState.UNDEFINED_OBJECT, "stream \"" + stream.name() + "\" is not partitioned by \""
                        + field + "\" (its partition_by: " + String.join(", ", stream.partitionBy()) + ")",
                        node.partitioner());
            }
            if (stream.partitionBy().size() <= 2) {
                throw sql.error(SqlState.FEATURE_NOT_SUPPORTED, "stream \"" + stream.name() + "\" keeps at least two "
                        + "partition_by fields (a stream created with several keeps its decider)", node.partitioner());
            }
            for (MetricDef m : catalog.metricsOf(stream.name())) {
                if (m.partitioner().equals(field)) {
                    throw sql.error(SqlState.DEPENDENT_OBJECTS_STILL_EXIST, "cannot drop partition_by field \"" + field
                            + "\" of stream \"" + stream.name() + "\": metric \"" + m.name() + "\" runs on it (DROP "
                            + "METRIC it first)", node.partitioner());
                }
            }
            return new AlterStreamStatement(stream.withoutPartitioner(field), ddl, false, field, true);
        }
        if (partitioner) {
            throw sql.error(SqlState.DUPLICATE_OBJECT, "stream \"" + stream.name() + "\" is already partitioned by \""
                    + field + "\"", node.partitioner());
        }
        OptionalInt column = stream.columnIndex(field);
        if (column.isEmpty()) {
            throw sql.error(SqlState.UNDEFINED_COLUMN, "column \"" + field + "\" of stream \"" + stream.name()
                    + "\" does not exist", node.partitioner());
        }
        if (column.getAsInt() == stream.eventTimeIndex()) {
            throw sql.error(SqlState.INVALID_OBJECT_DEFINITION, "the event time column cannot be a partition_by field",
                    node.partitioner());
        }
        StreamCompiler.checkTopicName(sql, field, "partition_by field", node.partitioner());
        int partitions = stream.partitions();
        for (SqlNode n : node.options()) {
            SqlOption o = (SqlOption) n;
            if (!o.keyName().toLowerCase(Locale.ROOT).equals("partitions")) {
                throw sql.error(SqlState.FEATURE_NOT_SUPPORTED, "option \"" + o.keyName() + "\" is not known here "
                        + "(ADD PARTITION BY takes partitions)", o.key());
            }
            partitions = StreamCompiler.partitions(sql, o, o.valueAsString());
        }
        return new AlterStreamStatement(stream.withPartitioner(field, partitions), ddl, false, field, false);
    }
}
