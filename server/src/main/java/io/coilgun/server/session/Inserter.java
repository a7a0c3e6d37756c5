package io.coilgun.server.session;

import io.coilgun.cluster.ingest.IngestService;
import io.coilgun.cluster.ingest.LateEventException;
import io.coilgun.cluster.ingest.RowRejectedException;
import io.coilgun.cluster.ingest.TaskStoppedException;
import io.coilgun.pgwire.spi.CachedPlanChangedException;
import io.coilgun.pgwire.spi.Column;
import io.coilgun.pgwire.spi.PgException;
import io.coilgun.pgwire.spi.PgType;
import io.coilgun.pgwire.spi.QueryResult;
import io.coilgun.planner.error.SqlState;
import io.coilgun.planner.model.Catalog;
import io.coilgun.planner.model.ColumnType;
import io.coilgun.planner.model.Durations;
import io.coilgun.planner.model.MetricDef;
import io.coilgun.planner.model.StreamDef;
import io.coilgun.sql.compile.InsertStatement;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.IntFunction;
import java.util.stream.Collectors;

/**
 * Runs INSERT and COPY FROM as pgwire statements over the node's {@link IngestService} (which publishes the rows,
 * all or none, and waits for the tasks): answers, for RETURNING *, one row per event (the event id, then every
 * metric of the stream, creation order, as {@code <metric>_<name>}), the command tag, a NOTICE per duplicate, and
 * errors worded for the statement ("row 3 of the INSERT", "line 4" of a COPY).
 */
public final class Inserter {
    private final Catalog catalog;
    private final IngestService ingest;
    private final Path spoolDir;
    /** By stream: the RETURNING columns its INSERTs answer with now. */
    private final Map<String, Returning> returning = new ConcurrentHashMap<>();

    /**
     * @param spoolDir where a big COPY keeps its rows until CopyDone ({@link CopySpool}); what a node that stopped
     *     in the middle of one left there is deleted
     */
    public Inserter(Catalog catalog, IngestService ingest, Path spoolDir) {
        this.catalog = catalog;
        this.ingest = ingest;
        this.spoolDir = spoolDir;
        CopySpool.deleteLeftovers(spoolDir);
    }

    IngestService ingestService() {
        return ingest;
    }

    Path spoolDir() {
        return spoolDir;
    }

    /**
     * A batch of a big COPY ({@link CopyBatches}): its rows' outcomes, no RETURNING; errors worded as for a
     * statement.
     */
    CompletableFuture<IngestService.Ingested> ingestBatch(StreamDef stream, List<Object[]> rows,
            IntFunction<String> rowName, IntFunction<String> rowContext) {
        return ingest.ingest(stream, rows).handle((done, e) -> {
            if (e != null) {
                throw new CompletionException(error(stream, e, rowName, rowContext));
            }
            return done;
        });
    }

    public CompletableFuture<QueryResult> insert(InsertStatement ins) {
        return insert(ins, null);
    }

    /**
     * An INSERT whose client was told the result columns {@code described} (null: nothing told, e.g. the simple
     * query protocol): when RETURNING * now has others (a metric was created or dropped since), it is refused
     * before anything is published, as Postgres refuses a prepared statement whose result type changed; drivers
     * prepare it again.
     */
    public CompletableFuture<QueryResult> insert(InsertStatement ins, List<Column> described) {
        return insert(ins, described, i -> ins.rows().size() > 1 ? "row " + (i + 1) + " of the INSERT" : "the event",
                i -> null);
    }

    /**
     * Ingests the statement's rows and answers once every task replied.
     *
     * @param rowName how an error names the row at an index ("row 3 of the INSERT", "line 4")
     * @param rowContext the CONTEXT of an error about the row at an index, or null
     */
    public CompletableFuture<QueryResult> insert(InsertStatement ins, IntFunction<String> rowName,
            IntFunction<String> rowContext) {
        return insert(ins, null, rowName, rowContext);
    }

    private CompletableFuture<QueryResult> insert(InsertStatement ins, List<Column> described,
            IntFunction<String> rowName, IntFunction<String> rowContext) {
        StreamDef stream = ins.stream();
        List<MetricDef> metrics = catalog.metricsOf(stream.name()); // the RETURNING columns, fixed before publishing
        List<Column> columns = ins.returning() ? returningColumns(stream, metrics) : List.of();
        if (ins.returning() && described != null && !described.equals(columns)) {
            return CompletableFuture.failedFuture(new CachedPlanChangedException());
        }
        return ingest.ingest(stream, ins.rows()).handle((done, e) -> {
            if (e != null) {
                throw new CompletionException(error(stream, e, rowName, rowContext));
            }
            List<Object[]> rows = new ArrayList<>();
            List<String> notices = new ArrayList<>();
            for (IngestService.RowResult r : done.rows()) {
                if (r.outcome() == IngestService.Outcome.DUPLICATE) {
                    notices.add("event " + r.eventId() + " is a duplicate (its id was already accepted): not counted "
                            + "again");
                }
                if (ins.returning()) {
                    rows.add(row(metrics, r));
                }
            }
            // As INSERT ... ON CONFLICT DO NOTHING: the tag counts the events applied; duplicates get a NOTICE.
            String tag = "INSERT 0 " + done.applied();
            return ins.returning() ? new QueryResult(columns, rows, tag, notices)
                    : new QueryResult(List.of(), List.of(), tag, notices);
        });
    }

