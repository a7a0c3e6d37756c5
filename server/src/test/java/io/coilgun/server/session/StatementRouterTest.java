package io.coilgun.server.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.coilgun.pgwire.spi.PgException;
import io.coilgun.pgwire.spi.QueryResult;
import io.coilgun.sql.compile.CompiledStatement;
import io.coilgun.sql.compile.CopyStatement;
import io.coilgun.sql.compile.CopyToStatement;
import io.coilgun.sql.compile.CreateMetricStatement;
import io.coilgun.sql.compile.CreateStreamStatement;
import io.coilgun.sql.compile.CursorStatement;
import io.coilgun.sql.compile.DropMetricStatement;
import io.coilgun.sql.compile.DropStreamStatement;
import io.coilgun.sql.compile.ExplainStatement;
import io.coilgun.sql.compile.InsertStatement;
import io.coilgun.sql.compile.QueryStatement;
import io.coilgun.sql.compile.ReplayStatement;
import io.coilgun.sql.compile.SetStatement;
import io.coilgun.sql.compile.ShowStatement;
import io.coilgun.sql.compile.SqlStatement;
import io.coilgun.sql.compile.SubscribeStatement;
import io.coilgun.sql.compile.TransactionStatement;
import io.coilgun.sql.parser.PgSyntax;
import io.coilgun.sql.query.QueryEngine;
import java.lang.reflect.Constructor;
import java.lang.reflect.RecordComponent;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Each kind of statement reaches the room that runs it, over a {@link FakeNode} (the real compiler and catalog, no
 * Kafka). INSERT, COPY data and SUBSCRIBE need ingest and the result feed: the integration tests run them.
 */
class StatementRouterTest {
    final FakeNode node = new FakeNode();
    final SessionSettings settings = new SessionSettings("alice", "test");
    final TransactionBlock block = new TransactionBlock();
    final Cursors cursors = new Cursors(block);
    final StatementRouter router = new StatementRouter(node, "alice", settings,
            new QueryRunner(node, "alice", "coilgun", null), cursors, block, new Subscriptions(null));

    @BeforeEach
    void payments() {
        block.onEnd(cursors::blockEnded);
        run(FakeNode.PAYMENTS);
        node.calls.clear();
    }

    static ParsedSqlStatement parse(String sql) {
        PgSyntax.Rewritten rewritten = PgSyntax.rewrite(sql);
        return new ParsedSqlStatement(SqlStatement.parse(rewritten.sql()).get(0), sql, rewritten);
    }

    QueryResult run(String sql) {
        ParsedSqlStatement st = parse(sql);
        CompiledStatement compiled = node.compiler().compile(st.statement(), List.of());
        return router.run(compiled, new StatementRouter.Execution(st, List.of(), null, 0, new QueryEngine.Cancel()))
                .join();
    }

    @Test
    void aQueryRunsOnTheNode() {
        QueryResult r = run("SELECT n FROM t");
        assertEquals(List.of("query SELECT n FROM t"), node.calls);
        assertEquals("SELECT 3", r.commandTag());
        assertEquals("n", r.columns().get(0).name());
    }

    @Test
    void ddlRunsOnTheNode() {
        assertEquals("CREATE METRIC", run(FakeNode.CARD_5M).commandTag());
        assertEquals("ALTER STREAM", run("ALTER STREAM payments ADD COLUMN merchant_id VARCHAR").commandTag());
        assertEquals("DROP METRIC", run("DROP METRIC card_5m").commandTag());
        QueryResult drop = run("DROP STREAM payments");
        assertEquals("DROP STREAM", drop.commandTag());
        assertEquals(List.of("a notice"), drop.notices());
        assertEquals(List.of("createMetric card_5m", "alterStream payments", "dropMetric card_5m",
                "dropStream payments"), node.calls);
    }

    @Test
    void setAndShowUseTheSessionSettings() {
        assertEquals("SET", run("SET statement_timeout = '2s'").commandTag());
        assertEquals(2000, settings.statementTimeoutMs());
        QueryResult show = run("SHOW statement_timeout");
        assertEquals("SHOW", show.commandTag());
        assertEquals("2s", show.rows().get(0)[0]);
        assertEquals("RESET", run("RESET statement_timeout").commandTag());
        assertEquals(0, settings.statementTimeoutMs());
        assertEquals(ResultShapes.SHOW_ALL, run("SHOW ALL").columns());
        assertEquals(List.of(), node.calls);
    }

    @Test
    void catalogRowsAndExplainAreAnsweredAsTheyAre() {
        QueryResult streams = run("SHOW STREAMS");
        assertEquals("SHOW 1", streams.commandTag());
        assertEquals("payments", streams.rows().get(0)[0]);
        QueryResult explain = run("EXPLAIN STREAM payments");
        assertEquals("EXPLAIN", explain.commandTag());
        assertEquals(ResultShapes.EXPLAIN, explain.columns());
        assertFalse(explain.rows().isEmpty());
        assertEquals(List.of(), node.calls);
    }

    @Test
    void transactionStatementsGoToTheBlockAndCursorStatementsToTheCursors() {
        assertEquals("BEGIN", run("BEGIN").commandTag());
        assertEquals('T', block.status());
        assertEquals("DECLARE CURSOR", run("DECLARE c CURSOR FOR SELECT n FROM t").commandTag());
        assertEquals(List.of("open SELECT n FROM t"), node.calls);
        assertEquals("FETCH 2", run("FETCH 2 FROM c").commandTag());
        assertEquals("COMMIT", run("COMMIT").commandTag());
        assertNull(cursors.columns("c"), "a cursor without hold ended with its block");
    }

