package io.coilgun.server.session;

import io.coilgun.pgwire.spi.Column;
import io.coilgun.pgwire.spi.PgType;
import io.coilgun.pgwire.spi.QueryResult;
import io.coilgun.planner.error.CoilgunException;
import io.coilgun.sql.compile.QueryStatement;
import io.coilgun.sql.query.OpenQuery;
import io.coilgun.sql.query.QueryEngine;
import io.coilgun.sql.query.QuerySession;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * Runs a session's queries (SELECT …, and the queries of DECLARE and COPY TO) on the node's query threads, as the
 * session's user in its database, and turns the rows into a result. An error's position, which the engine gives
 * within the statement's own text, is moved to where the statement starts in its query string.
 */
final class QueryRunner {
    private final SessionServices node;
    private final String user;
    private final String database;
    private final QuerySession session;

    /** @param session the session as the engine's session functions see it (current_setting, …) */
    QueryRunner(SessionServices node, String user, String database, QuerySession session) {
        this.node = node;
        this.user = user;
        this.database = database;
        this.session = session;
    }

    CompletableFuture<QueryResult> run(QueryStatement q, List<Object> parameters, QueryEngine.Cancel cancel) {
        return node.query(q, parameters, user, database, session, cancel).handle((rows, e) -> {
            if (e != null) {
                throw failure(q, e);
            }
            return new QueryResult(columns(rows), rows.rows(), "SELECT " + rows.rows().size());
        });
    }

    /** A query started for its rows to be read as they are needed (a cursor's), and its columns. */
    record Opened(List<Column> columns, OpenQuery rows) {
    }

    /** Starts a query whose rows are read as they are needed (DECLARE's): see {@link OpenQuery}. */
    CompletableFuture<Opened> open(QueryStatement q, List<Object> parameters, QueryEngine.Cancel cancel) {
        return node.openQuery(q, parameters, user, database, session, cancel).handle((rows, e) -> {
            if (e != null) {
                throw failure(q, e);
            }
            return new Opened(columns(rows.columns()), rows);
        });
    }

    /** A query's failure, with its position moved to where the statement starts in its query string. */
    private static CompletionException failure(QueryStatement q, Throwable e) {
        Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
        if (cause instanceof CoilgunException ce && ce.position() > 0) {
            return new CompletionException(new CoilgunException(ce.state(), ce.getMessage(),
                    ce.position() + q.position() - 1, ce));
        }
        return new CompletionException(cause);
    }

    /** The columns of a query's rows, in the types pgwire sends (text for a type it does not know). */
    static List<Column> columns(QueryEngine.Rows rows) {
        List<Column> columns = new ArrayList<>(rows.names().size());
        for (int i = 0; i < rows.names().size(); i++) {
            PgType type = PgType.of(rows.typeOids().get(i));
            columns.add(new Column(rows.names().get(i), type == null ? PgType.TEXT : type));
        }
        return columns;
    }
}
