package io.coilgun.sql.query;

import io.coilgun.planner.error.CoilgunException;
import io.coilgun.planner.error.SqlState;
import org.apache.calcite.DataContext;
import org.apache.calcite.linq4j.Enumerable;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.schema.ScannableTable;
import org.apache.calcite.schema.Table;
import org.apache.calcite.schema.impl.AbstractTable;

/**
 * A relation the session's user may not read: it has its columns (a query still plans, and describes, as Postgres'
 * does) but reading it fails with 42501, as Postgres' executor does.
 */
final class DeniedTable extends AbstractTable implements ScannableTable {
    private final Table table;
    private final String name;

    DeniedTable(Table table, String name) {
        this.table = table;
        this.name = name;
    }

    @Override
    public RelDataType getRowType(RelDataTypeFactory types) {
        return table.getRowType(types);
    }

    @Override
    public Enumerable<Object[]> scan(DataContext root) {
        throw new CoilgunException(SqlState.INSUFFICIENT_PRIVILEGE, "permission denied for table " + name);
    }
}
