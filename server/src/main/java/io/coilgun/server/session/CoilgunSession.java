package io.coilgun.server.session;

import io.coilgun.pgwire.spi.PgException;
import io.coilgun.pgwire.spi.QueryResult;
import io.coilgun.pgwire.spi.Session;
import io.coilgun.pgwire.spi.Statement;
import io.coilgun.planner.error.CoilgunException;
import io.coilgun.server.CoilgunNode;
import io.coilgun.sql.compile.AlterStreamStatement;
import io.coilgun.sql.compile.CompiledStatement;
import io.coilgun.sql.compile.CreateMetricStatement;
import io.coilgun.sql.compile.CreateStreamStatement;
import io.coilgun.sql.compile.DropMetricStatement;
import io.coilgun.sql.compile.ExplainStatement;
import io.coilgun.sql.compile.RowsStatement;
import io.coilgun.sql.compile.InsertStatement;
import io.coilgun.sql.compile.SetStatement;
import io.coilgun.sql.parser.CoilgunParser;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * A client connection's session: parses with the Coilgun SQL parser, compiles each statement against the
 * catalog when it runs (so a later statement of the same query sees an earlier CREATE), and hands the work to
 * the node. Never blocks the calling network thread.
 */
public final class CoilgunSession implements Session {
    private final CoilgunNode node;

    public CoilgunSession(CoilgunNode node) {
        this.node = node;
    }

    @Override
    public List<Statement> parse(String sql) {
        try {
            return CoilgunParser.parse(sql).stream()
                    .<Statement>map(p -> new ParsedSqlStatement(sql, p.node(), p.text()))
                    .toList();
        } catch (CoilgunException e) {
            throw ErrorMapper.toPg(e);
        }
    }

    @Override
    public CompletionStage<QueryResult> execute(Statement statement) {
        ParsedSqlStatement st = (ParsedSqlStatement) statement;
        CompiledStatement compiled;
        try {
            compiled = node.compiler().compile(st.query(), st.node(), st.text());
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(ErrorMapper.toPg(e));
        }
        CompletableFuture<QueryResult> result;
        if (compiled instanceof CreateStreamStatement cs) {
            result = node.createStream(cs).thenApply(v -> QueryResult.command("CREATE STREAM"));
        } else if (compiled instanceof AlterStreamStatement as) {
            result = node.alterStream(as).thenApply(v -> QueryResult.command("ALTER STREAM"));
        } else if (compiled instanceof RowsStatement rs) {
            result = CompletableFuture.completedFuture(new QueryResult(rs.columns().stream()
                    .map(c -> new io.coilgun.pgwire.spi.Column(c, io.coilgun.pgwire.spi.PgType.TEXT)).toList(),
                    rs.rows().stream().map(r -> (Object[]) r).toList(), rs.tag() + " " + rs.rows().size()));
        } else if (compiled instanceof ExplainStatement ex) {
            result = CompletableFuture.completedFuture(new QueryResult(
                    List.of(new io.coilgun.pgwire.spi.Column("QUERY PLAN", io.coilgun.pgwire.spi.PgType.TEXT)),
                    ex.lines().stream().map(l -> new Object[] {l}).toList(), "EXPLAIN"));
        } else if (compiled instanceof DropMetricStatement dm) {
            result = node.dropMetric(dm).thenApply(v -> QueryResult.command("DROP METRIC"));
        } else if (compiled instanceof CreateMetricStatement cm) {
            result = node.createMetric(cm).thenApply(v -> QueryResult.command("CREATE METRIC"));
        } else if (compiled instanceof InsertStatement ins) {
            result = node.inserter().insert(ins);
        } else if (compiled instanceof SetStatement set) {
            result = CompletableFuture.completedFuture(QueryResult.command(set.value() == null ? "RESET" : "SET"));
        } else {
            throw new IllegalStateException("unhandled statement " + compiled);
        }
        return result.handle((r, e) -> {
            if (e != null) {
                PgException pg = ErrorMapper.toPg(e);
                throw new java.util.concurrent.CompletionException(pg);
            }
            return r;
        });
    }

    @Override
    public void close() {
        // nothing held per session yet
    }
}
