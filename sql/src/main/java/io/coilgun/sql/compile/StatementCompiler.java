package io.coilgun.sql.compile;

import io.coilgun.planner.error.SqlState;
import io.coilgun.planner.model.Catalog;
import io.coilgun.planner.model.ColumnType;
import io.coilgun.planner.model.Durations;
import io.coilgun.planner.model.MetricDef;
import io.coilgun.planner.model.StreamDef;
import io.coilgun.planner.plan.PlanExplainer;
import io.coilgun.sql.parser.CoilgunParser;
import io.coilgun.sql.parser.SqlAlterStream;
import io.coilgun.sql.parser.SqlCopy;
import io.coilgun.sql.parser.SqlCopyTo;
import io.coilgun.sql.parser.SqlCreateMetric;
import io.coilgun.sql.parser.SqlCreateSink;
import io.coilgun.sql.parser.SqlCreateStream;
import io.coilgun.sql.parser.SqlCursor;
import io.coilgun.sql.parser.SqlDropMetric;
import io.coilgun.sql.parser.SqlDropSink;
import io.coilgun.sql.parser.SqlDropStream;
import io.coilgun.sql.parser.SqlExplainPlan;
import io.coilgun.sql.parser.SqlInsertReturning;
import io.coilgun.sql.parser.SqlReplay;
import io.coilgun.sql.parser.SqlShowObjects;
import io.coilgun.sql.parser.SqlSubscribe;
import io.coilgun.sql.parser.SqlTransaction;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlInsert;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlLiteral;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlSetOption;

/**
 * Compiles parsed statements against the catalog (see {@link CompiledStatement}). Thread-safe: it reads the
 * catalog, which is itself thread-safe, and holds no state of its own.
 */
public final class StatementCompiler {
    private final Catalog catalog;
    private final ValueConverter values;

    public StatementCompiler(Catalog catalog, ValueConverter values) {
        this.catalog = catalog;
        this.values = values;
    }

    /**
     * A stream as SHOW STREAMS and {@code coilgun.streams} describe it: name, columns, event_time, event_id,
     * partition_by, partitions (Integer; null when its partitioner topics differ), lateness, late_events, dedup_horizon, schema_version (Integer), replicas
     * (Integer).
     */
    /** A sink as SHOW SINKS and {@code coilgun.sinks} describe it: name, from, kind, topic, format. */
    public static Object[] sinkRow(io.coilgun.planner.model.SinkDef s) {
        return SinkCompiler.row(s);
    }

    public static Object[] streamRow(StreamDef s) {
        return new Object[] {s.name(), String.join(", ", s.columns().stream()
                .map(c -> c.name() + " " + c.typeName()).toList()), s.column(s.eventTimeIndex()).name(),
            s.eventIdIndex() < 0 ? null : s.column(s.eventIdIndex()).name(), String.join(", ", s.partitionBy()),
            s.partitionCounts().isEmpty() ? s.partitions() : null, Durations.format(s.latenessMicros()), s.latePolicy().name().toLowerCase(Locale.ROOT),
            Durations.format(s.dedupHorizonMicros()), s.schemaVersion(), s.replicas(),
            s.source() == null ? null : s.source().describe()};
    }

    private RowsStatement showStreams() {
        List<String[]> rows = new ArrayList<>();
        for (StreamDef s : catalog.streams()) {
            Object[] row = streamRow(s);
            String[] text = new String[row.length];
            for (int i = 0; i < row.length; i++) {
                text[i] = row[i] == null ? null : row[i].toString();
            }
            rows.add(text);
        }
        return new RowsStatement(List.of("name", "columns", "event_time", "event_id", "partition_by", "partitions",
                "lateness", "late_events", "dedup_horizon", "schema_version", "replicas", "source"), rows, "SHOW");
    }

    /** What SHOW METRICS says of the events before a metric was created. */
    private static String history(MetricDef m) {
        if (!m.backfills()) {
            return "started empty when created: events before it are not counted (no backfill)";
        }
        return "filled when created from " + (m.backfillMicros() == MetricDef.BACKFILL_ALL
                ? "all the history the reservoirs held"
                : "the last " + Durations.format(m.backfillMicros()).toLowerCase(Locale.ROOT)
                        + " of history the reservoirs held") + " (backfill)";
    }

