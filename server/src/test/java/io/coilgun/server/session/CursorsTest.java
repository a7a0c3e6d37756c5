package io.coilgun.server.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.coilgun.pgwire.spi.Column;
import io.coilgun.pgwire.spi.PgException;
import io.coilgun.pgwire.spi.PgType;
import io.coilgun.pgwire.spi.QueryResult;
import io.coilgun.sql.compile.CursorStatement;
import io.coilgun.sql.compile.QueryStatement;
import io.coilgun.sql.compile.TransactionStatement;
import io.coilgun.sql.parser.SqlCursor.Direction;
import io.coilgun.sql.parser.SqlCursor.Kind;
import io.coilgun.sql.parser.SqlTransaction;
import io.coilgun.sql.query.OpenQuery;
import io.coilgun.sql.query.QueryEngine;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** The session's cursors by name: DECLARE, FETCH, MOVE and CLOSE, and how long a cursor lives. */
class CursorsTest {
    static final List<Column> COLUMNS = List.of(new Column("n", PgType.INT8));
    static final QueryStatement QUERY = new QueryStatement("SELECT n FROM t", 1, List.of("n"));

    final TransactionBlock block = new TransactionBlock();
    final Cursors cursors = new Cursors(block);
    /** The queries DECLARE ran. */
    final List<QueryStatement> ran = new ArrayList<>();

    CursorsTest() {
        block.onEnd(cursors::blockEnded);
    }

    QueryResult run(CursorStatement cs) {
        return cursors.run(cs, "-- the query string\n" + cs.kind(), q -> {
            ran.add(q);
            List<Object[]> rows = List.of(new Object[] {1L}, new Object[] {2L}, new Object[] {3L});
            OpenQuery stream = OpenQuery.of(new QueryEngine.Rows(List.of("n"), List.of(20), rows));
            return CompletableFuture.completedFuture(new QueryRunner.Opened(COLUMNS, stream));
        }, new QueryEngine.Cancel(), Runnable::run).join();
    }

    static CursorStatement declare(String name, boolean hold) {
        return new CursorStatement(Kind.DECLARE, name, QUERY, hold, false, null, 0);
    }

    static CursorStatement fetch(String name, long count) {
        return new CursorStatement(Kind.FETCH, name, null, false, false, Direction.FORWARD, count);
    }

    static CursorStatement move(String name, long count) {
        return new CursorStatement(Kind.MOVE, name, null, false, false, Direction.FORWARD, count);
    }

    static CursorStatement close(String name) {
        return new CursorStatement(Kind.CLOSE, name, null, false, false, null, 0);
    }

    void transaction(SqlTransaction.Kind kind) {
        block.run(new TransactionStatement(kind, null));
    }

    static void fails(String state, Runnable statement) {
        assertEquals(state, assertThrows(PgException.class, statement::run).sqlState());
    }

    @Test
    void declareRunsTheQueryAndFetchHandsOutItsRows() {
        transaction(SqlTransaction.Kind.BEGIN);
        assertEquals("DECLARE CURSOR", run(declare("c", false)).commandTag());
        assertEquals(List.of(QUERY), ran);
        assertEquals(COLUMNS, cursors.columns("c"));

        QueryResult two = run(fetch("c", 2));
        assertEquals("FETCH 2", two.commandTag());
        assertEquals(COLUMNS, two.columns());
        assertEquals(List.of(1L, 2L), two.rows().stream().map(r -> r[0]).toList());
        assertEquals("MOVE 1", run(move("c", 5)).commandTag());
        assertEquals("FETCH 0", run(fetch("c", 1)).commandTag());
        assertEquals(1, ran.size(), "the rows were read once, when it was declared");
    }

    @Test
    void aCursorWithoutHoldLivesInItsBlock() {
        fails("25P01", () -> run(declare("c", false)));
        assertEquals(List.of(), ran, "refused before its query runs");

        transaction(SqlTransaction.Kind.BEGIN);
        run(declare("c", false));
        run(declare("kept", true));
        transaction(SqlTransaction.Kind.COMMIT);
        assertNull(cursors.columns("c"));
        fails("34000", () -> run(fetch("c", 1)));
        assertEquals("FETCH 1", run(fetch("kept", 1)).commandTag(), "WITH HOLD outlives its block");
    }

    @Test
    void aCursorWithHoldNeedsNoBlock() {
        run(declare("c", true));
        transaction(SqlTransaction.Kind.ROLLBACK);
        assertEquals("FETCH 3", run(fetch("c", Long.MAX_VALUE)).commandTag());
    }

    @Test
    void namesAreUnique() {
        run(declare("c", true));
        fails("42P03", () -> run(declare("c", true)));
        assertEquals(1, ran.size());
    }

    @Test
    void closeForgetsOneOrAll() {
        run(declare("a", true));
        run(declare("b", true));
        assertEquals("CLOSE CURSOR", run(close("a")).commandTag());
        fails("34000", () -> run(close("a")));
        fails("34000", () -> run(move("a", 1)));
        assertEquals(1, cursors.describeAll().size());
        assertEquals("CLOSE CURSOR", run(close(null)).commandTag()); // CLOSE ALL
        assertEquals(List.of(), cursors.describeAll());
    }

    @Test
    void pgCursorsListsEveryCursor() {
        run(declare("c", true));
        List<Object[]> rows = cursors.describeAll();
        assertEquals(1, rows.size());
        assertEquals("c", rows.get(0)[0]);
        assertEquals("-- the query string\nDECLARE", rows.get(0)[1], "the statement is the query string it came in");
        assertEquals(true, rows.get(0)[2]);
    }
}
