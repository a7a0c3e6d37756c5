package io.coilgun.sql.compile;

import io.coilgun.planner.model.MetricDef;
import io.coilgun.planner.model.StreamDef;
import java.util.List;

/**
 * The rows a statement returns, known before it runs (what the extended protocol's Describe answers). Some
 * shapes are complete here; the others name what completes them: the session's settings for SHOW, the query
 * engine for a SELECT, the stream's metrics for INSERT ... RETURNING.
 */
public sealed interface ResultShape {
    /** A statement that returns no rows (DDL, INSERT without RETURNING, SET, transaction control, COPY FROM). */
    record NoRows() implements ResultShape {
    }

    /** Rows of text columns with these names (EXPLAIN, SHOW STREAMS, SHOW METRICS). */
    record TextColumns(List<String> names) implements ResultShape {
        public TextColumns {
            names = List.copyOf(names);
        }
    }

    /** {@code SHOW name} ({@code all} for SHOW ALL): one of the session's settings. */
    record Setting(String name) implements ResultShape {
    }

    /** A query the engine runs (SELECT and the other query forms): the engine describes its columns. */
    record Query(QueryStatement statement) implements ResultShape {
    }

    /** SUBSCRIBE: the columns of its metric's results. */
    record Subscribe(SubscribeStatement statement) implements ResultShape {
    }

    /** FETCH from a cursor: the columns of the cursor's query, which the session holds. */
    record Fetch(String cursor) implements ResultShape {
    }

    /** INSERT ... RETURNING: the stream's columns followed by its metrics' results. */
    record InsertReturning(StreamDef stream, List<MetricDef> metrics) implements ResultShape {
        public InsertReturning {
            metrics = List.copyOf(metrics);
        }
    }
}
