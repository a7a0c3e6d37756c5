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
import org.apache.calcite.schema.ScannableTable;
import org.apache.calcite.schema.impl.AbstractTable;

/**
 * A stream as a table: its recent events, the last {@link #RECENT} of each task (the newest last per task), read from
 * the tasks' reservoirs. An event published to several partitioner topics is shown once, from its first topic.
 */
final class StreamTable extends AbstractTable implements ScannableTable {
    static final int RECENT = 1000;

    private final StreamDef stream;
    private final List<Col> columns;
    private final QueryData data;
    private final TimestampMicros micros;

    StreamTable(StreamDef stream, QueryData data, TimestampMicros micros) {
        this.stream = stream;
        this.columns = Relations.streamColumns(stream);
        this.data = data;
        this.micros = micros;
    }

    @Override
    public RelDataType getRowType(RelDataTypeFactory types) {
        return RowsTable.rowType(types, columns);
    }

    @Override
    public Enumerable<Object[]> scan(DataContext root) {
        List<Object[]> rows = new ArrayList<>();
        for (Object[] event : data.recentEvents(stream, RECENT)) {
            Object[] row = new Object[columns.size()];
            for (int i = 0; i < row.length; i++) {
                Object v = i < event.length ? event[i] : null;
                row[i] = v != null && stream.column(i).type() == ColumnType.TIMESTAMP
                        ? (Object) micros.scanned("public", stream.name(), columns.get(i).name(), (Long) v)
                        : PgTypes.toCalcite(stream.column(i).type(), v);
            }
            rows.add(row);
        }
        return Linq4j.asEnumerable(rows);
    }
}
