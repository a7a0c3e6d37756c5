package io.coilgun.server.session;

import io.coilgun.pgwire.spi.Column;
import io.coilgun.pgwire.spi.PgException;
import io.coilgun.pgwire.spi.QueryResult;
import io.coilgun.planner.error.SqlState;
import io.coilgun.sql.compile.CursorStatement;
import io.coilgun.sql.compile.QueryStatement;
import io.coilgun.sql.parser.SqlCursor;
import io.coilgun.sql.query.QueryEngine;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.function.Function;

/**
 * A session's cursors by name, and the statements on them. DECLARE starts the cursor's query; FETCH and MOVE read it
 * as far as they go, on the node's query threads ({@link Cursor}: nothing is read ahead, so a cursor over ten million
 * rows holds a batch of them, and a scrollable one keeps the rows it passed in a file); CLOSE ends it. As in
 * Postgres, a cursor WITHOUT HOLD lives in a transaction block only: it cannot be declared outside one, and it ends
 * with its block ({@link #blockEnded}).
 */
final class Cursors {
    private final TransactionBlock block;
    /** Read from query threads too (pg_cursors, Describe). */
    private final Map<String, Cursor> cursors = new ConcurrentHashMap<>();

    Cursors(TransactionBlock block) {
        this.block = block;
    }

    /**
     * Runs DECLARE, FETCH, MOVE or CLOSE; refuses at once (throws) what Postgres refuses before it runs.
     *
     * @param source the query string the statement came from, as pg_cursors shows it
     * @param open starts DECLARE's query (on a query thread)
     * @param cancel the statement's: stops a FETCH or MOVE that reads
     * @param reader the threads FETCH and MOVE read the query on
     */
    CompletableFuture<QueryResult> run(CursorStatement cs, String source,
            Function<QueryStatement, CompletableFuture<QueryRunner.Opened>> open, QueryEngine.Cancel cancel,
            Executor reader) {
        switch (cs.kind()) {
            case DECLARE -> {
                if (!cs.hold()) {
                    block.require("DECLARE CURSOR");
                }
                if (cursors.containsKey(cs.name())) {
                    throw new PgException(SqlState.DUPLICATE_CURSOR.code(),
                            "cursor \"" + cs.name() + "\" already exists");
                }
                return open.apply(cs.query()).thenApply(o -> {
                    Cursor c = new Cursor(o.columns(), o.rows(), cs.hold(), cs.noScroll(), source);
                    Cursor before = cursors.putIfAbsent(cs.name(), c);
                    if (before != null) {
                        c.close();
                        throw new PgException(SqlState.DUPLICATE_CURSOR.code(),
                                "cursor \"" + cs.name() + "\" already exists");
                    }
                    return QueryResult.command("DECLARE CURSOR");
                });
            }
            case FETCH, MOVE -> {
                Cursor c = cursors.get(cs.name());
                if (c == null) {
                    throw noSuchCursor(cs.name());
                }
                boolean move = cs.kind() == SqlCursor.Kind.MOVE;
                return CompletableFuture.supplyAsync(() -> {
                    Cursor.Moved m = c.fetch(cs.direction(), cs.count(), !move, cancel);
                    return move ? QueryResult.command("MOVE " + m.count())
                            : new QueryResult(c.columns(), m.rows(), "FETCH " + m.count());
                }, reader);
            }
            default -> {
                if (cs.name() == null) {
                    closeAll(); // CLOSE ALL
                } else {
                    Cursor c = cursors.remove(cs.name());
                    if (c == null) {
                        throw noSuchCursor(cs.name());
                    }
                    c.close();
                }
                return CompletableFuture.completedFuture(QueryResult.command("CLOSE CURSOR"));
            }
        }
    }

    private static PgException noSuchCursor(String name) {
        return new PgException(SqlState.INVALID_CURSOR_NAME.code(), "cursor \"" + name + "\" does not exist");
    }

    /** The columns of the cursor {@code name}, or null when there is none. */
    List<Column> columns(String name) {
        Cursor c = cursors.get(name);
        return c == null ? null : c.columns();
    }

    /** The cursors as {@code pg_cursors} rows. */
    List<Object[]> describeAll() {
        List<Object[]> rows = new ArrayList<>();
        cursors.forEach((name, c) -> rows.add(c.describe(name)));
        return rows;
    }

    /** The transaction block ended (COMMIT or ROLLBACK): its cursors WITHOUT HOLD end with it. */
    void blockEnded() {
        cursors.values().removeIf(c -> {
            if (!c.hold()) {
                c.close();
            }
            return !c.hold();
        });
    }

    /** CLOSE ALL, and the session's end: every cursor's query ends. */
    void closeAll() {
        cursors.values().removeIf(c -> {
            c.close();
            return true;
        });
    }
}
