package io.coilgun.server.session;

import io.coilgun.pgwire.spi.Column;
import io.coilgun.pgwire.spi.PgException;
import io.coilgun.pgwire.spi.PgType;
import io.coilgun.pgwire.spi.QueryResult;
import io.coilgun.pgwire.spi.RowStream;
import io.coilgun.pgwire.spi.Session;
import io.coilgun.pgwire.spi.StartupInfo;
import io.coilgun.pgwire.spi.Statement;
import io.coilgun.planner.error.CoilgunException;
import io.coilgun.planner.error.SqlState;
import io.coilgun.planner.model.ColumnType;
import io.coilgun.sql.compile.AlterStreamStatement;
import io.coilgun.sql.compile.CompiledStatement;
import io.coilgun.sql.compile.CopyStatement;
import io.coilgun.sql.compile.CopyToStatement;
import io.coilgun.sql.compile.CursorStatement;
import io.coilgun.sql.compile.SubscribeStatement;
import io.coilgun.sql.compile.CreateMetricStatement;
import io.coilgun.sql.compile.CreateStreamStatement;
import io.coilgun.sql.compile.DropMetricStatement;
import io.coilgun.sql.compile.ExplainStatement;
import io.coilgun.sql.compile.InsertStatement;
import io.coilgun.sql.compile.RowsStatement;
import io.coilgun.sql.compile.SetStatement;
import io.coilgun.sql.compile.ShowStatement;
import io.coilgun.sql.compile.TransactionStatement;
import io.coilgun.sql.parser.SqlCursor;
import io.coilgun.sql.parser.SqlTransaction;
import io.coilgun.sql.compile.QueryStatement;
import io.coilgun.sql.compile.SqlStatement;
import io.coilgun.sql.parser.PgSyntax;
import io.coilgun.sql.query.EmptyCatalogQuery;
import java.util.ArrayList;
import io.coilgun.sql.query.QueryEngine;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

/**
 * A client connection's session: parses with the Coilgun SQL parser, compiles each statement against the
 * catalog when it runs (so a later statement of the same query sees an earlier CREATE), and hands the work to
 * the node. Never blocks the calling network thread. Holds the session's settings and its (no-op) transaction
 * block.
 */
