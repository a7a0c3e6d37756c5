package io.coilgun.server.session;

import io.coilgun.pgwire.spi.Column;
import io.coilgun.pgwire.spi.PgType;
import io.coilgun.planner.model.MetricDef;
import io.coilgun.planner.model.StreamDef;
import io.coilgun.sql.parser.SqlExplainPlan;
import io.coilgun.sql.parser.SqlInsertReturning;
import io.coilgun.sql.parser.SqlShowObjects;
import java.util.List;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlNode;

/**
 * The columns a statement returns, known before it runs (extended protocol Describe). Empty for statements that
 * return no rows.
 */
final class ResultShapes {
    static final List<Column> EXPLAIN = List.of(new Column("QUERY PLAN", PgType.TEXT));
    static final List<Column> SHOW_ALL = textColumns(List.of("name", "setting", "description"));

    private ResultShapes() {
    }

    static List<Column> textColumns(List<String> names) {
        return names.stream().map(n -> new Column(n, PgType.TEXT)).toList();
    }

    static List<Column> of(SessionServices node, SessionSettings settings, SqlNode statement) {
        if (statement instanceof SqlExplainPlan) {
            return EXPLAIN;
        }
        if (statement instanceof SqlShowObjects show) {
            if (show.streams() || show.metrics()) {
                // The same compile SHOW runs: its columns do not depend on the catalog's contents.
                return textColumns(((io.coilgun.sql.compile.RowsStatement) node.compiler()
                        .compile("", statement, "")).columns());
            }
            return show.what().equals("all") ? SHOW_ALL
                    : List.of(new Column(settings.displayName(show.what()), PgType.TEXT));
        }
        if (statement instanceof SqlInsertReturning ir
                && ir.insert().getTargetTable() instanceof SqlIdentifier target && target.isSimple()) {
            StreamDef stream = node.catalog().stream(target.getSimple()).orElse(null);
            if (stream != null) {
                List<MetricDef> metrics = node.catalog().metricsOf(stream.name());
                return Inserter.columns(stream, metrics);
            }
        }
        return List.of();
    }
}