    private RowsStatement showMetrics() {
        List<String[]> rows = new ArrayList<>();
        for (StreamDef s : catalog.streams()) {
            for (MetricDef m : catalog.metricsOf(s.name())) {
                PlanExplainer.MetricSql text = metricSql(m);
                rows.add(new String[] {m.name(), m.stream(), text == null ? null : String.join(", ",
                        text.aggregations()), text == null ? null : text.filter(), String.join(", ", m.groupBy()
                        .stream().map(i -> s.column(i).name()).toList()), m.window().toString(), history(m)});
            }
        }
        return new RowsStatement(List.of("name", "stream", "aggregations", "filter", "group_by", "window",
                "history"), rows, "SHOW");
    }

    private ExplainStatement explain(SqlText sql, SqlExplainPlan ep) {
        String name = ep.name().getSimple();
        StreamDef stream;
        String highlight = null;
        if (ep.metric()) {
            MetricDef m = catalog.metric(name).orElseThrow(() -> sql.error(SqlState.UNDEFINED_TABLE,
                    "metric \"" + name + "\" does not exist", ep.name()));
            stream = catalog.stream(m.stream()).orElseThrow();
            highlight = m.name();
        } else {
            stream = catalog.stream(name).orElseThrow(() -> sql.error(SqlState.UNDEFINED_TABLE,
                    "stream \"" + name + "\" does not exist", ep.name()));
        }
        return new ExplainStatement(PlanExplainer.explain(stream, catalog.metricsOf(stream.name()),
                StatementCompiler::metricSql, highlight));
    }

    /**
     * DROP STREAM: an unknown stream (without IF EXISTS) or one with metrics (without CASCADE) fails here, with the
     * position; the node checks again when it runs the drop (the catalog may have changed in between).
     */
    private DropStreamStatement dropStream(SqlText sql, SqlDropStream ds) {
        String name = ds.name().getSimple();
        if (catalog.stream(name).isEmpty()) {
            if (!ds.ifExists()) {
                throw StreamDrops.doesNotExist(name).withPositionIfAbsent(
                        CoilgunParser.offsetOf(sql.query(), ds.name().getParserPosition()));
            }
        } else if (!ds.cascade() && (!catalog.metricsOf(name).isEmpty() || !catalog.sinksOf(name).isEmpty())) {
            throw StreamDrops.dependentObjects(name, catalog.metricsOf(name), catalog.sinksOf(name));
        }
        return new DropStreamStatement(name, ds.ifExists(), ds.cascade());
    }

    /** The value of {@code SET name = value} as SHOW prints it: a string literal without its quotes. */
    private static String setValue(SqlNode value) {
        if (value == null) {
            return null;
        }
        if (value instanceof SqlLiteral lit) {
            Object v = lit.toValue();
            return v == null ? "" : v.toString();
        }
        if (value instanceof SqlIdentifier id && id.isSimple()) {
            return id.getSimple();
        }
        return value.toString();
    }

    /** A metric's WHERE clause and select items as SQL, read back from its DDL. */
    static PlanExplainer.MetricSql metricSql(MetricDef m) {
        try {
            SqlCreateMetric cm = (SqlCreateMetric) CoilgunParser.parse(m.ddl()).get(0).node();
            List<String> items = new ArrayList<>();
            for (SqlNode item : cm.query().getSelectList()) {
                items.add(CoilgunParser.toSql(item));
            }
            SqlNode where = cm.query().getWhere();
            return new PlanExplainer.MetricSql(where == null ? null : CoilgunParser.toSql(where), items);
        } catch (RuntimeException e) {
            return null; // a definition without DDL (tests): described from the definition
        }
    }

    /**
     * One row of a COPY as a complete, valid event (see {@link CopyStatement}).
     *
     * @throws io.coilgun.planner.error.CoilgunException when a field does not read as its column's type or a
     *     required value is missing
     */
    public Object[] copyRow(CopyStatement copy, String[] fields) {
        return InsertCompiler.copyRow(copy, fields, values);
    }

    /** {@link #parameterTypes(String, SqlNode, int[], int)} of a statement from the front door. */
    public ColumnType[] parameterTypes(SqlStatement statement, int count) {
        return parameterTypes(statement.query(), statement.node(), statement.parameterNumbers(), count);
    }

    /** {@link #compile(String, SqlNode, String, int[], List)} of a statement from the front door. */
    public CompiledStatement compile(SqlStatement statement, List<Object> parameters) {
        return compile(statement.query(), statement.node(), statement.text(), statement.parameterNumbers(),
                parameters);
    }

