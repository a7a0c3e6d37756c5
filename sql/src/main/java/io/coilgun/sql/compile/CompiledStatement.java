package io.coilgun.sql.compile;

/**
 * A statement checked against the catalog and turned into the planner's model, ready for the node to run.
 * Compiling changes nothing: every error a user can cause is found here, before anything is published.
 */
public sealed interface CompiledStatement
        permits CreateStreamStatement, AlterStreamStatement, CreateMetricStatement, DropMetricStatement,
        DropStreamStatement, ExplainStatement, InsertStatement, RowsStatement, SetStatement, ShowStatement,
        TransactionStatement, CopyStatement, QueryStatement, SubscribeStatement, CopyToStatement, CursorStatement,
        ReplayStatement, CreateSinkStatement, DropSinkStatement, RoleStatement, GrantStatement {
}
