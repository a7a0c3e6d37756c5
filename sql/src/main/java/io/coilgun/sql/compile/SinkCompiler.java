package io.coilgun.sql.compile;

import io.coilgun.planner.error.SqlState;
import io.coilgun.planner.model.Catalog;
import io.coilgun.planner.model.MetricDef;
import io.coilgun.planner.model.SinkDef;
import io.coilgun.planner.model.StreamDef;
import io.coilgun.sql.parser.SqlCreateSink;
import io.coilgun.sql.parser.SqlDropSink;
import io.coilgun.sql.parser.SqlOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.calcite.sql.SqlLiteral;

/**
 * CREATE SINK and DROP SINK, checked against the catalog. The one option is {@code format}: {@code 'json'} (the
 * default and, for now, the only one).
 */
final class SinkCompiler {
    private SinkCompiler() {
    }

    static CreateSinkStatement create(SqlText sql, SqlCreateSink node, Catalog catalog, String ddl) {
        String name = node.name().getSimple();
        String from = node.from().getSimple();
        MetricDef metric = catalog.metric(from).orElse(null);
        StreamDef stream = metric != null ? null : catalog.stream(from).orElse(null);
        if (metric == null && stream == null) {
            throw sql.error(SqlState.UNDEFINED_TABLE, "metric or stream \"" + from + "\" does not exist",
                    node.from());
        }
        String topic = StreamCompiler.kafkaTopic(sql, node.topic(),
                ((SqlLiteral) node.topic()).getValueAs(String.class), "topic");
        for (SqlOption o : node.options()) {
            String key = o.keyName().toLowerCase(Locale.ROOT);
            if (!key.equals("format")) {
                throw sql.error(SqlState.INVALID_PARAMETER_VALUE, "unrecognized sink option \"" + key
                        + "\" (known: format)", o.key());
            }
            if (!o.valueAsString().trim().equalsIgnoreCase("json")) {
                throw sql.error(SqlState.INVALID_PARAMETER_VALUE, "sink format \"" + o.valueAsString()
                        + "\" is not supported (supported: json)", o.value());
            }
        }
        SinkDef sink = metric != null ? new SinkDef(name, from, metric.stream(), false, topic, ddl, -1)
                : new SinkDef(name, from, stream.name(), true, topic, ddl, -1);
        return new CreateSinkStatement(sink, node.ifNotExists());
    }

    static DropSinkStatement drop(SqlText sql, SqlDropSink node, Catalog catalog) {
        String name = node.name().getSimple();
        if (catalog.sink(name).isEmpty() && !node.ifExists()) {
            throw sql.error(SqlState.UNDEFINED_OBJECT, "sink \"" + name + "\" does not exist", node.name());
        }
        return new DropSinkStatement(name, node.ifExists());
    }

    /** SHOW SINKS: each sink's name, the metric or stream it reads, its topic and format. */
    static RowsStatement show(Catalog catalog) {
        List<String[]> rows = new ArrayList<>();
        for (SinkDef s : catalog.sinks()) {
            rows.add(row(s));
        }
        return new RowsStatement(COLUMNS, rows, "SHOW");
    }

    static final List<String> COLUMNS = List.of("name", "input", "kind", "topic", "format");

    /** A sink as SHOW SINKS and {@code coilgun.sinks} describe it. */
    static String[] row(SinkDef s) {
        return new String[] {s.name(), s.from(), s.wholeStream() ? "stream" : "metric", s.topic(), "json"};
    }
}
