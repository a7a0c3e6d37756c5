package io.coilgun.sql.compile;

import io.coilgun.planner.error.SqlState;
import io.coilgun.planner.model.AggregationDef;
import io.coilgun.planner.model.AggregationKind;
import io.coilgun.planner.model.Catalog;
import io.coilgun.planner.model.ColumnType;
import io.coilgun.planner.model.Durations;
import io.coilgun.planner.model.MetricDef;
import io.coilgun.planner.model.StreamDef;
import io.coilgun.planner.model.WindowSpec;
import io.coilgun.sql.parser.Intervals;
import io.coilgun.sql.parser.SqlCreateMetric;
import io.coilgun.sql.parser.SqlOption;
import io.coilgun.sql.parser.SqlWindowSpec;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.OptionalInt;
import java.util.Set;
import org.apache.calcite.sql.SqlBasicCall;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNumericLiteral;
import org.apache.calcite.sql.SqlSelect;
import org.apache.calcite.sql.SqlSyntax;

/**
 * {@code CREATE METRIC name AS SELECT <aggregations> FROM stream GROUP BY fields OVER <window>} into a
 * {@link MetricDef}. The metric runs on the partitioner topic of its first GROUP BY field that is a partition_by
 * field of the stream, so every group lives on one task.
 *
 * <p>What runs today: COUNT(*), COUNT(x), SUM, AVG, STDDEV (sample) and STDDEV_POP of a column or an expression,
 * with a WHERE filter (both validated by Calcite, see {@link ExpressionCompiler}), over SLIDING, TUMBLING and
 * INFINITE windows, each optionally DELAYED BY; MIN, MAX, LAST and PREV of any type; COUNT(DISTINCT x).
 */
final class MetricCompiler {
    private MetricCompiler() {
    }

    static CreateMetricStatement compile(SqlText sql, SqlCreateMetric node, Catalog catalog, String ddl) {
        if (node.getReplace()) {
            throw sql.error(SqlState.FEATURE_NOT_SUPPORTED, "CREATE OR REPLACE METRIC is not supported", node);
        }
        String name = node.name().getSimple();
        SqlSelect q = node.query();
        StreamDef stream = fromStream(sql, q, catalog);
        refuseUnsupportedClauses(sql, q);
        Aggregations aggregations = aggregations(sql, q, stream);
        List<Integer> groupBy = new ArrayList<>();
        String partitioner = null;
        if (q.getGroup() == null || q.getGroup().isEmpty()) {
            throw sql.error(SqlState.GROUPING_ERROR, "a metric needs GROUP BY with one of the stream's partition_by "
                    + "fields (" + String.join(", ", stream.partitionBy()) + ")", q);
        }
        for (SqlNode g : q.getGroup()) {
            if (!(g instanceof SqlIdentifier id) || !id.isSimple()) {
                throw sql.error(SqlState.FEATURE_NOT_SUPPORTED, "GROUP BY takes column names only", g);
            }
            int column = column(sql, stream, id);
            if (groupBy.contains(column)) {
                throw sql.error(SqlState.GROUPING_ERROR, "column \"" + id.getSimple() + "\" is grouped by twice", g);
            }
            groupBy.add(column);
            if (partitioner == null && stream.partitionBy().contains(id.getSimple())) {
                partitioner = id.getSimple();
            }
        }
        if (partitioner == null) {
            throw sql.error(SqlState.GROUPING_ERROR, "a metric must group by one of the stream's partition_by fields ("
                    + String.join(", ", stream.partitionBy()) + ")", q.getGroup());
        }
        WindowSpec window = window(sql, node.window());
        long backfill = 0;
        Set<String> given = new HashSet<>();
        for (SqlOption o : node.options()) {
            String key = o.keyName().toLowerCase(Locale.ROOT);
            if (!given.add(key)) {
                throw sql.error(SqlState.SYNTAX_ERROR, "option \"" + key + "\" specified more than once", o.key());
            }
            if (!key.equals("backfill")) {
                throw sql.error(SqlState.INVALID_PARAMETER_VALUE, "unrecognized metric option \"" + key
                        + "\" (known: backfill)", o.key());
            }
            backfill = backfill(sql, o);
        }
        return new CreateMetricStatement(new MetricDef(name, stream.name(), aggregations.list(), groupBy, partitioner,
                window, ddl, aggregations.filter(), backfill), node.ifNotExists());
    }

    /** {@code backfill = '30 days'} (a positive duration) or {@code 'all'}. */
    private static long backfill(SqlText sql, SqlOption o) {
        String value = o.valueAsString().trim();
        if (value.equalsIgnoreCase("all")) {
            return MetricDef.BACKFILL_ALL;
        }
        try {
            long micros = Durations.parse(value);
            if (micros > 0) {
                return micros;
            }
        } catch (IllegalArgumentException | ArithmeticException e) {
            // reported below
        }
        throw sql.error(SqlState.INVALID_PARAMETER_VALUE, "backfill must be a positive duration such as '30 days', "
                + "or 'all', got '" + value + "'", o.value());
    }

