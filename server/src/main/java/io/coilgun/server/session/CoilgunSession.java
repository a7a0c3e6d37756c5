package io.coilgun.server.session;

import io.coilgun.pgwire.spi.Column;
import io.coilgun.pgwire.spi.PgException;
import io.coilgun.pgwire.spi.PgType;
import io.coilgun.pgwire.spi.QueryResult;
import io.coilgun.pgwire.spi.Session;
import io.coilgun.pgwire.spi.StartupInfo;
import io.coilgun.pgwire.spi.Statement;
import io.coilgun.planner.error.CoilgunException;
import io.coilgun.planner.error.SqlState;
import io.coilgun.planner.model.ColumnType;
import io.coilgun.server.access.Privileges;
import io.coilgun.sql.compile.CompiledStatement;
import io.coilgun.sql.compile.QueryStatement;
import io.coilgun.sql.compile.SqlStatement;
import io.coilgun.sql.parser.PgSyntax;
import io.coilgun.sql.query.EmptyCatalogQuery;
import io.coilgun.sql.query.QueryEngine;
import io.coilgun.sql.query.QuerySession;
import io.coilgun.sql.query.SessionActivity;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

/**
 * A client connection's session, pgwire's {@link Session}: parses with the Coilgun SQL parser, asks whether its user
 * may run each statement (42501 before anything else about it is checked), compiles it against the catalog when it
 * runs (so a later statement of the same query sees an earlier CREATE), and hands it to the {@link StatementRouter},
 * which gives it to the room that runs it (queries, cursors, the transaction block, subscriptions, COPY, the node's
 * DDL and ingest). Never blocks the calling network thread.
 * Itself it keeps what every statement shares: the settings, the statement running (for cancel and
 * statement_timeout), the statement meters, and what pg_stat_activity shows of the session.
 */
public final class CoilgunSession implements Session {
    private final SessionServices node;
    private final SessionSettings settings;
    private final String user;
    private final String database;
    private final TransactionBlock block;
    private final Cursors cursors;
    private final Subscriptions subscriptions;
    private final StatementRouter router;
    /** The statement running, for cancel (which comes from another thread). */
    private volatile CompletableFuture<QueryResult> running;
    /** Stops the work of the running statement when it is canceled or times out (a SELECT's query), or null. */
    private volatile Runnable stopRunning;
    /** The process id the client was given (BackendKeyData), 0 until started, and where the client connects from. */
    private volatile int pid;
    private volatile SocketAddress client;
    private final long backendStart = System.currentTimeMillis();
    /** The statement running or last run, when it started, and when the state (active, idle) last changed. */
    private volatile String query = "";
    private volatile Long queryStart;
    private volatile long stateChange = backendStart;
    /** This session as the query engine's session functions see it (current_setting, pg_backend_pid, …). */
    private final QuerySession querySession = new QuerySession() {
        @Override
        public String setting(String name) {
            return settings.valueOrNull(name);
        }

        @Override
        public int backendPid() {
            return pid;
        }

        @Override
        public boolean cancelBackend(int other) {
            return node.sessions().cancel(other);
        }

        @Override
        public List<Object[]> cursors() {
            return cursors.describeAll();
        }
    };

    public CoilgunSession(SessionServices node, StartupInfo startup) {
        this.node = node;
        this.settings = new SessionSettings(startup.user(), startup.parameters().get("application_name"));
        // settings given at connection start: libpq's PGOPTIONS and pgjdbc's options ("-c name=value"), and the
        // statement_timeout some drivers (node-postgres) send as a startup parameter of its own
        settings.applyOptions(startup.parameters().get("options"));
        if (startup.parameters().containsKey(StatementTimeout.NAME)) {
            settings.set(StatementTimeout.NAME, startup.parameters().get(StatementTimeout.NAME));
        }
        this.user = startup.user();
        this.database = startup.database() == null || startup.database().isEmpty() ? startup.user()
                : startup.database();
        this.block = new TransactionBlock();
        this.cursors = new Cursors(block);
        block.onEnd(cursors::blockEnded);
        this.subscriptions = new Subscriptions(node.feed());
        this.router = new StatementRouter(node, user, settings, new QueryRunner(node, user, database, querySession),
                cursors, block, subscriptions);
    }

    @Override
    public List<Statement> parse(String text) {
        PgSyntax.Rewritten rewritten = PgSyntax.rewrite(text); // what the parser reads; positions in it map back
        String sql = rewritten.sql();
        try {
            List<Statement> statements = new ArrayList<>();
            for (SqlStatement p : SqlStatement.parse(sql)) {
                statements.add(new ParsedSqlStatement(p, text, rewritten));
            }
            return statements;
        } catch (CoilgunException e) {
            if (EmptyCatalogQuery.matches(sql)) {
                // a client's catalog query Coilgun cannot parse, over relations it never has rows in: no rows
                return List.of(new EmptyCatalogStatement(sql, EmptyCatalogQuery.columnNames(sql)));
            }
            throw ErrorMapper.toPg(e, rewritten::originalPosition);
        }
    }