    /** DROP STREAM: see {@link IngestService#streamDropped}. */
    public void streamDropped(String stream, Runnable removeFromCatalog) {
        returning.remove(stream);
        ingest.streamDropped(stream, removeFromCatalog);
    }

    /** An ingest failure as the statement's error. */
    static Throwable error(StreamDef stream, Throwable failure, IntFunction<String> rowName,
            IntFunction<String> rowContext) {
        Throwable e = failure instanceof CompletionException && failure.getCause() != null ? failure.getCause()
                : failure;
        if (e instanceof LateEventException late) {
            return lateError(stream, late, rowName, rowContext);
        }
        if (e instanceof TaskStoppedException stopped) {
            return new PgException(SqlState.OBJECT_NOT_IN_PREREQUISITE_STATE.code(), stopped.getMessage()
                    + "; nothing was applied (see coilgun.tasks; a restart of the node reopens the task)");
        }
        if (e instanceof RowRejectedException rejected) {
            String where = rejected.rows() > 1 ? "row " + (rejected.row() + 1) + ": " : "";
            String applied = "";
            if (rejected.rows() > 1) {
                applied = rejected.applied().isEmpty() ? "; no row of the statement was applied"
                        : "; these rows were applied nonetheless: " + rejected.applied().stream().limit(20)
                                .map(i -> String.valueOf(i + 1)).collect(Collectors.joining(", "))
                                + (rejected.applied().size() > 20 ? " (" + rejected.applied().size() + " in all)" : "");
            }
            return new PgException(rejected.state().code(), where + rejected.getMessage() + applied);
        }
        return e;
    }

    static PgException lateError(StreamDef stream, LateEventException late, IntFunction<String> rowName,
            IntFunction<String> rowContext) {
        String context = rowContext.apply(late.row());
        String message = rowName.apply(late.row()) + " is late: its event time " + timestamp(late.eventTime())
                + " is older than the stream time " + timestamp(late.streamTime()) + " minus the lateness "
                + Durations.format(stream.latenessMicros()) + " (task " + late.task() + "); nothing was applied";
        return new PgException(SqlState.DATETIME_FIELD_OVERFLOW.code(), message) {
            private static final long serialVersionUID = 1L;

            @Override
            public String context() {
                return context;
            }
        };
    }

    /** As Postgres prints a timestamp: {@code 2026-01-01 10:00:00}, with the fraction only when there is one. */
    private static String timestamp(long micros) {
        return PgValues.timestampText(micros);
    }

    private static Object[] row(List<MetricDef> metrics, IngestService.RowResult r) {
        int width = 1;
        for (MetricDef m : metrics) {
            width += m.aggregations().size();
        }
        Object[] row = new Object[width];
        row[0] = r.eventId();
        int at = 1;
        for (MetricDef m : metrics) {
            Object[] values = r.metrics().get(m.name());
            for (int a = 0; a < m.aggregations().size(); a++) {
                Object v = values == null || a >= values.length ? null : values[a];
                row[at++] = PgValues.toWire(m.aggregations().get(a).resultType(), v);
            }
        }
        return row;
    }

    /** The RETURNING columns of a stream with these metrics, made once per change of either (not per INSERT). */
    private List<Column> returningColumns(StreamDef stream, List<MetricDef> metrics) {
        Returning r = returning.get(stream.name());
        if (r == null || r.metrics() != metrics || r.stream() != stream && !r.stream().equals(stream)) {
            r = new Returning(stream, metrics, List.copyOf(columns(stream, metrics)));
            returning.put(stream.name(), r);
        }
        return r.columns();
    }

    private record Returning(StreamDef stream, List<MetricDef> metrics, List<Column> columns) {
    }

    static List<Column> columns(StreamDef stream, List<MetricDef> metrics) {
        List<Column> cols = new ArrayList<>();
        if (stream.eventIdIndex() < 0) {
            cols.add(new Column("event_id", PgType.INT8));
        } else {
            var idCol = stream.column(stream.eventIdIndex());
            cols.add(new Column(idCol.name(), pgType(idCol.type())));
        }
        for (MetricDef m : metrics) {
            for (int a = 0; a < m.aggregations().size(); a++) {
                cols.add(new Column(m.outputColumn(a), PgValues.resultType(m.aggregations().get(a).resultType())));
            }
        }
        return cols;
    }

    static PgType pgType(ColumnType t) {
        return PgValues.columnType(t);
    }
}
