package io.coilgun.server.session;

import io.coilgun.pgwire.spi.Column;
import io.coilgun.pgwire.spi.PgException;
import io.coilgun.pgwire.spi.QueryResult;
import io.coilgun.planner.error.SqlState;
import io.coilgun.sql.compile.CursorStatement;
import io.coilgun.sql.compile.QueryStatement;
import io.coilgun.sql.parser.SqlCursor;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * A session's cursors by name, and the statements on them. DECLARE runs the cursor's query now and keeps its rows
 * (a SELECT over metrics and streams is a bounded snapshot); FETCH and MOVE read them; CLOSE forgets them. As in
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
     * @param query runs DECLARE's query
     */
    CompletableFuture<QueryResult> run(CursorStatement cs, String source,
            Function<QueryStatement, CompletableFuture<QueryResult>> query) {
        switch (cs.kind()) {
            case DECLARE -> {
                if (!cs.hold()) {
                    block.require("DECLARE CURSOR");
                }
                if (cursors.containsKey(cs.name())) {
                    throw new PgException(SqlState.DUPLICATE_CURSOR.code(),
                            "cursor \"" + cs.name() + "\" already exists");
                }
                return query.apply(cs.query()).thenApply(r -> {
                    cursors.put(cs.name(), new Cursor(r.columns(), r.rows(), cs.hold(), cs.noScroll(), source));
                    return QueryResult.command("DECLARE CURSOR");
                });
            }
            case FETCH, MOVE -> {
                Cursor c = cursors.get(cs.name());
                if (c == null) {
                    throw noSuchCursor(cs.name());
                }
                List<Object[]> rows = c.fetch(cs.direction(), cs.count());
                return CompletableFuture.completedFuture(cs.kind() == SqlCursor.Kind.MOVE
                        ? QueryResult.command("MOVE " + rows.size())
                        : new QueryResult(c.columns(), rows, "FETCH " + rows.size()));
            }
            default -> {
                if (cs.name() == null) {
                    cursors.clear(); // CLOSE ALL
                } else if (cursors.remove(cs.name()) == null) {
                    throw noSuchCursor(cs.name());
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
        cursors.values().removeIf(c -> !c.hold());
    }
}
