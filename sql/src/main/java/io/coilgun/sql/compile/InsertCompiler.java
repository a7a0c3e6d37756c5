package io.coilgun.sql.compile;

import io.coilgun.planner.error.SqlState;
import io.coilgun.planner.model.Catalog;
import io.coilgun.planner.model.ColumnType;
import io.coilgun.planner.model.StreamColumn;
import io.coilgun.planner.model.StreamDef;
import io.coilgun.sql.parser.SqlCopy;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlDynamicParam;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlInsert;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNodeList;
import org.apache.calcite.sql.parser.SqlParserPos;

/**
 * {@code INSERT INTO stream [(columns)] VALUES (...), ... [RETURNING *]} into complete, valid rows. Every row is
 * checked before any is accepted, so an INSERT with one bad row inserts nothing. Columns not listed are NULL.
 * NULL is refused for NOT NULL columns, the event time, the event id and the partition_by fields (an event
 * without a partition key has no task to go to).
 */
final class InsertCompiler {
    private InsertCompiler() {
    }

    static InsertStatement compile(SqlText sql, SqlInsert insert, boolean returning, Catalog catalog,
            ValueConverter values) {
        if (!(insert.getTargetTable() instanceof SqlIdentifier target) || !target.isSimple()) {
            throw sql.error(SqlState.FEATURE_NOT_SUPPORTED, "INSERT INTO takes a stream name",
                    insert.getTargetTable());
        }
        StreamDef stream = catalog.stream(target.getSimple()).orElseThrow(() -> sql.error(SqlState.UNDEFINED_TABLE,
                "stream \"" + target.getSimple() + "\" does not exist", target));
        int[] targets = targetColumns(sql, stream, insert.getTargetColumnList());
        SqlNode source = insert.getSource();
        if (source.getKind() != SqlKind.VALUES) {
            throw sql.error(SqlState.FEATURE_NOT_SUPPORTED, "INSERT takes VALUES (INSERT ... SELECT is not supported)",
                    source);
        }
        List<Object[]> rows = new ArrayList<>();
        for (SqlNode r : ((SqlCall) source).getOperandList()) {
            List<SqlNode> exprs = r.getKind() == SqlKind.ROW ? ((SqlCall) r).getOperandList() : List.of(r);
            rows.add(row(sql, stream, targets, exprs, r, values));
        }
        return new InsertStatement(stream, rows, returning);
    }

    /** {@code COPY stream [(columns)] FROM STDIN [options]}: the target and the options, checked. */
    static CopyStatement copy(SqlText sql, SqlCopy copy, Catalog catalog) {
        String name = copy.name().getSimple();
        StreamDef stream = catalog.stream(name).orElseThrow(() -> sql.error(SqlState.UNDEFINED_TABLE,
                "stream \"" + name + "\" does not exist", copy.name()));
        int[] targets = targetColumns(sql, stream, copy.columns());
        List<String> names = new ArrayList<>();
        for (int t : targets) {
            names.add(stream.column(t).name());
        }
        Map<String, String> options = CopyOptions.read(sql, copy.options(), false);
        return new CopyStatement(stream, targets, names, options);
    }

    /**
     * One COPY row (text fields, null = NULL) as a complete, valid event, with the checks and conversions of an
     * INSERT of the same values as quoted strings.
     */
    static Object[] copyRow(CopyStatement copy, String[] fields, ValueConverter values) {
        int[] numbers = new int[fields.length];
        List<SqlNode> exprs = new ArrayList<>(fields.length);
        for (int i = 0; i < fields.length; i++) {
            numbers[i] = i + 1;
            exprs.add(new SqlDynamicParam(i, SqlParserPos.ZERO));
        }
        SqlText sql = new SqlText("", numbers, Arrays.asList((Object[]) fields));
        return row(sql, copy.stream(), copy.targets(), exprs, null, values);
    }

