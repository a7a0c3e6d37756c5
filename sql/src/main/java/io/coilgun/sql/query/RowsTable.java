package io.coilgun.sql.query;

import java.util.List;
import java.util.function.Supplier;
import org.apache.calcite.DataContext;
import org.apache.calcite.linq4j.Enumerable;
import org.apache.calcite.linq4j.Linq4j;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.schema.ScannableTable;
import org.apache.calcite.schema.impl.AbstractTable;
import org.apache.calcite.sql.type.SqlTypeName;

/** A relation whose rows are computed when a query scans it (catalog and system tables). */
class RowsTable extends AbstractTable implements ScannableTable {
    final List<Col> columns;
    private final Supplier<List<Object[]>> rows;

    RowsTable(List<Col> columns, Supplier<List<Object[]>> rows) {
        this.columns = List.copyOf(columns);
        this.rows = rows;
    }

    /** A relation that is always empty in Coilgun (indexes, constraints, policies, …), with Postgres' columns. */
    static RowsTable empty(List<Col> columns) {
        return new RowsTable(columns, List::of);
    }

    @Override
    public RelDataType getRowType(RelDataTypeFactory types) {
        return rowType(types, columns);
    }

    static RelDataType rowType(RelDataTypeFactory types, List<Col> columns) {
        RelDataTypeFactory.Builder b = types.builder();
        for (Col c : columns) {
            b.add(c.name(), c.relType(types));
        }
        return b.build();
    }

    /**
     * The rows, each timestamp in the query engine's microseconds ({@link EngineTimestamps}): the catalog and system
     * tables give theirs in milliseconds.
     */
    @Override
    public Enumerable<Object[]> scan(DataContext root) {
        List<Object[]> all = rows.get();
        boolean timestamps = columns.stream().anyMatch(c -> c.type() == SqlTypeName.TIMESTAMP);
        if (!timestamps) {
            return Linq4j.asEnumerable(all);
        }
        List<Object[]> out = new java.util.ArrayList<>(all.size());
        for (Object[] row : all) {
            Object[] r = row.clone();
            for (int i = 0; i < r.length && i < columns.size(); i++) {
                if (columns.get(i).type() == SqlTypeName.TIMESTAMP && r[i] instanceof Number n) {
                    r[i] = Math.multiplyExact(n.longValue(), 1000L);
                }
            }
            out.add(r);
        }
        return Linq4j.asEnumerable(out);
    }
}
