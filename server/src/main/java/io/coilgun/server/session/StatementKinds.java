package io.coilgun.server.session;

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
import io.coilgun.sql.compile.InsertStatement;
import io.coilgun.sql.compile.QueryStatement;
import io.coilgun.sql.compile.ReplayStatement;
import io.coilgun.sql.compile.SubscribeStatement;

/** The kind a statement is counted under in the node's statement meters: a handful of values, never the SQL. */
final class StatementKinds {
    private StatementKinds() {
    }

    static String of(CompiledStatement s) {
        if (s instanceof InsertStatement) {
            return "insert";
        } else if (s instanceof QueryStatement || s instanceof CursorStatement) {
            return "select";
        } else if (s instanceof CopyStatement) {
            return "copy_from";
        } else if (s instanceof CopyToStatement) {
            return "copy_to";
        } else if (s instanceof SubscribeStatement) {
            return "subscribe";
        } else if (s instanceof ReplayStatement) {
            return "replay";
        } else if (s instanceof CreateStreamStatement || s instanceof AlterStreamStatement
                || s instanceof DropStreamStatement || s instanceof CreateMetricStatement
                || s instanceof DropMetricStatement || s instanceof CreateSinkStatement
                || s instanceof DropSinkStatement) {
            return "ddl";
        }
        return "other"; // SET, SHOW, EXPLAIN, transactions
    }
}