    /**
     * Sets {@code types[n - 1]} to the column type of each parameter $n written as a value of the INSERT; leaves the
     * rest alone. Says nothing about an INSERT that would not compile: executing it reports that.
     */
    static void parameterTypes(SqlText sql, SqlInsert insert, Catalog catalog, ColumnType[] types) {
        if (!(insert.getTargetTable() instanceof SqlIdentifier target) || !target.isSimple()
                || insert.getSource().getKind() != SqlKind.VALUES) {
            return;
        }
        StreamDef stream = catalog.stream(target.getSimple()).orElse(null);
        if (stream == null) {
            return;
        }
        int[] targets;
        try {
            targets = targetColumns(sql, stream, insert.getTargetColumnList());
        } catch (RuntimeException e) {
            return;
        }
        for (SqlNode r : ((SqlCall) insert.getSource()).getOperandList()) {
            List<SqlNode> exprs = r.getKind() == SqlKind.ROW ? ((SqlCall) r).getOperandList() : List.of(r);
            for (int i = 0; i < exprs.size() && i < targets.length; i++) {
                if (exprs.get(i) instanceof SqlDynamicParam p) {
                    int index = p.getIndex();
                    int n = index < sql.parameterNumbers().length ? sql.parameterNumbers()[index] : 0;
                    if (n > 0 && n <= types.length && types[n - 1] == null) {
                        types[n - 1] = stream.column(targets[i]).type();
                    }
                }
            }
        }
    }

    private static int[] targetColumns(SqlText sql, StreamDef stream, SqlNodeList list) {
        if (list == null || list.isEmpty()) {
            int[] all = new int[stream.columns().size()];
            for (int i = 0; i < all.length; i++) {
                all[i] = i;
            }
            return all;
        }
        int[] targets = new int[list.size()];
        boolean[] seen = new boolean[stream.columns().size()];
        for (int i = 0; i < targets.length; i++) {
            SqlIdentifier id = (SqlIdentifier) list.get(i);
            OptionalInt c = id.isSimple() ? stream.columnIndex(id.getSimple()) : OptionalInt.empty();
            if (c.isEmpty()) {
                throw sql.error(SqlState.UNDEFINED_COLUMN, "column \"" + id + "\" of stream \"" + stream.name()
                        + "\" does not exist", id);
            }
            if (seen[c.getAsInt()]) {
                throw sql.error(SqlState.DUPLICATE_COLUMN, "column \"" + id + "\" specified more than once", id);
            }
            seen[c.getAsInt()] = true;
            targets[i] = c.getAsInt();
        }
        return targets;
    }

    private static Object[] row(SqlText sql, StreamDef stream, int[] targets, List<SqlNode> exprs, SqlNode rowNode,
            ValueConverter values) {
        if (exprs.size() > targets.length) {
            throw sql.error(SqlState.SYNTAX_ERROR, "INSERT has more expressions than target columns",
                    exprs.get(targets.length));
        }
        if (exprs.size() < targets.length) {
            throw sql.error(SqlState.SYNTAX_ERROR, "INSERT has more target columns than expressions", rowNode);
        }
        Object[] row = new Object[stream.columns().size()];
        SqlNode[] at = new SqlNode[row.length];
        for (int i = 0; i < targets.length; i++) {
            row[targets[i]] = values.convert(sql, exprs.get(i), stream.column(targets[i]));
            at[targets[i]] = exprs.get(i);
        }
        for (int c = 0; c < row.length; c++) {
            if (row[c] == null && mustNotBeNull(stream, c)) {
                StreamColumn col = stream.column(c);
                throw sql.error(SqlState.NOT_NULL_VIOLATION, "null value in column \"" + col.name()
                        + "\" of stream \"" + stream.name() + "\" violates not-null constraint (" + why(stream, c)
                        + ")", at[c] != null ? at[c] : rowNode);
            }
        }
        values.checkEventTime(sql, at[stream.eventTimeIndex()], (Long) row[stream.eventTimeIndex()]);
        return row;
    }

    private static boolean mustNotBeNull(StreamDef stream, int c) {
        return stream.column(c).notNull() || c == stream.eventTimeIndex() || c == stream.eventIdIndex()
                || stream.partitionBy().contains(stream.column(c).name());
    }

    private static String why(StreamDef stream, int c) {
        if (c == stream.eventTimeIndex()) {
            return "it is the event time";
        }
        if (c == stream.eventIdIndex()) {
            return "it is the event id";
        }
        if (stream.partitionBy().contains(stream.column(c).name())) {
            return "it is a partition_by field";
        }
        return "declared NOT NULL";
    }
}
