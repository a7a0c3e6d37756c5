package io.coilgun.sql.compile;

import io.coilgun.planner.error.SqlState;
import io.coilgun.planner.model.Catalog;
import io.coilgun.planner.model.ColumnType;
import io.coilgun.planner.model.MetricDef;
import io.coilgun.planner.model.StreamDef;
import io.coilgun.sql.parser.SqlCreateMetric;
import io.coilgun.sql.parser.SqlReplay;
import java.time.LocalDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlLiteral;
import org.apache.calcite.sql.SqlNodeList;
import org.apache.calcite.sql.SqlTimestampLiteral;
import org.apache.calcite.util.NlsString;
import org.apache.calcite.util.TimestampString;

/** Compiles REPLAY: its metric exactly as CREATE METRIC compiles one (not deployed), and the times it replays. */
final class ReplayCompiler {
    /** The metric's name inside the replay (it has no name of its own; rows name aggregations by alias). */
    static final String NAME = "replay";

    private ReplayCompiler() {
    }

    static ReplayStatement compile(SqlText sql, SqlReplay replay, Catalog catalog) {
        SqlCreateMetric asMetric = new SqlCreateMetric(replay.getParserPosition(), false, false,
                new SqlIdentifier(NAME, replay.getParserPosition()), replay.query(), replay.window(),
                SqlNodeList.EMPTY);
        MetricDef metric = MetricCompiler.compile(sql, asMetric, catalog, "").metric();
        StreamDef stream = catalog.stream(metric.stream()).orElseThrow();
        long from = replay.from() == null ? Long.MIN_VALUE : micros(sql, replay.from());
        long to = replay.to() == null ? Long.MAX_VALUE : micros(sql, replay.to());
        if (to < from) {
            throw sql.error(SqlState.INVALID_PARAMETER_VALUE, "REPLAY … BETWEEN: the first time is after the second",
                    replay.from());
        }
        int[] eventColumns = new int[stream.columns().size()];
        List<String> names = new ArrayList<>();
        List<ColumnType> types = new ArrayList<>();
        for (int c = 0; c < eventColumns.length; c++) {
            eventColumns[c] = c;
            names.add(stream.column(c).name());
            types.add(stream.column(c).type());
        }
        for (var a : metric.aggregations()) {
            names.add(a.name());
            types.add(a.resultType());
        }
        SubscribeStatement shape = new SubscribeStatement(stream, metric, metric.partitioner(), eventColumns,
                List.of(metric), names, types, null);
        return new ReplayStatement(stream, metric, from, to, shape);
    }

    /** A bound: {@code TIMESTAMP '…'} or a string of that form, as microseconds since the epoch (UTC). */
    private static long micros(SqlText sql, SqlLiteral bound) {
        // TIMESTAMP '…' is parsed as a literal of a type resolved later (its value is the text), '…' as a string
        String text = bound instanceof SqlTimestampLiteral ts ? ts.getValueAs(TimestampString.class).toString()
                : bound.getValue() instanceof NlsString s ? s.getValue() : bound.toValue();
        if (text != null) {
            try {
                return ValueConverter.toMicros(LocalDateTime.parse(text.trim().replace(' ', 'T')));
            } catch (DateTimeParseException e) {
                // reported below
            }
        }
        throw sql.error(SqlState.INVALID_DATETIME_FORMAT, "REPLAY … BETWEEN takes timestamps, such as TIMESTAMP "
                + "'2026-01-01 00:00:00'; got " + bound, bound);
    }
}
