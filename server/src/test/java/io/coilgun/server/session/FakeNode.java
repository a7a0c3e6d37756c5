package io.coilgun.server.session;

import io.coilgun.cluster.feed.ClusterFeed;
import io.coilgun.planner.model.Catalog;
import io.coilgun.server.access.Privileges;
import io.coilgun.server.query.ReplaySource;
import io.coilgun.sql.compile.AlterStreamStatement;
import io.coilgun.sql.compile.CreateMetricStatement;
import io.coilgun.sql.compile.CreateStreamStatement;
import io.coilgun.sql.compile.DropMetricStatement;
import io.coilgun.sql.compile.DropStreamStatement;
import io.coilgun.sql.compile.QueryStatement;
import io.coilgun.sql.compile.ReplayStatement;
import io.coilgun.sql.compile.StatementCompiler;
import io.coilgun.sql.compile.ValueConverter;
import io.coilgun.sql.query.OpenQuery;
import io.coilgun.sql.query.QueryEngine;
import io.coilgun.sql.query.QuerySession;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * A node for session tests, without Kafka or tasks: the real catalog and statement compiler, DDL applied to the
 * catalog at once, every query answered with {@link #rows} (or left running when {@link #queriesHang}). Records what
 * it was asked in {@link #calls}. No ingest and no result feed: INSERT, COPY data and SUBSCRIBE need a node.
 */
final class FakeNode implements SessionServices {
    static final String PAYMENTS = "CREATE STREAM payments (id BIGINT, ts TIMESTAMP, card_id VARCHAR, "
            + "amount DOUBLE) WITH (event_time = 'ts', event_id = 'id', partition_by = 'card_id', partitions = 4)";
    static final String CARD_5M = "CREATE METRIC card_5m AS SELECT SUM(amount) AS total, COUNT(*) AS n "
            + "FROM payments GROUP BY card_id OVER SLIDING INTERVAL '5' MINUTE";

    final Catalog catalog = new Catalog();
    final StatementCompiler compiler = new StatementCompiler(catalog, new ValueConverter(Clock.systemUTC()));
    final SessionRegistry sessions = new SessionRegistry("fake");
    /** What the session asked of the node, in order: "query", "createStream", "statementDone insert false", … */
    final List<String> calls = new ArrayList<>();
    /** Every query's rows: one bigint column {@code n}, values 1, 2, 3. */
    final QueryEngine.Rows rows = new QueryEngine.Rows(List.of("n"), List.of(20),
            List.of(new Object[] {1L}, new Object[] {2L}, new Object[] {3L}));
    /** Queries never complete (a long query, to cancel). */
    boolean queriesHang;
    /** Who may run what: by default a node without roles (everyone everything). */
    Privileges privileges = new Privileges(catalog.roles(), Set.of(), true);

    @Override
    public Catalog catalog() {
        return catalog;
    }

    @Override
    public StatementCompiler compiler() {
        return compiler;
    }

    @Override
    public int[] queryParameterTypes(QueryStatement q, int count, String user, String database) {
        return new int[count];
    }

    @Override
    public SessionRegistry sessions() {
        return sessions;
    }

    @Override
    public Inserter inserter() {
        return null;
    }

    @Override
    public ClusterFeed feed() {
        return null;
    }

    @Override
    public CompletableFuture<QueryEngine.Rows> query(QueryStatement q, List<Object> parameters, String user,
            String database, QuerySession session, QueryEngine.Cancel cancel) {
        calls.add("query " + q.text());
        return queriesHang ? new CompletableFuture<>() : CompletableFuture.completedFuture(rows);
    }

    @Override
    public CompletableFuture<OpenQuery> openQuery(QueryStatement q, List<Object> parameters, String user,
            String database, QuerySession session, QueryEngine.Cancel cancel) {
        calls.add("open " + q.text());
        return queriesHang ? new CompletableFuture<>() : CompletableFuture.completedFuture(OpenQuery.of(rows));
    }

    @Override
    public QueryEngine.Rows describeQuery(QueryStatement q, Set<Integer> numericParameters, String user,
            String database) {
        return rows;
    }

    @Override
    public Executor queryExecutor() {
        return Runnable::run;
    }

    @Override
    public CompletableFuture<Void> createStream(CreateStreamStatement cs) {
        calls.add("createStream " + cs.stream().name());
        catalog.addStream(cs.stream());
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public CompletableFuture<Void> alterStream(AlterStreamStatement as) {
        calls.add("alterStream " + as.stream().name());
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public CompletableFuture<List<String>> dropStream(DropStreamStatement ds) {
        calls.add("dropStream " + ds.name());
        catalog.removeStream(ds.name());
        return CompletableFuture.completedFuture(List.of("a notice"));
    }

    @Override
    public CompletableFuture<Void> dropMetric(DropMetricStatement dm) {
        calls.add("dropMetric " + dm.name());
        catalog.removeMetric(dm.name());
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public CompletableFuture<Void> createMetric(CreateMetricStatement cm) {
        calls.add("createMetric " + cm.metric().name());
        catalog.addMetric(cm.metric());
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public CompletableFuture<Void> createSink(io.coilgun.sql.compile.CreateSinkStatement cs) {
        calls.add("createSink " + cs.sink().name());
        catalog.addSink(cs.sink());
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public CompletableFuture<Void> dropSink(io.coilgun.sql.compile.DropSinkStatement ds) {
        calls.add("dropSink " + ds.name());
        catalog.removeSink(ds.name());
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public CompletableFuture<Void> role(io.coilgun.sql.compile.RoleStatement rs) {
        calls.add(rs.tag().toLowerCase(java.util.Locale.ROOT) + " " + rs.names());
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public Privileges privileges() {
        return privileges;
    }

    @Override
    public CompletableFuture<Void> own(String object, String role) {
        catalog.roles().owner(object, role);
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public CompletableFuture<List<ReplaySource>> startReplay(ReplayStatement replay) {
        calls.add("startReplay " + replay.metric().name());
        return CompletableFuture.completedFuture(List.of());
    }

    @Override
    public void statementDone(String kind, boolean failed, long nanos) {
        calls.add("statementDone " + kind + " " + failed);
    }
}
