package io.coilgun.server.session;

import io.coilgun.sql.query.OpenQuery;
import io.coilgun.sql.query.QueryEngine;
import java.util.List;

/**
 * A cursor's rows by number (1, 2, …), read from its query as the cursor moves ({@link OpenQuery}), never ahead of
 * it by more than a batch. A scrollable cursor keeps what it has read to go back to ({@link RowSpool}: in memory,
 * then in a file); a NO SCROLL cursor keeps only the row it is on.
 */
final class CursorRows implements AutoCloseable {
    /** Rows read from the query at a time. */
    static final int BATCH = 1_000;

    private final OpenQuery source;
    private final RowSpool spool; // null for a NO SCROLL cursor
    private List<Object[]> batch = List.of();
    private int batchAt;
    /** Rows taken from the query so far. */
    private long read;
    private Object[] last;

    CursorRows(OpenQuery source, boolean scrollable) {
        this.source = source;
        this.spool = scrollable ? new RowSpool() : null;
    }

    /**
     * Row {@code n} (1-based), reading up to it from the query; null when the query has fewer rows. A NO SCROLL
     * cursor gives only rows from the one it is on.
     */
    Object[] at(long n, QueryEngine.Cancel cancel) {
        while (read < n) {
            if (!readOne(cancel)) {
                return null;
            }
        }
        if (n == read) {
            return last; // the row just read (moving forward: no trip to the spool)
        }
        if (spool == null) {
            throw new IllegalStateException("a NO SCROLL cursor's row " + n + " is behind it (at " + read + ")");
        }
        return spool.get(n);
    }

    /** The number of rows, reading the query to its end. */
    long count(QueryEngine.Cancel cancel) {
        while (readOne(cancel)) {
            // to the end
        }
        return read;
    }

    private boolean readOne(QueryEngine.Cancel cancel) {
        if (batchAt == batch.size()) {
            if (source.done()) {
                return false;
            }
            batch = source.next(BATCH, cancel);
            batchAt = 0;
            if (batch.isEmpty()) {
                return false;
            }
        }
        last = batch.get(batchAt++);
        read++;
        if (spool != null) {
            spool.add(last);
        }
        return true;
    }

    @Override
    public void close() {
        source.close();
        if (spool != null) {
            spool.close();
        }
        batch = List.of();
    }
}