public final class CoilgunSession implements Session {
    private final SessionServices node;
    private final SessionSettings settings;
    private final String user;
    private final String database;
    private volatile boolean inTransaction;
    /** An error happened in the transaction block: see {@link #statementFailed()}. */
    private volatile boolean blockFailed;
    /** The savepoints of the transaction block, oldest first (names may repeat, as in Postgres). */
    private final List<String> savepoints = new ArrayList<>();
    /** The statement running, for cancel (which comes from another thread). */
    private volatile CompletableFuture<QueryResult> running;
    /** Stops the work of the running statement when it is canceled or times out (a SELECT's query), or null. */
    private volatile Runnable stopRunning;
    /** The process id the client was given (BackendKeyData), 0 until started, and where the client connects from. */
    private volatile int pid;
    private volatile java.net.SocketAddress client;
    private final long backendStart = System.currentTimeMillis();
    /** The statement running or last run, when it started, and when the state (active, idle) last changed. */
    private volatile String query = "";
    private volatile Long queryStart;
    private volatile long stateChange = backendStart;
    private volatile Long xactStart;
    /** This session as the query engine's session functions see it (current_setting, pg_backend_pid, …). */
    private final io.coilgun.sql.query.QuerySession querySession = new io.coilgun.sql.query.QuerySession() {
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
            List<Object[]> rows = new ArrayList<>();
            cursors.forEach((name, c) -> rows.add(new Object[] {name, c.statement, c.hold, false, !c.noScroll,
                    c.created}));
            return rows;
        }
    };
    /** The session's cursors by name (DECLARE … CURSOR): their query's rows, read when declared. */
    private final Map<String, Cursor> cursors = new ConcurrentHashMap<>();
    /** The open SUBSCRIBEs of this session (running or in a suspended portal), for cancel and close. */
    private final Set<Subscription> subscriptions = ConcurrentHashMap.newKeySet();

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

    /** A query is planned to be described: on a query thread, so that other connections do not wait for it. */
    @Override
    public java.util.concurrent.CompletionStage<List<Column>> describeLater(Statement statement) {
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
            List<Column> columns = ResultShapes.of(node, settings, st.statement(), user, database,
                    name -> cursors.containsKey(name) ? cursors.get(name).columns() : null);
            st.described().set(columns);
            return columns;
        } catch (RuntimeException e) {
            throw ErrorMapper.toPg(e, st::clientPosition);
        }
    }

    @Override
    public CompletionStage<QueryResult> execute(Statement statement, List<Object> parameters) {
        return executeStatement(statement, parameters);
    }

    /**
     * An error inside a transaction block fails the block, as in Postgres: until ROLLBACK (or COMMIT, which then
     * rolls back, or ROLLBACK TO a savepoint) every statement is refused with 25P02, and ReadyForQuery says 'E'.
     * Clients count on it (psycopg, SQLAlchemy and pgjdbc all roll back on seeing it). pgwire tells of every error
     * it sends, whatever raised it (parse, bind, describe, execute, a streamed result).
     */
    @Override
    public void statementFailed() {
        if (inTransaction) {
            blockFailed = true;
        }
    }

    private static boolean endsFailedBlock(CompiledStatement compiled) {
        return compiled instanceof TransactionStatement tx
                && (tx.kind() == SqlTransaction.Kind.COMMIT || tx.kind() == SqlTransaction.Kind.ROLLBACK
                        || tx.kind() == SqlTransaction.Kind.ROLLBACK_TO);
    }

    private CompletionStage<QueryResult> executeStatement(Statement statement, List<Object> parameters) {
        if (blockFailed) {
            CompiledStatement compiled = null;
            if (statement instanceof ParsedSqlStatement st) {
                try {
                    compiled = node.compiler().compile(st.statement(), parameters);
                } catch (RuntimeException e) {
                    // refused below like any other statement of a failed block
                }
            }
            if (!endsFailedBlock(compiled)) {
                return CompletableFuture.failedFuture(new PgException(SqlState.IN_FAILED_SQL_TRANSACTION.code(),
                        "current transaction is aborted, commands ignored until end of transaction block"));
            }
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
            result = compiled instanceof QueryStatement q ? query(q, parameters, cancel)
                    : compiled instanceof CursorStatement cs ? cursor(cs, parameters, cancel)
                    : compiled instanceof CopyToStatement copyTo ? copyTo(copyTo, st, parameters, cancel)
                    : run(compiled, st.described().get(), timeoutMs);
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

    /** @param described the result columns the client was told for this statement, or null */
    private CompletableFuture<QueryResult> run(CompiledStatement compiled, List<Column> described, long timeoutMs) {
        if (compiled instanceof CreateStreamStatement cs) {
            return node.createStream(cs).thenApply(v -> QueryResult.command("CREATE STREAM"));
        } else if (compiled instanceof AlterStreamStatement as) {
            return node.alterStream(as).thenApply(v -> QueryResult.command("ALTER STREAM"));
        } else if (compiled instanceof RowsStatement rs) {
            return CompletableFuture.completedFuture(new QueryResult(ResultShapes.textColumns(rs.columns()),
                    rs.rows().stream().map(r -> (Object[]) r).toList(), rs.tag() + " " + rs.rows().size()));
        } else if (compiled instanceof ExplainStatement ex) {
            return CompletableFuture.completedFuture(new QueryResult(ResultShapes.EXPLAIN,
                    ex.lines().stream().map(l -> new Object[] {l}).toList(), "EXPLAIN"));
        } else if (compiled instanceof DropMetricStatement dm) {
            return node.dropMetric(dm).thenApply(v -> QueryResult.command("DROP METRIC"));
        } else if (compiled instanceof io.coilgun.sql.compile.DropStreamStatement ds) {
            return node.dropStream(ds).thenApply(notices -> new QueryResult(List.of(), List.of(), "DROP STREAM",
                    notices));
        } else if (compiled instanceof CreateMetricStatement cm) {
            return node.createMetric(cm).thenApply(v -> QueryResult.command("CREATE METRIC"));
        } else if (compiled instanceof InsertStatement ins) {
            return node.inserter().insert(ins, described);
        } else if (compiled instanceof SetStatement set) {
            settings.set(set.name(), set.value());
            return CompletableFuture.completedFuture(QueryResult.command(set.value() == null ? "RESET" : "SET"));
        } else if (compiled instanceof ShowStatement show) {
            return CompletableFuture.completedFuture(show(show.name()));
        } else if (compiled instanceof CopyStatement copy) {
            return CompletableFuture.completedFuture(QueryResult.copyIn(
                    new StreamCopyIn(copy, node.compiler(), node.inserter(), timeoutMs)));
        } else if (compiled instanceof SubscribeStatement sub) {
            return CompletableFuture.completedFuture(subscribe(sub));
        } else if (compiled instanceof io.coilgun.sql.compile.ReplayStatement replay) {
            return node.startReplay(replay).thenApply(replays -> {
                ReplayRows rows = new ReplayRows(replay, replays);
                rows.onRelease(StatementTimeout.after(settings.statementTimeoutMs(),
                        () -> rows.fail(StatementTimeout.expired())));
                return QueryResult.stream(Subscription.columns(replay.shape()), rows, "REPLAY");
            });
        } else if (compiled instanceof TransactionStatement tx) {
            return CompletableFuture.completedFuture(transaction(tx));
        }
        throw new IllegalStateException("unhandled statement " + compiled);
    }

    private CompletableFuture<QueryResult> query(QueryStatement q, List<Object> parameters,
            QueryEngine.Cancel cancel) {
        return node.query(q, parameters, user, database, querySession, cancel).handle((rows, e) -> {
            if (e != null) {
                Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
                if (cause instanceof CoilgunException ce && ce.position() > 0) {
                    // the engine's positions are within the statement's own text
                    throw new CompletionException(new CoilgunException(ce.state(), ce.getMessage(),
                            ce.position() + q.position() - 1, ce));
                }
                throw cause instanceof RuntimeException re ? new CompletionException(re) : new CompletionException(cause);
            }
            return new QueryResult(queryColumns(rows), rows.rows(), "SELECT " + rows.rows().size());
        });
    }

    static List<Column> queryColumns(io.coilgun.sql.query.QueryEngine.Rows rows) {
        List<Column> columns = new ArrayList<>(rows.names().size());
        for (int i = 0; i < rows.names().size(); i++) {
            PgType type = PgType.of(rows.typeOids().get(i));
            columns.add(new Column(rows.names().get(i), type == null ? PgType.TEXT : type));
        }
        return columns;
    }

    /** SUBSCRIBE: registers with the node's result feed now; rows are events applied from now on. */
    private QueryResult subscribe(SubscribeStatement sub) {
        Subscription[] self = new Subscription[1];
        Runnable[] stopTimer = {() -> { }};
        self[0] = new Subscription(node.feed(), sub, () -> {
            subscriptions.remove(self[0]);
            stopTimer[0].run();
        });
        subscriptions.add(self[0]);
        // a SUBSCRIBE never ends by itself: statement_timeout ends it, as it ends any statement in Postgres
        stopTimer[0] = StatementTimeout.after(settings.statementTimeoutMs(),
                () -> self[0].fail(StatementTimeout.expired()));
        return QueryResult.stream(Subscription.columns(sub), self[0], sub.verb());
    }

    /**
     * COPY (statement) TO STDOUT: the inner statement is compiled and run as any statement, and its rows are sent
     * as COPY data. A statement that returns no rows is refused before it runs (bad input changes nothing).
     */
    private CompletableFuture<QueryResult> copyTo(CopyToStatement copyTo, ParsedSqlStatement st,
            List<Object> parameters, QueryEngine.Cancel cancel) {
        io.coilgun.pgwire.spi.CopyFormat format = StreamCopyIn.format(copyTo.options());
        CompiledStatement inner = node.compiler().compileCopySource(st.statement(), copyTo, parameters);
        if (inner instanceof CreateStreamStatement || inner instanceof AlterStreamStatement
                || inner instanceof CreateMetricStatement || inner instanceof DropMetricStatement
                || inner instanceof SetStatement || inner instanceof TransactionStatement
                || inner instanceof CopyStatement || inner instanceof CopyToStatement
                || inner instanceof CursorStatement
                || inner instanceof InsertStatement ins && !ins.returning()) {
            throw new PgException(SqlState.FEATURE_NOT_SUPPORTED.code(), "COPY (...) TO STDOUT needs a statement "
                    + "that returns rows (SUBSCRIBE, SELECT, SHOW, EXPLAIN or INSERT ... RETURNING)");
        }
        CompletableFuture<QueryResult> rows = inner instanceof QueryStatement q ? query(q, parameters, cancel)
                : run(inner, null, settings.statementTimeoutMs());
        return rows.thenApply(r -> QueryResult.copyOut(r.columns(),
                r.stream() != null ? r.stream() : RowStream.of(r.rows()), format));
    }

    private QueryResult show(String name) {
        if (name.equals("all")) {
            return new QueryResult(ResultShapes.SHOW_ALL, settings.all(), "SHOW");
        }
        String value = settings.get(name);
        return new QueryResult(List.of(new Column(settings.displayName(name), PgType.TEXT)),
                List.<Object[]>of(new Object[] {value}), "SHOW");
    }

    /**
     * The transaction block only tracks its state and its savepoints (warning and failing as Postgres does);
     * statements apply at once, so ROLLBACK and ROLLBACK TO undo nothing (ROLLBACK TO says so in a warning).
     */
    private QueryResult transaction(TransactionStatement tx) {
        return switch (tx.kind()) {
            case BEGIN -> {
                List<String> warnings = inTransaction ? List.of("there is already a transaction in progress")
                        : List.of();
                if (!inTransaction) {
                    xactStart = System.currentTimeMillis();
                }
                inTransaction = true;
                yield new QueryResult(List.of(), List.of(), "BEGIN", warnings);
            }
            case COMMIT, ROLLBACK -> {
                List<String> warnings = inTransaction ? List.of() : List.of("there is no transaction in progress");
                String tag = blockFailed ? "ROLLBACK" : tx.kind().name(); // COMMIT of a failed block rolls back
                inTransaction = false;
                blockFailed = false;
                savepoints.clear();
                cursors.values().removeIf(c -> !c.hold()); // a cursor WITHOUT HOLD ends with its block
                yield new QueryResult(List.of(), List.of(), tag, warnings);
            }
            case SAVEPOINT -> {
                requireTransaction("SAVEPOINT");
                savepoints.add(tx.savepoint());
                yield QueryResult.command("SAVEPOINT");
            }
            case RELEASE -> {
                requireTransaction("RELEASE SAVEPOINT");
                savepoints.subList(savepoint(tx.savepoint()), savepoints.size()).clear();
                yield QueryResult.command("RELEASE");
            }
            case ROLLBACK_TO -> {
                requireTransaction("ROLLBACK TO SAVEPOINT");
                savepoints.subList(savepoint(tx.savepoint()) + 1, savepoints.size()).clear();
                blockFailed = false;
                yield new QueryResult(List.of(), List.of(), "ROLLBACK", List.of("ROLLBACK TO SAVEPOINT undoes "
                        + "nothing here: every statement was applied when it completed"));
            }
        };
    }

    /**
     * A cursor's rows (read when it was declared) and its position, as Postgres keeps it: 0 before the first row,
     * 1..n on a row, n + 1 after the last. FETCH returns the rows it passes over, MOVE only moves.
     */
    private static final class Cursor {
        private final List<Column> columns;
        private final List<Object[]> rows;
        private final boolean hold;
        private final boolean noScroll;
        private final String statement;
        private final long created = System.currentTimeMillis();
        private int position;

        Cursor(List<Column> columns, List<Object[]> rows, boolean hold, boolean noScroll, String statement) {
            this.columns = columns;
            this.rows = rows;
            this.hold = hold;
            this.noScroll = noScroll;
            this.statement = statement;
        }

        List<Column> columns() {
            return columns;
        }

        boolean hold() {
            return hold;
        }

        private static long saturatedAdd(long a, long b) {
            long sum = a + b;
            return ((a ^ sum) & (b ^ sum)) < 0 ? (b < 0 ? Long.MIN_VALUE : Long.MAX_VALUE) : sum;
        }

        /** The rows FETCH gives for {@code direction} and {@code count} (see SqlCursor.Direction), moving the cursor. */
        synchronized List<Object[]> fetch(SqlCursor.Direction direction, long count) {
            int n = rows.size();
            List<Object[]> out = new ArrayList<>();
            if (count < 0 && (direction == SqlCursor.Direction.FORWARD || direction == SqlCursor.Direction.BACKWARD)) {
                direction = direction == SqlCursor.Direction.FORWARD ? SqlCursor.Direction.BACKWARD
                        : SqlCursor.Direction.FORWARD; // FETCH -2: two rows back
                count = -count;
            }
            switch (direction) {
                case FORWARD, BACKWARD -> {
                    boolean back = direction == SqlCursor.Direction.BACKWARD;
                    if (back && noScroll) {
                        throw new PgException(SqlState.OBJECT_NOT_IN_PREREQUISITE_STATE.code(),
                                "cursor can only scan forward");
                    }
                    if (count == 0) { // FORWARD 0 / BACKWARD 0: the current row again
                        if (position >= 1 && position <= n) {
                            out.add(rows.get(position - 1));
                        }
                        return out;
                    }
                    long steps = Math.min(count, (long) n + 1);
                    for (long i = 0; i < steps; i++) {
                        position += back ? -1 : 1;
                        if (position < 1 || position > n) {
                            position = position < 1 ? 0 : n + 1;
                            break;
                        }
                        out.add(rows.get(position - 1));
                    }
                }
                case ABSOLUTE, RELATIVE -> {
                    long target = direction == SqlCursor.Direction.RELATIVE ? saturatedAdd(position, count)
                            : count < 0 ? saturatedAdd(n + 1, count) : count;
                    if (noScroll && target < position) {
                        throw new PgException(SqlState.OBJECT_NOT_IN_PREREQUISITE_STATE.code(),
                                "cursor can only scan forward");
                    }
                    position = (int) Math.max(0, Math.min(n + 1, target));
                    if (position >= 1 && position <= n) {
                        out.add(rows.get(position - 1));
                    }
                }
            }
            return out;
        }
    }

    /**
     * DECLARE runs the cursor's query now and keeps its rows (a SELECT over metrics and streams is a bounded
     * snapshot); FETCH hands them out; CLOSE forgets them. As in Postgres, a cursor without HOLD lives in a
     * transaction block only.
     */
    private CompletableFuture<QueryResult> cursor(CursorStatement cs, List<Object> parameters,
            QueryEngine.Cancel cancel) {
        switch (cs.kind()) {
            case DECLARE -> {
                if (!cs.hold()) {
                    requireTransaction("DECLARE CURSOR");
                }
                if (cursors.containsKey(cs.name())) {
                    throw new PgException(SqlState.DUPLICATE_CURSOR.code(),
                            "cursor \"" + cs.name() + "\" already exists");
                }
                return query(cs.query(), parameters, cancel).thenApply(r -> {
                    cursors.put(cs.name(), new Cursor(r.columns(), r.rows(), cs.hold(), cs.noScroll(), query));
                    return QueryResult.command("DECLARE CURSOR");
                });
            }
            case FETCH, MOVE -> {
                Cursor c = cursors.get(cs.name());
                if (c == null) {
                    throw new PgException(SqlState.INVALID_CURSOR_NAME.code(),
                            "cursor \"" + cs.name() + "\" does not exist");
                }
                List<Object[]> rows = c.fetch(cs.direction(), cs.count());
                return CompletableFuture.completedFuture(cs.kind() == SqlCursor.Kind.MOVE
                        ? QueryResult.command("MOVE " + rows.size())
                        : new QueryResult(c.columns(), rows, "FETCH " + rows.size()));
            }
            default -> {
                if (cs.name() == null) {
                    cursors.clear();
                } else if (cursors.remove(cs.name()) == null) {
                    throw new PgException(SqlState.INVALID_CURSOR_NAME.code(),
                            "cursor \"" + cs.name() + "\" does not exist");
                }
                return CompletableFuture.completedFuture(QueryResult.command("CLOSE CURSOR"));
            }
        }
    }

    private void requireTransaction(String statement) {
        if (!inTransaction) {
            throw new PgException(SqlState.NO_ACTIVE_SQL_TRANSACTION.code(),
                    statement + " can only be used in transaction blocks");
        }
    }

    /** Where the newest savepoint called {@code name} is in the stack. */
    private int savepoint(String name) {
        int at = savepoints.lastIndexOf(name);
        if (at < 0) {
            throw new PgException(SqlState.INVALID_SAVEPOINT_SPECIFICATION.code(),
                    "savepoint \"" + name + "\" does not exist");
        }
        return at;
    }

    @Override
    public char transactionStatus() {
        return inTransaction ? (blockFailed ? 'E' : 'T') : 'I';
    }

    @Override
    public void cancel() {
        CompletableFuture<QueryResult> current = running;
        Runnable stop = stopRunning;
        if (current != null && current.completeExceptionally(new PgException(SqlState.QUERY_CANCELED.code(),
                "canceling statement due to user request")) && stop != null) {
            stop.run();
        }
        for (Subscription subscription : subscriptions) {
            subscription.fail(new PgException(SqlState.QUERY_CANCELED.code(),
                    "canceling statement due to user request"));
        }
    }

    /** Releases the session's subscriptions (pgwire closes them too; closing twice is harmless). */
    @Override
    public List<Column> cursorColumns(String name) {
        Cursor c = cursors.get(name);
        return c == null ? null : c.columns();
    }

    @Override
    public void started(int processId, java.net.SocketAddress address) {
        pid = processId;
        client = address;
        node.sessions().add(processId, this);
    }

    /** A snapshot for pg_stat_activity (read from a query thread while the session goes on). */
    io.coilgun.sql.query.SessionActivity activity() {
        java.net.SocketAddress address = client;
        String addr = null;
        Integer port = null;
        if (address instanceof java.net.InetSocketAddress inet) {
            addr = inet.getAddress() == null ? inet.getHostString() : inet.getAddress().getHostAddress();
            port = inet.getPort();
        }
        String state = running != null || !subscriptions.isEmpty() ? "active"
                : inTransaction ? "idle in transaction" : "idle";
        return new io.coilgun.sql.query.SessionActivity(pid, user, database, settings.valueOrNull("application_name"),
                addr, port, backendStart, inTransaction ? xactStart : null, queryStart, stateChange, state, query);
    }

    @Override
    public void close() {
        node.sessions().remove(pid, this);
        for (Subscription subscription : subscriptions) {
            subscription.close();
        }
    }
}
