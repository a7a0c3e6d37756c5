package io.coilgun.server.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coilgun.pgwire.spi.PgException;
import io.coilgun.pgwire.spi.QueryResult;
import io.coilgun.pgwire.spi.StartupInfo;
import io.coilgun.pgwire.spi.Statement;
import io.coilgun.sql.query.SessionActivity;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

/**
 * The session as pgwire drives it, over a {@link FakeNode}: what it wires together (the transaction block's
 * refusals, cursors, cancel, the statement meters, pg_stat_activity), not what each room does.
 */
class CoilgunSessionTest {
    final FakeNode node = new FakeNode();
    final CoilgunSession session = new CoilgunSession(node,
            new StartupInfo("alice", "", Map.of("application_name", "test", "statement_timeout", "5s")));

    CoilgunSessionTest() {
        session.started(42, new InetSocketAddress("127.0.0.1", 5000));
    }

    CompletableFuture<QueryResult> execute(String sql) {
        List<Statement> statements = session.parse(sql);
        assertEquals(1, statements.size());
        return session.execute(statements.get(0), List.of()).toCompletableFuture();
    }

    /** As pgwire does: an error sent to the client is told to the session. */
    QueryResult run(String sql) {
        try {
            return execute(sql).join();
        } catch (CompletionException e) {
            session.statementFailed();
            throw (PgException) e.getCause();
        }
    }

    void fails(String state, String sql) {
        assertEquals(state, assertThrows(PgException.class, () -> run(sql)).sqlState(), sql);
    }

    @Test
    void anErrorInABlockRefusesEveryStatementUntilItEnds() {
        run(FakeNode.PAYMENTS);
        run("BEGIN");
        assertEquals('T', session.transactionStatus());
        fails("42P01", "DROP METRIC nowhere");
        assertEquals('E', session.transactionStatus());
        fails("25P02", "SHOW STREAMS");
        fails("25P02", "SELECT n FROM t");
        fails("25P02", "BEGIN");
        fails("25P02", "DROP METRIC nowhere"); // what does not compile is refused the same way
        assertEquals(List.of(), node.calls.stream().filter(c -> c.startsWith("query")).toList(),
                "a refused statement does not run");
        assertEquals("ROLLBACK", run("COMMIT").commandTag());
        assertEquals('I', session.transactionStatus());
        assertEquals("SHOW 1", run("SHOW STREAMS").commandTag());
    }

    @Test
    void cursorsAreTheSessions() {
        run("BEGIN");
        run("DECLARE c CURSOR FOR SELECT n FROM t");
        assertEquals("n", session.cursorColumns("c").get(0).name());
        assertEquals("FETCH 3", run("FETCH ALL FROM c").commandTag());
        run("END");
        assertNull(session.cursorColumns("c"));
    }

    @Test
    void startupParametersAreSettings() {
        assertEquals("5s", run("SHOW statement_timeout").rows().get(0)[0]);
        assertEquals("test", run("SHOW application_name").rows().get(0)[0]);
    }

    @Test
    void everyStatementIsMetered() {
        run("SELECT n FROM t");
        fails("42P01", "DROP METRIC nowhere");
        assertEquals(List.of("query SELECT n FROM t", "statementDone select false", "statementDone invalid true"),
                node.calls);
    }

    @Test
    void cancelEndsTheRunningStatement() {
        node.queriesHang = true;
        CompletableFuture<QueryResult> running = execute("SELECT n FROM t");
        assertEquals("active", activity().state());
        session.cancel();
        CompletionException e = assertThrows(CompletionException.class, running::join);
        assertEquals("57014", assertInstanceOf(PgException.class, e.getCause()).sqlState());
        assertEquals("idle", activity().state());
        assertTrue(node.calls.contains("statementDone select true"), node.calls::toString);
        session.cancel(); // nothing runs: nothing happens
    }

    @Test
    void pgStatActivityShowsTheSession() {
        SessionActivity idle = activity();
        assertEquals(42, idle.pid());
        assertEquals("alice", idle.user());
        assertEquals("alice", idle.database(), "no database given: the user's");
        assertEquals("127.0.0.1", idle.clientAddr());
        assertEquals("idle", idle.state());
        assertNull(idle.xactStart());
        run("BEGIN");
        SessionActivity inBlock = activity();
        assertEquals("idle in transaction", inBlock.state());
        assertEquals("BEGIN", inBlock.query());
        assertTrue(inBlock.xactStart() != null);
        session.close();
        assertEquals(0, node.sessions.size());
    }

    SessionActivity activity() {
        assertEquals(1, node.sessions.activity().size());
        return node.sessions.activity().get(0);
    }
}
