package io.coilgun.sql.query;

import io.coilgun.planner.model.ColumnType;
import io.coilgun.planner.model.StreamDef;
import java.util.ArrayList;
import java.util.List;
import org.apache.calcite.DataContext;
import org.apache.calcite.linq4j.Enumerable;
import org.apache.calcite.linq4j.Linq4j;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.schema.ProjectableFilterableTable;
import org.apache.calcite.schema.impl.AbstractTable;

/**
 * A stream as a table: its recent events, the last {@link #RECENT} of each task (the newest last per task), read from
 * the tasks' reservoirs. An event published to several partitioner topics is shown once, from its first topic.
 *
 * <p>An event that a filter {@code column = constant} (a literal or a parameter; integer, text and boolean columns)
 * surely rejects is left out of the scan: Calcite applies every filter again, so this only narrows what is read.
 * Timestamps are given in microseconds ({@link EngineTimestamps}).
 */
final class StreamTable extends AbstractTable implements ProjectableFilterableTable {
    static final int RECENT = 1000;

    private final StreamDef stream;
    private final List<Col> columns;
    private final QueryData data;

    StreamTable(StreamDef stream, QueryData data) {
        this.stream = stream;
        this.columns = Relations.streamColumns(stream);
        this.data = data;
    }

    @Override
    public RelDataType getRowType(RelDataTypeFactory types) {
        return RowsTable.rowType(types, columns);
    }

    @Override
    public Enumerable<Object[]> scan(DataContext root, List<RexNode> filters, int[] projects) {
        List<ColumnEqualities.Equality> equalities = equalities(root, filters);
        List<Object[]> rows = new ArrayList<>();
        for (Object[] event : data.recentEvents(stream, RECENT)) {
            if (surelyRejected(event, equalities)) {
                continue;
            }
            Object[] row = new Object[columns.size()];
            for (int i = 0; i < row.length; i++) {
                Object v = i < event.length ? event[i] : null;
                row[i] = PgTypes.toCalcite(stream.column(i).type(), v);
            }
            rows.add(MetricTable.project(row, projects));
        }
        return Linq4j.asEnumerable(rows);
    }

    /** The filters {@code column = constant} on integer, text and boolean columns, with the constants' values. */
    private List<ColumnEqualities.Equality> equalities(DataContext root, List<RexNode> filters) {
        return ColumnEqualities.of(root, filters, i -> {
            if (i >= columns.size()) {
                return null;
            }
            ColumnType type = stream.column(i).type();
            return type == ColumnType.BIGINT || type == ColumnType.INTEGER || type == ColumnType.VARCHAR
                    || type == ColumnType.BOOLEAN ? type : null;
        });
    }

    /** Whether one of the equalities is surely false for the event (in doubt: not rejected). */
    private static boolean surelyRejected(Object[] event, List<ColumnEqualities.Equality> equalities) {
        for (ColumnEqualities.Equality e : equalities) {
            Object v = e.column() < event.length ? event[e.column()] : null;
            if (v == null) {
                return true; // NULL = anything is not true
            }
            Object expected = e.value();
            boolean differs = v instanceof Number n ? n.longValue() != (Long) expected
                    // Calcite may pad a CHAR constant: differing only in trailing spaces is a doubt, not a no
                    : v instanceof String text ? !text.stripTrailing().equals(((String) expected).stripTrailing())
                    : !v.equals(expected);
            if (differs) {
                return true;
            }
        }
        return false;
    }
}
