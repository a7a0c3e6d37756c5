package io.coilgun.server.session;

import io.coilgun.pgwire.spi.Column;
import io.coilgun.pgwire.spi.PgType;
import io.coilgun.pgwire.spi.QueryResult;
import io.coilgun.server.access.Privileges;
import io.coilgun.sql.compile.AlterStreamStatement;
import io.coilgun.sql.compile.CompiledStatement;
import io.coilgun.sql.compile.CopyStatement;
import io.coilgun.sql.compile.CopyToStatement;
import io.coilgun.sql.compile.CreateMetricStatement;
import io.coilgun.sql.compile.CreateSinkStatement;
import io.coilgun.sql.compile.CreateStreamStatement;
import io.coilgun.sql.compile.CursorStatement;
import io.coilgun.sql.compile.DropMetricStatement;
import io.coilgun.sql.compile.DropSinkStatement;
import io.coilgun.sql.compile.DropStreamStatement;
import io.coilgun.sql.compile.ExplainStatement;
import io.coilgun.sql.compile.GrantStatement;
import io.coilgun.sql.compile.InsertStatement;
import io.coilgun.sql.compile.QueryStatement;
import io.coilgun.sql.compile.ReplayStatement;
import io.coilgun.sql.compile.RoleStatement;
import io.coilgun.sql.compile.RowsStatement;
import io.coilgun.sql.compile.SetStatement;
import io.coilgun.sql.compile.ShowStatement;
import io.coilgun.sql.compile.SubscribeStatement;
import io.coilgun.sql.compile.TransactionStatement;
import io.coilgun.sql.query.QueryEngine;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A session's dispatch: which room runs a compiled statement, one branch per kind. Queries go to the
 * {@link QueryRunner}; DECLARE, FETCH, MOVE and CLOSE to {@link Cursors}; BEGIN, COMMIT, ROLLBACK and savepoints to
 * the {@link TransactionBlock}; SUBSCRIBE to {@link Subscriptions}; COPY TO to {@link CopyTo}, whose inner statement
 * comes back here; COPY FROM to a {@link StreamCopyIn}; INSERT to the node's {@link Inserter}; DDL and REPLAY to the
 * node; SET and SHOW to the session's settings. EXPLAIN and statements answered from the catalog have their rows.
 *
 * <p>A statement the room refuses before it runs throws; one that fails later completes its future exceptionally.
 */
final class StatementRouter {
    /**
     * One execution of a statement.
     *
     * @param described the result columns the client was told for the statement (Describe), or null
     * @param timeoutMs statement_timeout when it started (0 for none)
     * @param cancel stops the statement's query when it is canceled or times out
     */
    record Execution(ParsedSqlStatement statement, List<Object> parameters, List<Column> described, long timeoutMs,
            QueryEngine.Cancel cancel) {
        /** The execution of COPY TO's inner statement, whose client was told no columns of its own. */
        Execution inner() {
            return new Execution(statement, parameters, null, timeoutMs, cancel);
        }
    }

    private final SessionServices node;
    private final String user;
    private final SessionSettings settings;
    private final QueryRunner queries;
    private final Cursors cursors;
    private final TransactionBlock block;
    private final Subscriptions subscriptions;
    private final CopyTo copyTo;

    StatementRouter(SessionServices node, String user, SessionSettings settings, QueryRunner queries, Cursors cursors,
            TransactionBlock block, Subscriptions subscriptions) {
        this.node = node;
        this.user = user;
        this.settings = settings;
        this.queries = queries;
        this.cursors = cursors;
        this.block = block;
        this.subscriptions = subscriptions;
        this.copyTo = new CopyTo(node.compiler());
    }

