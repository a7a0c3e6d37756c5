package io.coilgun.sql.query;

import io.coilgun.planner.error.CoilgunException;
import io.coilgun.planner.error.SqlState;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * A query's rows read as they are asked for ({@link QueryEngine#open}): a cursor reads its rows through it, a batch
 * at a time, while the query runs in Calcite's engine between batches; nothing is read ahead. Holds the query's
 * connection until {@link #close}d (or until its last row is read). One reader at a time.
 */
public final class OpenQuery implements AutoCloseable {
    private final String statement;
    private final QueryEngine.Rows columns;
    private final Relations rels;
    private Connection connection;
    private ResultSet rs;
    private ResultSetMetaData md;
    /** Rows known in advance (an answer without a query), else null. */
    private final Iterator<Object[]> fixed;

    OpenQuery(String statement, Connection connection, ResultSet rs, QueryEngine.Rows columns, Relations rels)
            throws SQLException {
        this.statement = statement;
        this.connection = connection;
        this.rs = rs;
        this.md = rs.getMetaData();
        this.columns = columns;
        this.rels = rels;
        this.fixed = null;
    }

    private OpenQuery(QueryEngine.Rows rows) {
        this.statement = null;
        this.columns = new QueryEngine.Rows(rows.names(), rows.typeOids(), List.of());
        this.rels = null;
        this.fixed = rows.rows().iterator();
    }

    /** The rows of an answer known without a query. */
    public static OpenQuery of(QueryEngine.Rows rows) {
        return new OpenQuery(rows);
    }

    /** The columns' names and types (no rows). */
    public QueryEngine.Rows columns() {
        return columns;
    }

    /**
     * Up to {@code max} next rows; fewer only at the end (then the query is closed).
     *
     * @param cancel stops the reading (a cancel, a statement timeout), with an error
     */
    public synchronized List<Object[]> next(int max, QueryEngine.Cancel cancel) {
        List<Object[]> out = new ArrayList<>(Math.min(max, 1024));
        if (fixed != null) {
            while (out.size() < max && fixed.hasNext()) {
                out.add(fixed.next());
            }
            return out;
        }
        if (rs == null) {
            return out;
        }
        Relations previous = PgFunctions.CURRENT.get();
        PgFunctions.CURRENT.set(rels); // the query's functions run as its rows are read
        QueryEngine.Cancel before = rels.cancel;
        rels.cancel = cancel;
        try {
            int n = md.getColumnCount();
            while (out.size() < max) {
                if (cancel.canceled()) {
                    throw new CoilgunException(SqlState.QUERY_CANCELED, "canceling statement due to user request", 0);
                }
                if (!rs.next()) {
                    close();
                    break;
                }
                out.add(QueryEngine.row(rs, md, n));
            }
            return out;
        } catch (SQLException | AssertionError | ExceptionInInitializerError | RuntimeException e) {
            close();
            throw e instanceof CoilgunException ce ? ce
                    : QueryErrors.failure(statement, e, cancel);
        } finally {
            rels.cancel = before;
            if (previous == null) {
                PgFunctions.CURRENT.remove();
            } else {
                PgFunctions.CURRENT.set(previous);
            }
        }
    }

    /** Whether every row has been read. */
    public synchronized boolean done() {
        return fixed != null ? !fixed.hasNext() : rs == null;
    }

    @Override
    public synchronized void close() {
        rs = null;
        md = null;
        closeQuietly(connection);
        connection = null;
    }

    static void closeQuietly(Connection connection) {
        if (connection != null) {
            try {
                connection.close();
            } catch (SQLException | RuntimeException e) {
                // the query's resources are gone with it either way
            }
        }
    }
}