    private static StreamDef fromStream(SqlText sql, SqlSelect q, Catalog catalog) {
        SqlNode from = q.getFrom();
        if (!(from instanceof SqlIdentifier id) || !id.isSimple()) {
            throw sql.error(SqlState.FEATURE_NOT_SUPPORTED, "a metric reads FROM one stream (no joins, subqueries "
                    + "or aliases)", from == null ? q : from);
        }
        return catalog.stream(id.getSimple()).orElseThrow(() -> sql.error(SqlState.UNDEFINED_TABLE,
                "stream \"" + id.getSimple() + "\" does not exist", id));
    }

    private static void refuseUnsupportedClauses(SqlText sql, SqlSelect q) {
        if (q.getHaving() != null) {
            throw sql.error(SqlState.FEATURE_NOT_SUPPORTED, "HAVING is not supported in a metric", q.getHaving());
        }
        if (q.isDistinct()) {
            throw sql.error(SqlState.FEATURE_NOT_SUPPORTED, "SELECT DISTINCT is not supported in a metric", q);
        }
        if ((q.getOrderList() != null && !q.getOrderList().isEmpty()) || q.getFetch() != null
                || q.getOffset() != null) {
            throw sql.error(SqlState.FEATURE_NOT_SUPPORTED, "ORDER BY, LIMIT and OFFSET are not supported in a metric",
                    q);
        }
        if (q.getWindowList() != null && !q.getWindowList().isEmpty()) {
            throw sql.error(SqlState.FEATURE_NOT_SUPPORTED, "WINDOW clauses are not supported in a metric; use OVER",
                    q.getWindowList());
        }
    }

    /** An aggregation as written, before its expression argument (if any) is validated. */
    private record Written(AggregationKind kind, int column, SqlNode expression, String name, SqlCall call) {
    }

    /** The aggregations and the filter, validated and translated. */
    private record Aggregations(List<AggregationDef> list, String filter) {
    }

    private static Aggregations aggregations(SqlText sql, SqlSelect q, StreamDef stream) {
        List<Written> written = new ArrayList<>();
        Set<String> names = new HashSet<>();
        for (SqlNode item : q.getSelectList()) {
            SqlNode expr = item;
            String alias = null;
            if (item.getKind() == SqlKind.AS) {
                SqlBasicCall as = (SqlBasicCall) item;
                expr = as.operand(0);
                alias = ((SqlIdentifier) as.operand(1)).getSimple();
            }
            Written w = aggregation(sql, expr, alias, stream);
            if (!names.add(w.name())) {
                throw sql.error(SqlState.DUPLICATE_COLUMN, "metric output \"" + w.name()
                        + "\" specified more than once; name it with AS", item);
            }
            written.add(w);
        }
        List<SqlNode> expressions = new ArrayList<>();
        for (Written w : written) {
            if (w.expression() != null) {
                expressions.add(w.expression());
            }
        }
        ExpressionCompiler.Compiled compiled = expressions.isEmpty() && q.getWhere() == null ? null
                : ExpressionCompiler.compile(sql, stream, expressions, q.getWhere());
        List<AggregationDef> out = new ArrayList<>();
        int e = 0;
        for (Written w : written) {
            if (w.kind() == AggregationKind.COUNT_STAR) {
                out.add(new AggregationDef(AggregationKind.COUNT_STAR, -1, w.name(), ColumnType.BIGINT));
                continue;
            }
            ColumnType type;
            String expression = null;
            if (w.expression() != null) {
                type = compiled.argumentTypes().get(e);
                expression = compiled.arguments().get(e);
                e++;
            } else {
                type = stream.column(w.column()).type();
            }
            out.add(finish(sql, w, type, expression));
        }
        return new Aggregations(out, compiled == null ? null : compiled.filter());
    }

    /**
     * The aggregation with its result type, the type Postgres reports for it over the stream's column types (int4,
     * int8, float8, numeric, varchar, bool, timestamp), except AVG of integers and the STDDEVs of integers and
     * numerics: double precision (read out correctly rounded from an exact sum) where Postgres says numeric. Combinations Postgres has no function for
     * are refused as Postgres refuses them (42883, at the aggregation).
     */
    private static AggregationDef finish(SqlText sql, Written w, ColumnType type, String expression) {
        String fn = w.call().getOperator().getName().toLowerCase(Locale.ROOT);
        ColumnType result = switch (w.kind()) {
            case COUNT, COUNT_DISTINCT -> ColumnType.BIGINT;
            // sum(int4) is int8, sum(int8) numeric: exact, never wraps
            case SUM -> type == ColumnType.INTEGER ? ColumnType.BIGINT
                    : type == ColumnType.BIGINT || type == ColumnType.NUMERIC ? ColumnType.NUMERIC
                    : type == ColumnType.DOUBLE ? ColumnType.DOUBLE : null;
            // avg(numeric) is exact, to Postgres' scale; the others read out of doubles
            case AVG -> type == ColumnType.NUMERIC && w.column() >= 0 ? ColumnType.NUMERIC
                    : type.isNumeric() ? ColumnType.DOUBLE : null;
            case STDDEV, STDDEV_POP -> type.isNumeric() ? ColumnType.DOUBLE : null;
            // min(boolean) does not exist in Postgres; min(varchar) is text in the C collation
            case MIN, MAX -> type == ColumnType.BOOLEAN ? null : type;
            // the value of one event of the window, of any type
            case LAST, PREV -> type;
            default -> throw new IllegalStateException("unexpected aggregation " + w.kind());
        };
        if (result == null) {
            String name = w.kind() == AggregationKind.STDDEV ? "stddev" : fn;
            throw sql.error(SqlState.UNDEFINED_FUNCTION, "function " + name + "(" + PgTypeNames.of(type)
                    + ") does not exist", w.call());
        }
        return new AggregationDef(w.kind(), w.column(), w.name(), result, expression);
    }