    /**
     * What a statement needs of the role that runs it, from what it names and nothing else, so that a role is
     * refused for want of a privilege before anything else about its statement is checked (see {@link Needs}).
     * Never throws: an object it names that does not exist needs nothing (compiling says it does not exist).
     */
    public List<Need> needs(SqlStatement statement) {
        return Needs.of(statement.node(), catalog);
    }

    /** What a compiled statement needs of the role that runs it: what it compiled against. */
    public List<Need> needs(CompiledStatement statement) {
        return Needs.of(statement, catalog);
    }

    /** {@link #compile(String, SqlNode, String)} of a statement from the front door, without parameters. */
    public CompiledStatement compile(SqlStatement statement) {
        return compile(statement.query(), statement.node(), statement.text());
    }

    /** The statement inside {@code COPY ( statement ) TO STDOUT}, compiled with the outer statement's parameters. */
    public CompiledStatement compileCopySource(SqlStatement statement, CopyToStatement copyTo,
            List<Object> parameters) {
        return compile(statement.query(), copyTo.query(), copyTo.queryText(), statement.parameterNumbers(),
                parameters);
    }

    /**
     * The rows a statement will return, without running it (parameters unbound).
     *
     * @throws io.coilgun.planner.error.CoilgunException when the statement does not compile
     */
    public ResultShape shape(SqlStatement statement) {
        SqlNode node = statement.node();
        if (node.isA(SqlKind.QUERY)) {
            return new ResultShape.Query((QueryStatement) compile(statement));
        }
        if (node instanceof SqlSubscribe) {
            return new ResultShape.Subscribe((SubscribeStatement) compile(statement, List.of()));
        }
        if (node instanceof SqlReplay) {
            return new ResultShape.Subscribe(((ReplayStatement) compile(statement, List.of())).shape());
        }
        if (node instanceof SqlCursor cursor && cursor.kind() == SqlCursor.Kind.FETCH) {
            return new ResultShape.Fetch(cursor.name());
        }
        if (node instanceof SqlExplainPlan) {
            return new ResultShape.TextColumns(ExplainStatement.COLUMNS);
        }
        if (node instanceof SqlShowObjects show) {
            // the columns of SHOW STREAMS and SHOW METRICS do not depend on the catalog's contents
            return show.streams() || show.metrics() || show.sinks() ? new ResultShape.TextColumns(
                    ((RowsStatement) compile(statement)).columns()) : new ResultShape.Setting(show.what());
        }
        if (node instanceof SqlInsertReturning ir
                && ir.insert().getTargetTable() instanceof SqlIdentifier target
                && target.isSimple()) {
            StreamDef stream = catalog.stream(target.getSimple()).orElse(null);
            if (stream != null) {
                return new ResultShape.InsertReturning(stream, catalog.metricsOf(stream.name()));
            }
        }
        return new ResultShape.NoRows();
    }

    /**
     * The column type each parameter $1..$n of a statement takes where the statement says (an INSERT value goes
     * to its column's type), null where it does not.
     */
    public ColumnType[] parameterTypes(String query, SqlNode node, int[] parameterNumbers, int count) {
        SqlText sql = new SqlText(query, parameterNumbers, List.of());
        ColumnType[] types = new ColumnType[count];
        SqlInsert insert = node instanceof SqlInsertReturning ir ? ir.insert()
                : node instanceof SqlInsert i ? i : null;
        if (insert != null) {
            InsertCompiler.parameterTypes(sql, insert, catalog, types);
        }
        return types;
    }

    /**
     * @param query the whole query string {@code node} was parsed from (error positions point into it)
     * @param node the statement
     * @param text the statement's own text (kept as the DDL of streams and metrics)
     * @throws io.coilgun.planner.error.CoilgunException for every error a user can cause
     */
    public CompiledStatement compile(String query, SqlNode node, String text) {
        return compile(query, node, text, new int[0], List.of());
    }

