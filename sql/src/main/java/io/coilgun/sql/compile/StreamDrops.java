package io.coilgun.sql.compile;

import io.coilgun.planner.error.CoilgunException;
import io.coilgun.planner.error.SqlState;
import io.coilgun.planner.model.MetricDef;
import io.coilgun.planner.model.SinkDef;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/** The errors and notices of DROP STREAM, worded as Postgres words DROP TABLE's. */
public final class StreamDrops {
    private StreamDrops() {
    }

    public static CoilgunException doesNotExist(String stream) {
        return new CoilgunException(SqlState.UNDEFINED_TABLE, "stream \"" + stream + "\" does not exist");
    }

    /** {@code IF EXISTS} on an unknown stream. */
    public static String skipping(String stream) {
        return "stream \"" + stream + "\" does not exist, skipping";
    }

    /** DROP STREAM without CASCADE on a stream that has metrics: 2BP01, each dependent metric in DETAIL. */
    public static CoilgunException dependentObjects(String stream, List<MetricDef> metrics) {
        return dependentObjects(stream, metrics, List.of());
    }

    /** DROP STREAM without CASCADE on a stream with metrics or sinks: 2BP01, each dependent object in DETAIL. */
    public static CoilgunException dependentObjects(String stream, List<MetricDef> metrics, List<SinkDef> sinks) {
        return new CoilgunException(SqlState.DEPENDENT_OBJECTS_STILL_EXIST,
                "cannot drop stream " + stream + " because other objects depend on it",
                Stream.concat(metrics.stream().map(m -> "metric " + m.name() + " depends on stream " + stream),
                        sinks.stream().map(k -> "sink " + k.name() + " depends on " + (k.wholeStream() ? "stream "
                                : "metric ") + k.from())).collect(Collectors.joining("\n")),
                "Use DROP ... CASCADE to drop the dependent objects too.");
    }

    /** DROP METRIC of a metric a sink reads: 2BP01, each sink in DETAIL. */
    public static CoilgunException metricHasSinks(String metric, List<SinkDef> sinks) {
        return new CoilgunException(SqlState.DEPENDENT_OBJECTS_STILL_EXIST,
                "cannot drop metric " + metric + " because other objects depend on it",
                sinks.stream().map(k -> "sink " + k.name() + " depends on metric " + metric)
                        .collect(Collectors.joining("\n")),
                "Drop the sinks first (DROP SINK).");
    }

    /** The NOTICE of DROP STREAM ... CASCADE that dropped metrics too; null when it dropped none. */
    public static String cascades(List<MetricDef> metrics) {
        return cascades(metrics, List.of());
    }

    /** The NOTICE of DROP STREAM ... CASCADE that dropped metrics or sinks too; null when it dropped none. */
    public static String cascades(List<MetricDef> metrics, List<SinkDef> sinks) {
        int n = metrics.size() + sinks.size();
        if (n == 0) {
            return null;
        }
        if (n == 1) {
            return metrics.isEmpty() ? "drop cascades to sink " + sinks.get(0).name()
                    : "drop cascades to metric " + metrics.get(0).name();
        }
        return "drop cascades to " + n + " other objects";
    }
}