    @Override
    public Statement prepare(Statement statement, int[] parameterTypeOids) {
        if (statement instanceof EmptyCatalogStatement empty) {
            return empty.prepared(parameterTypeOids);
        }
        ParsedSqlStatement st = (ParsedSqlStatement) statement;
        int count = parameterTypeOids.length;
        count = Math.max(count, st.statement().parameterCount());
        ColumnType[] inferred;
        try {
            inferred = node.compiler().parameterTypes(st.statement(), count);
        } catch (RuntimeException e) {
            throw ErrorMapper.toPg(e, st::clientPosition);
        }
        int[] queried = queryParameterTypes(st, count);
        List<PgType> types = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            int oid = i < parameterTypeOids.length ? parameterTypeOids[i] : 0;
            PgType declared = oid == 0 ? null : PgType.of(oid);
            if (declared != null) {
                types.add(declared);
            } else if (oid == 0 && inferred[i] != null) {
                types.add(Inserter.pgType(inferred[i]));
            } else if (oid == 0 && queried[i] != 0 && PgType.of(queried[i]) != null) {
                types.add(PgType.of(queried[i]));
            } else {
                types.add(PgType.UNKNOWN); // read as text, converted where the value is used
            }
        }
        return st.withParameterTypes(types);
    }

    /**
     * The types a query (SELECT …) gives its parameters, so that ParameterDescription tells the driver; all 0 for
     * other statements, or when the query does not validate (its Describe or Execute says why).
     */
    private int[] queryParameterTypes(ParsedSqlStatement st, int count) {
        if (count == 0 || !st.statement().isQuery()) {
            return new int[count];
        }
        try {
            CompiledStatement compiled = node.compiler().compile(st.statement());
            return compiled instanceof QueryStatement q ? node.queryParameterTypes(q, count, user, database)
                    : new int[count];
        } catch (RuntimeException e) {
            return new int[count];
        }
    }

    /** The numbers ($n) of the statement's parameters the client sends as numerics. */
    private static Set<Integer> numericParameters(ParsedSqlStatement st) {
        Set<Integer> numeric = new HashSet<>();
        List<PgType> types = st.parameterTypes();
        for (int i = 0; types != null && i < types.size(); i++) {
            if (types.get(i) == PgType.NUMERIC) {
                numeric.add(i + 1);
            }
        }
        return numeric;
    }

    /** A query is planned to be described: on a query thread, so that other connections do not wait for it. */
    @Override
    public CompletionStage<List<Column>> describeLater(Statement statement) {
        if (statement instanceof ParsedSqlStatement st && st.statement().isQuery()) {
            return CompletableFuture.supplyAsync(() -> describe(statement), node.queryExecutor());
        }
        return Session.super.describeLater(statement);
    }

    @Override
    public List<Column> describe(Statement statement) {
        if (statement instanceof EmptyCatalogStatement empty) {
            return ResultShapes.textColumns(empty.columns());
        }
        ParsedSqlStatement st = (ParsedSqlStatement) statement;
        try {
            authorize(st); // before the statement compiles to tell its columns
            // only a query's columns depend on its parameters' types (no set per INSERT on the event path)
            Set<Integer> numeric = st.statement().isQuery() ? numericParameters(st) : Set.of();
            List<Column> columns = ResultShapes.of(node, settings, st.statement(), numeric, user, database,
                    cursors::columns);
            st.described().set(columns);
            return columns;
        } catch (RuntimeException e) {
            throw ErrorMapper.toPg(e, st::clientPosition);
        }
    }

    @Override
    public CompletionStage<QueryResult> execute(Statement statement, List<Object> parameters) {
        if (block.failed() && !block.admits(compileOrNull(statement, parameters))) {
            return CompletableFuture.failedFuture(TransactionBlock.aborted());
        }
        if (statement instanceof EmptyCatalogStatement empty) {
            return CompletableFuture.completedFuture(new QueryResult(ResultShapes.textColumns(empty.columns()),
                    List.of(), "SELECT 0"));
        }
        ParsedSqlStatement st = (ParsedSqlStatement) statement;
        query = st.source();
        queryStart = System.currentTimeMillis();
        stateChange = queryStart;
        CompiledStatement compiled;
        long began = System.nanoTime();
        try {
            authorize(st);
            compiled = node.compiler().compile(st.statement(), parameters);
        } catch (RuntimeException e) {
            node.statementDone("invalid", true, System.nanoTime() - began);
            return CompletableFuture.failedFuture(ErrorMapper.toPg(e, st::clientPosition));
        }
        String kind = StatementKinds.of(compiled);
        long timeoutMs = settings.statementTimeoutMs();
        QueryEngine.Cancel cancel = new QueryEngine.Cancel();
        CompletableFuture<QueryResult> result;
        try {
            result = router.run(compiled, new StatementRouter.Execution(st, parameters, st.described().get(),
                    timeoutMs, cancel));
        } catch (RuntimeException e) {
            node.statementDone(kind, true, System.nanoTime() - began);
            return CompletableFuture.failedFuture(ErrorMapper.toPg(e, st::clientPosition));
        }
        CompletableFuture<QueryResult> mapped = result.handle((r, e) -> {
            if (e != null) {
                throw new CompletionException(ErrorMapper.toPg(e, st::clientPosition));
            }
            return r;
        });
        stopRunning = cancel::cancel;
        running = mapped;
        mapped.whenComplete((r, e) -> {
            running = null;
            stopRunning = null;
            stateChange = System.currentTimeMillis();
            node.statementDone(kind, e != null, System.nanoTime() - began);
        });
        // Every statement answers within statement_timeout; a SUBSCRIBE's or COPY's result is a stream that
        // follows (COPY FROM keeps the deadline for its data, see StreamCopyIn; a SUBSCRIBE never ends by design).
        StatementTimeout.arm(mapped, timeoutMs, cancel::cancel);
        return mapped;
    }

    /**
     * 42501 unless the session's user holds what the statement needs on the objects it names: asked before the
     * statement compiles, so that a role without the privilege gets 42501 whatever else is wrong with the statement
     * (an unknown column or option, dependents, another object it names) and learns nothing of the objects it may
     * not read from the other errors (their DETAIL names dependents). The router asks again of the compiled
     * statement before it runs.
     */
    private void authorize(ParsedSqlStatement st) {
        Privileges privileges = node.privileges();
        if (!privileges.superuser(user)) {
            privileges.check(user, node.compiler().needs(st.statement()));
        }
    }

    /** The statement compiled, or null when it does not compile (or is not one of the SQL front door's). */
    private CompiledStatement compileOrNull(Statement statement, List<Object> parameters) {
        if (statement instanceof ParsedSqlStatement st) {
            try {
                return node.compiler().compile(st.statement(), parameters);
            } catch (RuntimeException e) {
                return null; // refused like any other statement of a failed block
            }
        }
        return null;
    }

    /**
     * An error inside a transaction block fails the block, as in Postgres (see {@link TransactionBlock}). pgwire
     * tells of every error it sends, whatever raised it (parse, bind, describe, execute, a streamed result).
     */
    @Override
    public void statementFailed() {
        block.statementFailed();
    }

    @Override
    public char transactionStatus() {
        return block.status();
    }

    @Override
    public void cancel() {
        CompletableFuture<QueryResult> current = running;
        Runnable stop = stopRunning;
        if (current != null && current.completeExceptionally(canceled()) && stop != null) {
            stop.run();
        }
        subscriptions.failAll(CoilgunSession::canceled);
    }

    private static PgException canceled() {
        return new PgException(SqlState.QUERY_CANCELED.code(), "canceling statement due to user request");
    }

    @Override
    public List<Column> cursorColumns(String name) {
        return cursors.columns(name);
    }

    @Override
    public void started(int processId, SocketAddress address) {
        pid = processId;
        client = address;
        node.sessions().add(processId, this);
    }

    /** A snapshot for pg_stat_activity (read from a query thread while the session goes on). */
    SessionActivity activity() {
        SocketAddress address = client;
        String addr = null;
        Integer port = null;
        if (address instanceof InetSocketAddress inet) {
            addr = inet.getAddress() == null ? inet.getHostString() : inet.getAddress().getHostAddress();
            port = inet.getPort();
        }
        String state = running != null || subscriptions.any() ? "active"
                : block.inBlock() ? "idle in transaction" : "idle";
        return new SessionActivity(pid, user, database, settings.valueOrNull("application_name"), addr, port,
                backendStart, block.startedAt(), queryStart, stateChange, state, query, null);
    }

    /** Releases the session's subscriptions (pgwire closes them too; closing twice is harmless). */
    @Override
    public void close() {
        node.sessions().remove(pid, this);
        // on a query thread: a FETCH still reading (the client went away meanwhile) holds its cursor until it ends,
        // and this may be a network thread
        node.queryExecutor().execute(cursors::closeAll);
        subscriptions.closeAll();
    }
}
