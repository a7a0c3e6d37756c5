package io.coilgun.sql.compile;

import io.coilgun.planner.error.CoilgunException;
import io.coilgun.planner.error.SqlState;
import io.coilgun.planner.model.MetricDef;
import java.util.List;
import java.util.stream.Collectors;

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
        return new CoilgunException(SqlState.DEPENDENT_OBJECTS_STILL_EXIST,
                "cannot drop stream " + stream + " because other objects depend on it",
                metrics.stream().map(m -> "metric " + m.name() + " depends on stream " + stream)
                        .collect(Collectors.joining("\n")),
                "Use DROP ... CASCADE to drop the dependent objects too.");
    }

    /** The NOTICE of DROP STREAM ... CASCADE that dropped metrics too; null when it dropped none. */
    public static String cascades(List<MetricDef> metrics) {
        if (metrics.isEmpty()) {
            return null;
        }
        if (metrics.size() == 1) {
            return "drop cascades to metric " + metrics.get(0).name();
        }
        return "drop cascades to " + metrics.size() + " other objects";
    }
}
