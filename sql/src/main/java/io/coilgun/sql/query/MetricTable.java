package io.coilgun.sql.query;

import io.coilgun.planner.model.ColumnType;
import io.coilgun.planner.model.MetricDef;
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
 * A metric as a table: one row per group with its current values, as of its task's stream time (column
 * {@code stream_time}). A query that fixes every group-by column with {@code =} is a point read of one group on one
 * task; any other query reads every group of every task. Calcite applies all filters again, so pushing one down only
 * ever narrows what is read.
 */
final class MetricTable extends AbstractTable implements ProjectableFilterableTable {
    static final String STREAM_TIME = "stream_time";

    private final StreamDef stream;
    private final MetricDef metric;
    private final List<Col> columns;
    private final QueryData data;

    MetricTable(StreamDef stream, MetricDef metric, QueryData data) {
        this.stream = stream;
        this.metric = metric;
        this.columns = Relations.metricColumns(stream, metric);
        this.data = data;
    }

    @Override
    public RelDataType getRowType(RelDataTypeFactory types) {
        return RowsTable.rowType(types, columns);
    }

    @Override
    public Enumerable<Object[]> scan(DataContext root, List<RexNode> filters, int[] projects) {
        int groups = metric.groupBy().size();
        Object[] key = pointKey(root, filters, groups);
        List<Object[]> rows = new ArrayList<>();
        int aggregations = metric.aggregations().size();
        data.metricRows(stream, metric, key, r -> {
            Object[] row = new Object[groups + aggregations + 1];
            for (int g = 0; g < groups; g++) {
                row[g] = PgTypes.toCalcite(stream.column(metric.groupBy().get(g)).type(), r.group()[g]);
            }
            for (int a = 0; a < aggregations; a++) {
                row[groups + a] = PgTypes.toCalcite(metric.aggregations().get(a).resultType(), r.values()[a]);
            }
            row[groups + aggregations] = PgTypes.toCalcite(ColumnType.TIMESTAMP, r.streamTime());
            rows.add(project(row, projects));
        });
        return Linq4j.asEnumerable(rows);
    }

    static Object[] project(Object[] row, int[] projects) {
        if (projects == null) {
            return row;
        }
        Object[] out = new Object[projects.length];
        for (int i = 0; i < projects.length; i++) {
            out[i] = row[projects[i]];
        }
        return out;
    }

    /** The group key when the filters fix every group-by column with {@code =}, else null (a scan). */
    private Object[] pointKey(DataContext root, List<RexNode> filters, int groups) {
        Object[] key = new Object[groups];
        boolean[] fixed = new boolean[groups];
        for (ColumnEqualities.Equality e : ColumnEqualities.of(root, filters,
                i -> i < groups ? stream.column(metric.groupBy().get(i)).type() : null)) {
            key[e.column()] = e.value();
            fixed[e.column()] = true;
        }
        for (boolean f : fixed) {
            if (!f) {
                return null;
            }
        }
        return key;
    }
}
