package io.coilgun.sql.query;

import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import org.apache.calcite.DataContext;
import org.apache.calcite.linq4j.Enumerable;
import org.apache.calcite.linq4j.Linq4j;

/**
 * {@code generate_series(start, stop)}: the integers from start to stop, generated as the query reads them (a cursor
 * over {@code generate_series(1, 10000000)} holds no list of them).
 */
final class SeriesTable extends RowsTable {
    private final long first;
    private final long last;

    SeriesTable(Integer start, Integer stop) {
        super(List.of(Col.int4("generate_series")), List::of);
        this.first = start == null ? 1 : start;
        this.last = start == null || stop == null ? 0 : stop;
    }

    @Override
    public Enumerable<Object[]> scan(DataContext root) {
        return Linq4j.asEnumerable(() -> new Iterator<Object[]>() {
            private long next = first;

            @Override
            public boolean hasNext() {
                return next <= last;
            }

            @Override
            public Object[] next() {
                if (next > last) {
                    throw new NoSuchElementException();
                }
                return new Object[] {(int) next++};
            }
        });
    }
}
