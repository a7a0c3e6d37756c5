package io.coilgun.sql.compile;

import io.coilgun.planner.error.SqlState;
import io.coilgun.planner.model.AggregationDef;
import io.coilgun.planner.model.AggregationKind;
import io.coilgun.planner.model.Catalog;
import io.coilgun.planner.model.ColumnType;
import io.coilgun.planner.model.MetricDef;
import io.coilgun.planner.model.StreamDef;
import io.coilgun.planner.model.WindowSpec;
import io.coilgun.sql.parser.Intervals;
import io.coilgun.sql.parser.SqlCreateMetric;
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
import org.apache.calcite.sql.SqlSelect;

/**
 * {@code CREATE METRIC name AS SELECT <aggregations> FROM stream GROUP BY fields OVER <window>} into a
 * {@link MetricDef}. The metric runs on the partitioner topic of its first GROUP BY field that is a partition_by
 * field of the stream, so every group lives on one task.
 *
 * <p>What runs today: COUNT(*), COUNT(column), SUM, AVG, STDDEV (sample) and STDDEV_POP of a column, over
 * SLIDING, TUMBLING and INFINITE windows, each optionally DELAYED BY. MIN, MAX, LAST, PREV, COUNT(DISTINCT),
 * filters and expression arguments parse, and are refused with FEATURE_NOT_SUPPORTED (0A000) until they are exact.
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
        List<AggregationDef> aggregations = aggregations(sql, q, stream);
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
        if (!node.options().isEmpty()) {
            throw sql.error(SqlState.INVALID_PARAMETER_VALUE, "unrecognized metric option \""
                    + node.options().get(0).keyName() + "\"", node.options().get(0).key());
        }
        return new CreateMetricStatement(new MetricDef(name, stream.name(), aggregations, groupBy, partitioner, window,
                ddl), node.ifNotExists());
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
        if (q.getWhere() != null) {
            throw sql.error(SqlState.FEATURE_NOT_SUPPORTED, "metric filters (WHERE) are not supported yet", q.getWhere());
        }
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

    private static List<AggregationDef> aggregations(SqlText sql, SqlSelect q, StreamDef stream) {
        List<AggregationDef> out = new ArrayList<>();
        Set<String> names = new HashSet<>();
        for (SqlNode item : q.getSelectList()) {
            SqlNode expr = item;
            String alias = null;
            if (item.getKind() == SqlKind.AS) {
                SqlBasicCall as = (SqlBasicCall) item;
                expr = as.operand(0);
                alias = ((SqlIdentifier) as.operand(1)).getSimple();
            }
            AggregationDef agg = aggregation(sql, expr, alias, stream);
            if (!names.add(agg.name())) {
                throw sql.error(SqlState.DUPLICATE_COLUMN, "metric output \"" + agg.name()
                        + "\" specified more than once; name it with AS", item);
            }
            out.add(agg);
        }
        return out;
    }

    private static AggregationDef aggregation(SqlText sql, SqlNode expr, String alias, StreamDef stream) {
        if (!(expr instanceof SqlCall call) || !(expr instanceof SqlBasicCall)
                || call.getOperator().getSyntax() == org.apache.calcite.sql.SqlSyntax.BINARY
                || call.getOperator().getSyntax() == org.apache.calcite.sql.SqlSyntax.PREFIX) {
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
        if (call.operandCount() != 1) {
            throw sql.error(SqlState.UNDEFINED_FUNCTION, fn.toLowerCase(Locale.ROOT) + " takes one argument", call);
        }
        SqlNode arg = call.operand(0);
        if (kind == AggregationKind.COUNT && arg instanceof SqlIdentifier star && star.isStar()) {
            if (distinct) {
                throw sql.error(SqlState.SYNTAX_ERROR, "COUNT(DISTINCT *) is not valid", call);
            }
            return new AggregationDef(AggregationKind.COUNT_STAR, -1, name, ColumnType.BIGINT);
        }
        if (distinct) {
            kind = AggregationKind.COUNT_DISTINCT;
        }
        if (!(arg instanceof SqlIdentifier id) || !id.isSimple()) {
            throw sql.error(SqlState.FEATURE_NOT_SUPPORTED, "aggregation arguments must be a column for now "
                    + "(expressions come with the task-plan issue)", arg);
        }
        int column = column(sql, stream, id);
        ColumnType type = stream.column(column).type();
        return switch (kind) {
            case COUNT -> new AggregationDef(kind, column, name, ColumnType.BIGINT);
            case SUM, AVG, STDDEV, STDDEV_POP -> {
                if (!type.isNumeric()) {
                    throw sql.error(SqlState.UNDEFINED_FUNCTION, "function " + fn.toLowerCase(Locale.ROOT) + "("
                            + PgTypeNames.of(type) + ") does not exist", call);
                }
                yield new AggregationDef(kind, column, name,
                        kind == AggregationKind.SUM && type.isIntegral() ? ColumnType.BIGINT : ColumnType.DOUBLE);
            }
            default -> throw sql.error(SqlState.FEATURE_NOT_SUPPORTED, (kind == AggregationKind.COUNT_DISTINCT
                    ? "COUNT(DISTINCT ...)" : fn) + " is not supported yet (COUNT, SUM, AVG, STDDEV and STDDEV_POP are)", call);
        };
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