    @Test
    void copyFromStdinWaitsForItsData() {
        QueryResult r = run("COPY payments FROM STDIN WITH (FORMAT csv)");
        assertNotNull(r.copyIn());
        assertEquals(List.of(), node.calls);
    }

    @Test
    void copyToRunsItsStatementAndSendsItsRows() {
        QueryResult query = run("COPY (SELECT n FROM t) TO STDOUT WITH (FORMAT csv)");
        assertEquals(List.of("query SELECT n FROM t"), node.calls);
        assertNotNull(query.copyOut());
        assertEquals(List.of(1L), List.of(query.stream().poll()[0]));

        QueryResult show = run("COPY (SHOW STREAMS) TO STDOUT");
        assertEquals("payments", show.stream().poll()[0]);
    }

    @Test
    void replayStartsOnTheNodeAndStreams() {
        run(FakeNode.CARD_5M);
        QueryResult r = run("REPLAY SELECT COUNT(*) AS n FROM payments GROUP BY card_id OVER SLIDING 1 HOUR");
        assertEquals("REPLAY", r.commandTag());
        assertNotNull(r.stream());
        assertTrue(node.calls.get(1).startsWith("startReplay"), node.calls::toString);
    }

    @Test
    void copyToNeedsAStatementThatReturnsRows() {
        assertTrue(CopyTo.returnsRows(new QueryStatement("SELECT 1", 1, List.of("x"))));
        assertTrue(CopyTo.returnsRows(new ShowStatement("all")));
        assertTrue(CopyTo.returnsRows(new ExplainStatement(List.of())));
        assertTrue(CopyTo.returnsRows(new InsertStatement(null, List.of(), true)));
        assertTrue(CopyTo.returnsRows(new SubscribeStatement(null, null, null, new int[0], List.of(), List.of(),
                List.of(), null)));
        assertTrue(CopyTo.returnsRows(new ReplayStatement(null, null, 0, 0, null)));
        assertFalse(CopyTo.returnsRows(new InsertStatement(null, List.of(), false)));
        assertFalse(CopyTo.returnsRows(new SetStatement("x", "1")));
        assertFalse(CopyTo.returnsRows(new TransactionStatement(null, null)));
        assertFalse(CopyTo.returnsRows(new CreateStreamStatement(null, false)));
        assertFalse(CopyTo.returnsRows(new CreateMetricStatement(null, false)));
        assertFalse(CopyTo.returnsRows(new DropMetricStatement("m", false)));
        assertFalse(CopyTo.returnsRows(new CopyStatement(null, null, List.of(), Map.of())));
        assertFalse(CopyTo.returnsRows(new CopyToStatement(null, null, Map.of())));
        assertFalse(CopyTo.returnsRows(new CursorStatement(null, null, null, false, false, null, 0)));
        assertTrue(CopyTo.returnsRows(new DropStreamStatement("s", false, false)),
                "not refused here; the compiler refuses it as COPY's source");
    }

    @Test
    void copyToRefusesAStatementWithoutRowsBeforeItRuns() {
        PgException e = assertThrows(PgException.class,
                () -> run("COPY (INSERT INTO payments VALUES (1, TIMESTAMP '2026-01-01 00:00:00', 'c', 1.0)) "
                        + "TO STDOUT"));
        assertEquals("0A000", e.sqlState());
        assertEquals(List.of(), node.calls);
    }

    /** A new kind of statement (CompiledStatement is sealed) must get a route: this fails until it has one. */
    @Test
    void everyKindOfStatementHasARoute() throws ReflectiveOperationException {
        for (Class<?> kind : CompiledStatement.class.getPermittedSubclasses()) {
            RecordComponent[] components = kind.getRecordComponents();
            Class<?>[] types = new Class<?>[components.length];
            Object[] values = new Object[components.length];
            for (int i = 0; i < components.length; i++) {
                types[i] = components[i].getType();
                values[i] = defaultValue(types[i]);
            }
            Constructor<?> canonical = kind.getDeclaredConstructor(types);
            CompiledStatement statement = (CompiledStatement) canonical.newInstance(values);
            try {
                router.run(statement, new StatementRouter.Execution(parse("SELECT 1"), List.of(), null, 0,
                        new QueryEngine.Cancel()));
            } catch (IllegalStateException e) {
                if (String.valueOf(e.getMessage()).startsWith("unhandled statement")) {
                    fail(kind.getSimpleName() + " has no route");
                }
            } catch (RuntimeException e) {
                // routed: the room found the empty statement wanting, which is all this test asks
            }
        }
    }

    private static Object defaultValue(Class<?> type) {
        if (type == boolean.class) {
            return false;
        } else if (type == int.class) {
            return 0;
        } else if (type == long.class) {
            return 0L;
        } else if (type == int[].class) {
            return new int[0];
        } else if (type == List.class) {
            return List.of();
        } else if (type == Map.class) {
            return Map.of();
        } else if (type == java.util.Set.class) {
            return java.util.Set.of();
        }
        return null;
    }
}
