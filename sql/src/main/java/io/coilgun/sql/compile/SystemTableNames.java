package io.coilgun.sql.compile;

import java.util.List;

/** The tables of schema coilgun by name: what GRANT SELECT ON coilgun.<name> may name (the query engine has them). */
public final class SystemTableNames {
    public static final List<String> ALL = List.of("streams", "metrics", "partitioners", "tasks", "sources", "sinks",
            "source_errors", "failed_events", "nodes", "statistics");

    private SystemTableNames() {
    }
}