    private static Written aggregation(SqlText sql, SqlNode expr, String alias, StreamDef stream) {
        if (!(expr instanceof SqlCall call) || !(expr instanceof SqlBasicCall)
                || call.getOperator().getSyntax() == SqlSyntax.BINARY
                || call.getOperator().getSyntax() == SqlSyntax.PREFIX) {
            throw sql.error(SqlState.GROUPING_ERROR, "a metric's select list holds aggregations only, such as "
                    + "SUM(amount) or COUNT(*); the group key is implied", expr);
        }
        String fn = call.getOperator().getName().toUpperCase(Locale.ROOT);
        AggregationKind kind = switch (fn) {
            case "COUNT" -> AggregationKind.COUNT;
            case "SUM" -> AggregationKind.SUM;
            case "AVG" -> AggregationKind.AVG;
            case "MIN" -> AggregationKind.MIN;
            case "MAX" -> AggregationKind.MAX;
            case "STDDEV", "STDDEV_SAMP" -> AggregationKind.STDDEV;
            case "STDDEV_POP" -> AggregationKind.STDDEV_POP;
            case "LAST", "LAST_VALUE" -> AggregationKind.LAST;
            case "PREV" -> AggregationKind.PREV;
            default -> throw sql.error(SqlState.UNDEFINED_FUNCTION, "aggregate function "
                    + fn.toLowerCase(Locale.ROOT) + " does not exist", call);
        };
        String name = alias != null ? alias : fn.toLowerCase(Locale.ROOT);
        boolean distinct = call.getFunctionQuantifier() != null
                && "DISTINCT".equalsIgnoreCase(call.getFunctionQuantifier().toValue());
        // Calcite reads LAST(x) and PREV(x) as MATCH_RECOGNIZE navigation with a default offset: LAST(x, 0), PREV(x, 1)
        boolean navigation = (kind == AggregationKind.LAST || kind == AggregationKind.PREV) && call.operandCount() == 2
                && call.operand(1) instanceof SqlNumericLiteral offset
                && offset.intValue(true) == (kind == AggregationKind.LAST ? 0 : 1);
        if (call.operandCount() != 1 && !navigation) {
            throw sql.error(SqlState.UNDEFINED_FUNCTION, fn.toLowerCase(Locale.ROOT) + " takes one argument", call);
        }
        SqlNode arg = call.operand(0);
        if (kind == AggregationKind.COUNT && arg instanceof SqlIdentifier star && star.isStar()) {
            if (distinct) {
                throw sql.error(SqlState.SYNTAX_ERROR, "COUNT(DISTINCT *) is not valid", call);
            }
            return new Written(AggregationKind.COUNT_STAR, -1, null, name, call);
        }
        if (distinct) {
            kind = AggregationKind.COUNT_DISTINCT;
        }
        if (arg instanceof SqlIdentifier id && id.isSimple()) {
            return new Written(kind, column(sql, stream, id), null, name, call);
        }
        return new Written(kind, -1, arg, name, call);
    }

    private static int column(SqlText sql, StreamDef stream, SqlIdentifier id) {
        OptionalInt i = id.isSimple() ? stream.columnIndex(id.getSimple()) : OptionalInt.empty();
        if (i.isEmpty()) {
            throw sql.error(SqlState.UNDEFINED_COLUMN, "column \"" + id + "\" does not exist in stream \""
                    + stream.name() + "\"", id);
        }
        return i.getAsInt();
    }

    private static WindowSpec window(SqlText sql, SqlWindowSpec w) {
        long delay = w.delay() == null ? 0 : Intervals.toMicros(sql.query(), w.delay());
        return switch (w.kind()) {
            case SLIDING -> new WindowSpec(WindowSpec.Kind.SLIDING, Intervals.toMicros(sql.query(), w.size()), delay);
            case TUMBLING -> new WindowSpec(WindowSpec.Kind.TUMBLING, Intervals.toMicros(sql.query(), w.size()), delay);
            case INFINITE -> new WindowSpec(WindowSpec.Kind.INFINITE, 0, delay);
        };
    }

}