    /**
     * Like {@link #compile(String, SqlNode, String)}, with values bound to the statement's parameters.
     *
     * @param parameterNumbers the $n of each dynamic parameter of {@code query} (see
     *     {@link io.coilgun.sql.parser.ParsedStatement#parameterNumbers()})
     * @param parameters the values of $1..$n as pgwire decodes them (null = NULL)
     */
    public CompiledStatement compile(String query, SqlNode node, String text, int[] parameterNumbers,
            List<Object> parameters) {
        SqlText sql = new SqlText(query, parameterNumbers, parameters);
        if (node instanceof SqlCreateStream cs) {
            return StreamCompiler.compile(sql, cs, text);
        }
        if (node instanceof SqlAlterStream as) {
            return StreamCompiler.alter(sql, as, catalog, text);
        }
        if (node instanceof SqlShowObjects show) {
            return show.metrics() ? showMetrics() : show.streams() ? showStreams()
                    : show.sinks() ? SinkCompiler.show(catalog) : new ShowStatement(show.what());
        }
        if (node instanceof SqlCopy copy) {
            return InsertCompiler.copy(sql, copy, catalog);
        }
        if (node instanceof SqlTransaction tx) {
            return new TransactionStatement(tx.kind(), tx.savepoint());
        }
        if (node instanceof SqlExplainPlan ep) {
            return explain(sql, ep);
        }
        if (node instanceof SqlDropMetric dm) {
            String name = dm.name().getSimple();
            if (catalog.metric(name).isEmpty() && !dm.ifExists()) {
                throw sql.error(SqlState.UNDEFINED_TABLE, "metric \"" + name + "\" does not exist", dm.name());
            }
            List<io.coilgun.planner.model.SinkDef> sinks = catalog.sinks().stream()
                    .filter(k -> !k.wholeStream() && k.from().equals(name)).toList();
            if (!sinks.isEmpty()) {
                throw StreamDrops.metricHasSinks(name, sinks);
            }
            return new DropMetricStatement(name, dm.ifExists());
        }
        if (node instanceof SqlDropStream ds) {
            return dropStream(sql, ds);
        }
        if (node instanceof SqlCreateMetric cm) {
            return MetricCompiler.compile(sql, cm, catalog, text);
        }
        if (node instanceof SqlCreateSink cs) {
            return SinkCompiler.create(sql, cs, catalog, text);
        }
        if (node instanceof SqlDropSink ds) {
            return SinkCompiler.drop(sql, ds, catalog);
        }
        if (node instanceof io.coilgun.sql.parser.SqlRoleStatement rs) {
            return RoleCompiler.role(sql, rs, catalog);
        }
        if (node instanceof io.coilgun.sql.parser.SqlGrant g) {
            return RoleCompiler.grant(sql, g, catalog);
        }
        if (node instanceof SqlInsertReturning ir) {
            return InsertCompiler.compile(sql, ir.insert(), true, catalog, values);
        }
        if (node instanceof SqlInsert insert) {
            return InsertCompiler.compile(sql, insert, false, catalog, values);
        }
        if (node.isA(SqlKind.QUERY)) {
            // SELECT and the other query forms run in Calcite over metrics, streams and the catalogs
            int at = query.indexOf(text);
            return new QueryStatement(text, at < 0 ? 1 : query.codePointCount(0, at) + 1, QueryColumnNames.of(node));
        }
        if (node instanceof SqlSubscribe subscribe) {
            return SubscribeCompiler.compile(sql, subscribe, catalog);
        }
        if (node instanceof SqlReplay replay) {
            return ReplayCompiler.compile(sql, replay, catalog);
        }
        if (node instanceof SqlCopyTo copyTo) {
            return SubscribeCompiler.copyTo(sql, copyTo);
        }
        if (node instanceof SqlCursor cursor) {
            QueryStatement q = null;
            if (cursor.query() != null) {
                String inner = cursor.queryText(query);
                int at = query.indexOf(inner);
                q = new QueryStatement(inner, at < 0 ? 1 : query.codePointCount(0, at) + 1,
                        QueryColumnNames.of(cursor.query()));
            }
            return new CursorStatement(cursor.kind(), cursor.name(), q, cursor.hold(), cursor.noScroll(),
                    cursor.direction(), cursor.count());
        }
        if (node instanceof SqlSetOption set) {
            return new SetStatement(set.getName().toString(), setValue(set.getValue()));
        }
        throw sql.error(SqlState.FEATURE_NOT_SUPPORTED, "statement " + node.getKind() + " is not supported yet "
                + "(Coilgun runs CREATE STREAM, ALTER STREAM, CREATE METRIC, DROP METRIC, DROP STREAM, EXPLAIN, SHOW, "
                + "SELECT, SUBSCRIBE, INSERT, COPY, SET, BEGIN, COMMIT and ROLLBACK)", node);
    }
}
