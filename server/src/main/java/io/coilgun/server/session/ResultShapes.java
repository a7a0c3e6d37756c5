package io.coilgun.server.session;

import io.coilgun.pgwire.spi.Column;
import io.coilgun.pgwire.spi.PgException;
import io.coilgun.pgwire.spi.PgType;
import io.coilgun.planner.error.SqlState;
import io.coilgun.sql.compile.ExplainStatement;
import io.coilgun.sql.compile.ResultShape;
import io.coilgun.sql.compile.SqlStatement;
import java.util.List;
import java.util.Set;
import java.util.function.Function;

/**
 * The columns a statement returns, known before it runs (extended protocol Describe): the shape the SQL front
 * door tells, completed with what the session knows (its settings) and asks the node (a query's columns). Empty
 * for statements that return no rows.
 */
final class ResultShapes {
    static final List<Column> EXPLAIN = textColumns(ExplainStatement.COLUMNS);
    static final List<Column> SHOW_ALL = textColumns(List.of("name", "setting", "description"));

    private ResultShapes() {
    }

    static List<Column> textColumns(List<String> names) {
        return names.stream().map(n -> new Column(n, PgType.TEXT)).toList();
    }

    /** @param cursors the columns of the session's cursor of a name (FETCH), or null when there is none */
    static List<Column> of(SessionServices node, SessionSettings settings, SqlStatement statement,
            Set<Integer> numericParameters, String user, String database, Function<String, List<Column>> cursors) {
        ResultShape shape = node.compiler().shape(statement);
        if (shape instanceof ResultShape.Fetch f) {
            List<Column> columns = cursors.apply(f.cursor());
            if (columns == null) {
                throw new PgException(SqlState.INVALID_CURSOR_NAME.code(),
                        "cursor \"" + f.cursor() + "\" does not exist");
            }
            return columns;
        } else if (shape instanceof ResultShape.Query q) {
            return QueryRunner.columns(node.describeQuery(q.statement(), numericParameters, user, database));
        } else if (shape instanceof ResultShape.Subscribe s) {
            return Subscription.columns(s.statement());
        } else if (shape instanceof ResultShape.TextColumns t) {
            return textColumns(t.names());
        } else if (shape instanceof ResultShape.Setting s) {
            return s.name().equals("all") ? SHOW_ALL
                    : List.of(new Column(settings.displayName(s.name()), PgType.TEXT));
        } else if (shape instanceof ResultShape.InsertReturning ir) {
            return Inserter.columns(ir.stream(), ir.metrics());
        }
        return List.of();
    }
}