    CompletableFuture<QueryResult> run(CompiledStatement compiled, Execution x) {
        // 42501 before anything runs: what the statement compiled against (the session asked before it compiled)
        Privileges privileges = node.privileges();
        if (!privileges.superuser(user)) {
            privileges.check(user, node.compiler().needs(compiled));
        }
        if (compiled instanceof QueryStatement q) {
            return queries.run(q, x.parameters(), x.cancel());
        } else if (compiled instanceof CursorStatement cs) {
            return cursors.run(cs, x.statement().source(), q -> queries.open(q, x.parameters(), x.cancel()), x.cancel(),
                    node.queryExecutor());
        } else if (compiled instanceof CopyToStatement copy) {
            return copyTo.start(copy, x.statement().statement(), x.parameters(), inner -> run(inner, x.inner()));
        } else if (compiled instanceof TransactionStatement tx) {
            return CompletableFuture.completedFuture(block.run(tx));
        } else if (compiled instanceof SubscribeStatement sub) {
            return CompletableFuture.completedFuture(subscriptions.start(sub, x.timeoutMs()));
        } else if (compiled instanceof ReplayStatement replay) {
            return replay(replay, x.timeoutMs());
        } else if (compiled instanceof InsertStatement ins) {
            return node.inserter().insert(ins, x.described());
        } else if (compiled instanceof CopyStatement copy) {
            return CompletableFuture.completedFuture(QueryResult.copyIn(
                    new StreamCopyIn(copy, node.compiler(), node.inserter(), node.queryExecutor(), x.timeoutMs())));
        } else if (compiled instanceof CreateStreamStatement cs) {
            return owned(node.createStream(cs), cs.stream().name(), "CREATE STREAM");
        } else if (compiled instanceof AlterStreamStatement as) {
            return node.alterStream(as).thenApply(v -> QueryResult.command("ALTER STREAM"));
        } else if (compiled instanceof DropStreamStatement ds) {
            return node.dropStream(ds).thenApply(notices -> new QueryResult(List.of(), List.of(), "DROP STREAM",
                    notices));
        } else if (compiled instanceof CreateMetricStatement cm) {
            return owned(node.createMetric(cm), cm.metric().name(), "CREATE METRIC");
        } else if (compiled instanceof DropMetricStatement dm) {
            return node.dropMetric(dm).thenApply(v -> QueryResult.command("DROP METRIC"));
        } else if (compiled instanceof CreateSinkStatement cs) {
            return owned(node.createSink(cs), cs.sink().name(), "CREATE SINK");
        } else if (compiled instanceof DropSinkStatement ds) {
            return node.dropSink(ds).thenApply(v -> QueryResult.command("DROP SINK"));
        } else if (compiled instanceof RoleStatement rs) {
            return node.role(rs).thenApply(v -> QueryResult.command(rs.tag()));
        } else if (compiled instanceof GrantStatement gs) {
            return node.grant(gs).thenApply(v -> QueryResult.command(gs.grant() ? "GRANT" : "REVOKE"));
        } else if (compiled instanceof SetStatement set) {
            settings.set(set.name(), set.value());
            return CompletableFuture.completedFuture(QueryResult.command(set.value() == null ? "RESET" : "SET"));
        } else if (compiled instanceof ShowStatement show) {
            return CompletableFuture.completedFuture(show(show.name()));
        } else if (compiled instanceof ExplainStatement ex) {
            return CompletableFuture.completedFuture(new QueryResult(ResultShapes.EXPLAIN,
                    ex.lines().stream().map(l -> new Object[] {l}).toList(), "EXPLAIN"));
        } else if (compiled instanceof RowsStatement rs) {
            return CompletableFuture.completedFuture(new QueryResult(ResultShapes.textColumns(rs.columns()),
                    rs.rows().stream().map(r -> (Object[]) r).toList(), rs.tag() + " " + rs.rows().size()));
        }
        throw new IllegalStateException("unhandled statement " + compiled);
    }

    /**
     * A CREATE's future, then its creator noted as the new object's owner (an IF NOT EXISTS that found the object
     * notes no one: the object keeps its owner).
     */
    private CompletableFuture<QueryResult> owned(CompletableFuture<Void> created, String object, String tag) {
        return created.thenCompose(v -> node.own(object, user)).thenApply(v -> QueryResult.command(tag));
    }

    /** REPLAY: a stream of rows from every task of the metric, ended by statement_timeout as any statement is. */
    private CompletableFuture<QueryResult> replay(ReplayStatement replay, long timeoutMs) {
        return node.startReplay(replay).thenApply(replays -> {
            ReplayRows rows = new ReplayRows(replay, replays);
            rows.onRelease(StatementTimeout.after(timeoutMs, () -> rows.fail(StatementTimeout.expired())));
            return QueryResult.stream(Subscription.columns(replay.shape()), rows, "REPLAY");
        });
    }

    private QueryResult show(String name) {
        if (name.equals("all")) {
            return new QueryResult(ResultShapes.SHOW_ALL, settings.all(), "SHOW");
        }
        String value = settings.get(name);
        return new QueryResult(List.of(new Column(settings.displayName(name), PgType.TEXT)),
                List.<Object[]>of(new Object[] {value}), "SHOW");
    }
}
