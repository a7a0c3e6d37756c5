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
import io.coilgun.server.CoilgunNode;
import io.coilgun.sql.compile.AlterStreamStatement;
import io.coilgun.sql.compile.CompiledStatement;
import io.coilgun.sql.compile.CopyStatement;
import io.coilgun.sql.compile.CreateMetricStatement;
import io.coilgun.sql.compile.CreateStreamStatement;
import io.coilgun.sql.compile.DropMetricStatement;
import io.coilgun.sql.compile.ExplainStatement;
import io.coilgun.sql.compile.InsertStatement;
import io.coilgun.sql.compile.RowsStatement;
import io.coilgun.sql.compile.SetStatement;
import io.coilgun.sql.compile.ShowStatement;
import io.coilgun.sql.compile.TransactionStatement;
import io.coilgun.sql.parser.CoilgunParser;
import io.coilgun.sql.parser.ParsedStatement;
import java.util.ArrayList;
import java.util.List;
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
    private final CoilgunNode node;
    private final SessionSettings settings;
    private boolean inTransaction;
    /** The statement running, for cancel (which comes from another thread). */
    private volatile CompletableFuture<QueryResult> running;

    public CoilgunSession(CoilgunNode node, StartupInfo startup) {
        this.node = node;
        this.settings = new SessionSettings(startup.user(), startup.parameters().get("application_name"));
    }

    @Override
    public List<Statement> parse(String sql) {
        try {
            List<Statement> statements = new ArrayList<>();
            for (ParsedStatement p : CoilgunParser.parse(sql)) {
                statements.add(new ParsedSqlStatement(sql, p.node(), p.text(), p.parameterNumbers(), List.of()));
            }
            return statements;
        } catch (CoilgunException e) {
            throw ErrorMapper.toPg(e);
        }
    }

    @Override
    public Statement prepare(Statement statement, int[] parameterTypeOids) {
        ParsedSqlStatement st = (ParsedSqlStatement) statement;
        int count = parameterTypeOids.length;
        for (int n : st.parameterNumbers()) {
            count = Math.max(count, n);
        }
        ColumnType[] inferred;
        try {
            inferred = node.compiler().parameterTypes(st.query(), st.node(), st.parameterNumbers(), count);
        } catch (RuntimeException e) {
            throw ErrorMapper.toPg(e);
        }
        List<PgType> types = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            int oid = i < parameterTypeOids.length ? parameterTypeOids[i] : 0;
            PgType declared = oid == 0 ? null : PgType.of(oid);
            if (declared != null) {
                types.add(declared);
            } else if (oid == 0 && inferred[i] != null) {
                types.add(Inserter.pgType(inferred[i]));
            } else {
                types.add(PgType.UNKNOWN); // read as text, converted where the value is used
            }
        }
        return st.withParameterTypes(types);
    }

    @Override
    public List<Column> describe(Statement statement) {
        ParsedSqlStatement st = (ParsedSqlStatement) statement;
        try {
            return ResultShapes.of(node, settings, st.node());
        } catch (RuntimeException e) {
            throw ErrorMapper.toPg(e);
        }
    }

    @Override
    public CompletionStage<QueryResult> execute(Statement statement, List<Object> parameters) {
        ParsedSqlStatement st = (ParsedSqlStatement) statement;
        CompiledStatement compiled;
        try {
            compiled = node.compiler().compile(st.query(), st.node(), st.text(), st.parameterNumbers(), parameters);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(ErrorMapper.toPg(e));
        }
        CompletableFuture<QueryResult> result;
        try {
            result = run(compiled);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(ErrorMapper.toPg(e));
        }
        CompletableFuture<QueryResult> mapped = result.handle((r, e) -> {
            if (e != null) {
                throw new CompletionException(ErrorMapper.toPg(e));
            }
            return r;
        });
        running = mapped;
        mapped.whenComplete((r, e) -> running = null);
        return mapped;
    }

    private CompletableFuture<QueryResult> run(CompiledStatement compiled) {
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
            return node.inserter().insert(ins);
        } else if (compiled instanceof SetStatement set) {
            settings.set(set.name(), set.value());
            return CompletableFuture.completedFuture(QueryResult.command(set.value() == null ? "RESET" : "SET"));
        } else if (compiled instanceof ShowStatement show) {
            return CompletableFuture.completedFuture(show(show.name()));
        } else if (compiled instanceof CopyStatement copy) {
            return CompletableFuture.completedFuture(QueryResult.copyIn(
                    new StreamCopyIn(copy, node.compiler(), node.inserter())));
        } else if (compiled instanceof TransactionStatement tx) {
            return CompletableFuture.completedFuture(transaction(tx));
        }
        throw new IllegalStateException("unhandled statement " + compiled);
    }

    private QueryResult show(String name) {
        if (name.equals("all")) {
            return new QueryResult(ResultShapes.SHOW_ALL, settings.all(), "SHOW");
        }
        String value = settings.get(name);
        return new QueryResult(List.of(new Column(settings.displayName(name), PgType.TEXT)),
                List.<Object[]>of(new Object[] {value}), "SHOW");
    }

    /** The transaction block only tracks its state (and warns as Postgres does); statements apply at once. */
    private QueryResult transaction(TransactionStatement tx) {
        return switch (tx.kind()) {
            case BEGIN -> {
                List<String> warnings = inTransaction ? List.of("there is already a transaction in progress")
                        : List.of();
                inTransaction = true;
                yield new QueryResult(List.of(), List.of(), "BEGIN", warnings);
            }
            case COMMIT, ROLLBACK -> {
                List<String> warnings = inTransaction ? List.of() : List.of("there is no transaction in progress");
                inTransaction = false;
                yield new QueryResult(List.of(), List.of(), tx.kind().name(), warnings);
            }
        };
    }

    @Override
    public char transactionStatus() {
        return inTransaction ? 'T' : 'I';
    }

    @Override
    public void cancel() {
        CompletableFuture<QueryResult> current = running;
        if (current != null) {
            current.completeExceptionally(new PgException(SqlState.QUERY_CANCELED.code(),
                    "canceling statement due to user request"));
        }
    }

    @Override
    public void close() {
        // nothing held per session yet
    }
}
