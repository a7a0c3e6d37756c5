package io.coilgun.server.session;

import io.coilgun.cluster.feed.ClusterFeed;
import io.coilgun.planner.model.Catalog;
import io.coilgun.planner.model.Roles;
import io.coilgun.server.access.Privileges;
import io.coilgun.server.query.ReplaySource;
import io.coilgun.sql.compile.AlterStreamStatement;
import io.coilgun.sql.compile.CreateMetricStatement;
import io.coilgun.sql.compile.CreateSinkStatement;
import io.coilgun.sql.compile.CreateStreamStatement;
import io.coilgun.sql.compile.DropMetricStatement;
import io.coilgun.sql.compile.DropSinkStatement;
import io.coilgun.sql.compile.DropStreamStatement;
import io.coilgun.sql.compile.QueryStatement;
import io.coilgun.sql.compile.ReplayStatement;
import io.coilgun.sql.compile.StatementCompiler;
import io.coilgun.sql.query.OpenQuery;
import io.coilgun.sql.query.QueryEngine;
import io.coilgun.sql.query.QuerySession;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * What a session needs from its node, and nothing more: the catalog and compiler, the DDL operations (run on the
 * node's DDL thread), ingest, queries and the result feed. Sessions depend on this, not on the node that wires it.
 */
public interface SessionServices {
    Catalog catalog();

    StatementCompiler compiler();

    /** The Postgres type oid of each of a query's parameters $1..$count, 0 where the query gives none. */
    int[] queryParameterTypes(QueryStatement q, int count, String user, String database);

    /** The node's client sessions (pg_stat_activity, pg_cancel_backend). */
    SessionRegistry sessions();

    /** Runs INSERT and COPY FROM. */
    Inserter inserter();

    /** The feed of applied events to subscriptions (SUBSCRIBE). */
    ClusterFeed feed();

    /** Runs a query (SELECT …) on a query thread. */
    CompletableFuture<QueryEngine.Rows> query(QueryStatement q, List<Object> parameters, String user, String database,
            QuerySession session, QueryEngine.Cancel cancel);

    /** Starts a query on a query thread, for its rows to be read as they are needed (a cursor's). */
    CompletableFuture<OpenQuery> openQuery(QueryStatement q, List<Object> parameters, String user, String database,
            QuerySession session, QueryEngine.Cancel cancel);

    /**
     * The columns a query returns, without running it (extended protocol Describe).
     *
     * @param numericParameters the numbers ($n) of the parameters the client sends as numerics
     */
    QueryEngine.Rows describeQuery(QueryStatement q, Set<Integer> numericParameters, String user, String database);

    /** The threads that plan and run queries: never a network thread (planning a query may take a while). */
    Executor queryExecutor();

    CompletableFuture<Void> createStream(CreateStreamStatement cs);

    CompletableFuture<Void> alterStream(AlterStreamStatement as);

    /** @return the notices (metrics dropped with CASCADE) */
    CompletableFuture<List<String>> dropStream(DropStreamStatement ds);

    CompletableFuture<Void> dropMetric(DropMetricStatement dm);

    CompletableFuture<Void> createMetric(CreateMetricStatement cm);

    CompletableFuture<Void> createSink(CreateSinkStatement cs);

    CompletableFuture<Void> dropSink(DropSinkStatement ds);

    /** CREATE, ALTER or DROP ROLE. */
    default CompletableFuture<Void> role(io.coilgun.sql.compile.RoleStatement rs) {
        return CompletableFuture.failedFuture(new UnsupportedOperationException("roles"));
    }

    /** GRANT or REVOKE. */
    default CompletableFuture<Void> grant(io.coilgun.sql.compile.GrantStatement gs) {
        return CompletableFuture.failedFuture(new UnsupportedOperationException("grants"));
    }

    /** Notes {@code role} as the owner of the stream, metric or sink it just created. */
    default CompletableFuture<Void> own(String object, String role) {
        return CompletableFuture.completedFuture(null);
    }

    /** Who may run what (a node without roles: everyone everything). */
    default Privileges privileges() {
        return new Privileges(new Roles(), java.util.Set.of(), true);
    }

    /**
     * Starts REPLAY on every task of its metric's partitioner topic, each where it is led (this node or another);
     * completes with one source of rows per task, or fails (55000) when a task is led nowhere now.
     */
    CompletableFuture<List<ReplaySource>> startReplay(ReplayStatement replay);

    /**
     * A statement ended after {@code nanos}, by kind ({@code insert}, {@code select}, {@code copy_from}, …), failed
     * or not: the node's statement meters.
     */
    default void statementDone(String kind, boolean failed, long nanos) {
    }
}
