package io.coilgun.server.session;

import io.coilgun.cluster.ingest.EventPublisher;
import io.coilgun.cluster.ingest.LateEventException;
import io.coilgun.cluster.ingest.TaskStoppedException;
import io.coilgun.cluster.reply.Reply;
import io.coilgun.cluster.reply.ReplyStatus;
import io.coilgun.pgwire.spi.Column;
import io.coilgun.pgwire.spi.PgException;
import io.coilgun.pgwire.spi.PgType;
import io.coilgun.pgwire.spi.QueryResult;
import io.coilgun.planner.error.SqlState;
import io.coilgun.planner.event.EventCodec;
import io.coilgun.planner.model.Catalog;
import io.coilgun.planner.model.ColumnType;
import io.coilgun.planner.model.Durations;
import io.coilgun.planner.model.MetricDef;
import io.coilgun.planner.model.StreamDef;
import io.coilgun.sql.compile.InsertStatement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.IntFunction;

/**
 * Runs INSERT: publishes every row through Kafka, waits for the tasks' replies and, for RETURNING *, answers one
 * row per event: the event id, then every metric of the stream (creation order) as {@code <metric>_<name>}.
 */
public final class Inserter {
    private final Catalog catalog;
    private final EventPublisher publisher;
    private final Map<StreamDef, EventCodec> codecs = new ConcurrentHashMap<>();
    /** The statements of each stream waiting for their replies (failed at once if the stream is dropped). */
    private final Map<String, Set<CompletableFuture<QueryResult>>> inflight = new ConcurrentHashMap<>();

    public Inserter(Catalog catalog, EventPublisher publisher) {
        this.catalog = catalog;
        this.publisher = publisher;
    }

    public CompletableFuture<QueryResult> insert(InsertStatement ins) {
        return insert(ins, i -> ins.rows().size() > 1 ? "row " + (i + 1) + " of the INSERT" : "the event", i -> null);
    }

    /**
     * Publishes the statement's rows, all or none (see {@link EventPublisher#publishAll}), and answers once every
     * task replied.
     *
     * @param rowName how an error names the row at an index ("row 3 of the INSERT", "line 4")
     * @param rowContext the CONTEXT of an error about the row at an index, or null
     */
    public CompletableFuture<QueryResult> insert(InsertStatement ins, IntFunction<String> rowName,
            IntFunction<String> rowContext) {
        StreamDef stream = ins.stream();
        EventCodec codec = codecs.computeIfAbsent(stream, EventCodec::new);
        long[] assignedIds = new long[ins.rows().size()];
        for (int i = 0; i < ins.rows().size(); i++) {
            assignedIds[i] = stream.eventIdIndex() < 0 ? publisher.assignId() : 0;
        }
        CompletableFuture<QueryResult> result = new CompletableFuture<>();
        Set<CompletableFuture<QueryResult>> running = inflight.computeIfAbsent(stream.name(),
                k -> ConcurrentHashMap.newKeySet());
        running.add(result);
        result.whenComplete((r, e) -> running.remove(result));
        publish(ins, codec, assignedIds, new boolean[ins.rows().size()], 0, result, rowName, rowContext);
        return result;
    }

    /** How many rounds of probes a statement may take when its rows keep looking late (a fast-moving stream). */
    private static final int MAX_PROBE_ROUNDS = 3;

    /**
     * Publishes the rows not {@code excluded} (retries found to be duplicates), or, when some look late, probes them
     * first: a retry of an accepted event is a duplicate however late (within the dedup horizon), so the statement
     * goes on without it; a late row that is not a retry fails the statement, nothing applied.
     */
    private void publish(InsertStatement ins, EventCodec codec, long[] assignedIds, boolean[] excluded, int round,
            CompletableFuture<QueryResult> result, IntFunction<String> rowName, IntFunction<String> rowContext) {
        StreamDef stream = ins.stream();
        List<CompletableFuture<List<Reply>>> pending;
        LateEventException late;
        synchronized (publisher.ingestLock(stream.name())) {
            if (catalog.stream(stream.name()).isEmpty()) {
                result.completeExceptionally(dropped(stream.name()));
                return;
            }
            try {
                pending = publisher.publishAll(stream, codec, ins.rows(), assignedIds, excluded);
                late = null;
            } catch (LateEventException e) {
                late = e;
                pending = null;
            } catch (TaskStoppedException stopped) {
                result.completeExceptionally(new PgException(SqlState.OBJECT_NOT_IN_PREREQUISITE_STATE.code(),
                        stopped.getMessage() + "; nothing was applied (see coilgun.tasks; a restart of the node "
                                + "reopens the task)"));
                return;
            } catch (RuntimeException e) {
                result.completeExceptionally(e); // Kafka refused a send
                return;
            }
        }
        if (late != null) {
            probeLateRows(ins, codec, assignedIds, excluded, round, late, result, rowName, rowContext);
            return;
        }
        answer(ins, assignedIds, pending, result);
    }

    /** Probes the rows that look late (outside the ingest lock: a Kafka round trip); goes on or fails. */
    private void probeLateRows(InsertStatement ins, EventCodec codec, long[] assignedIds, boolean[] excluded,
            int round, LateEventException late, CompletableFuture<QueryResult> result, IntFunction<String> rowName,
            IntFunction<String> rowContext) {
        StreamDef stream = ins.stream();
        if (stream.eventIdIndex() < 0 || round >= MAX_PROBE_ROUNDS) {
            // ids assigned on ingest are new on every attempt: such a row cannot be a retry
            result.completeExceptionally(lateError(stream, late, rowName, rowContext));
            return;
        }
        List<Map.Entry<Integer, LateEventException>> rows = List.copyOf(late.lateRows().entrySet());
        List<CompletableFuture<Boolean>> probes = new ArrayList<>(rows.size());
        for (Map.Entry<Integer, LateEventException> row : rows) {
            probes.add(publisher.probe(stream, codec, ins.rows().get(row.getKey()), assignedIds[row.getKey()],
                    row.getValue().topicIndex()));
        }
        CompletableFuture.allOf(probes.toArray(CompletableFuture[]::new)).whenComplete((v, e) -> {
            if (e != null) {
                result.completeExceptionally(e);
                return;
            }
            for (int i = 0; i < rows.size(); i++) {
                if (!probes.get(i).join()) {
                    result.completeExceptionally(lateError(stream, rows.get(i).getValue(), rowName, rowContext));
                    return;
                }
            }
            boolean[] more = excluded.clone();
            for (Map.Entry<Integer, LateEventException> row : rows) {
                more[row.getKey()] = true;
            }
            publish(ins, codec, assignedIds, more, round + 1, result, rowName, rowContext);
        });
    }

    /** Answers the statement once every task replied. */
    private void answer(InsertStatement ins, long[] assignedIds, List<CompletableFuture<List<Reply>>> pending,
            CompletableFuture<QueryResult> result) {
        StreamDef stream = ins.stream();
        CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new)).thenApply(v -> {
            List<MetricDef> metrics = catalog.metricsOf(stream.name());
            List<Object[]> rows = new ArrayList<>();
            List<String> notices = new ArrayList<>();
            int applied = 0;
            for (int i = 0; i < pending.size(); i++) {
                List<Reply> replies = pending.get(i).join();
                boolean duplicate = false;
                boolean dropped = false;
                for (Reply r : replies) {
                    duplicate |= r.status() == ReplyStatus.DUPLICATE;
                    dropped |= r.status() == ReplyStatus.DROPPED;
                }
                if (duplicate) {
                    notices.add("event " + eventId(stream, ins.rows().get(i), assignedIds[i])
                            + " is a duplicate (its id was already accepted): not counted again");
                } else if (!dropped) {
                    applied++; // the tag counts the events applied (a late event dropped is not)
                }
                for (Reply r : replies) {
                    if (r.status() == ReplyStatus.LATE || r.status() == ReplyStatus.INVALID
                            || r.status() == ReplyStatus.FAILED) {
                        String where = pending.size() > 1 ? "row " + (i + 1) + ": " : "";
                        SqlState state = r.status() == ReplyStatus.LATE ? SqlState.DATETIME_FIELD_OVERFLOW
                                : r.status() == ReplyStatus.INVALID ? SqlState.DATA_EXCEPTION : SqlState.INTERNAL_ERROR;
                        throw new PgException(state.code(), where + r.message());
                    }
                }
                if (ins.returning()) {
                    rows.add(row(stream, metrics, ins.rows().get(i), assignedIds[i], replies));
                }
            }
            // As INSERT ... ON CONFLICT DO NOTHING: the tag counts the events applied; duplicates get a NOTICE.
            if (!ins.returning()) {
                return new QueryResult(List.of(), List.of(), "INSERT 0 " + applied, notices);
            }
            return new QueryResult(columns(stream, metrics), rows, "INSERT 0 " + applied, notices);
        }).whenComplete((r, e) -> {
            if (e != null) {
                result.completeExceptionally(e);
            } else {
                result.complete(r);
            }
        });
    }

    /**
     * DROP STREAM, on the DDL thread: runs {@code removeFromCatalog} while no statement of the stream is publishing,
     * then fails the statements still waiting for replies (their tasks are about to go): no INSERT publishes to
     * the stream afterwards, and none waits for a reply that will not come.
     */
    public void streamDropped(String stream, Runnable removeFromCatalog) {
        synchronized (publisher.ingestLock(stream)) {
            removeFromCatalog.run();
        }
        Set<CompletableFuture<QueryResult>> running = inflight.remove(stream);
        if (running != null) {
            for (CompletableFuture<QueryResult> r : running) {
                r.completeExceptionally(dropped(stream));
            }
        }
        codecs.keySet().removeIf(s -> s.name().equals(stream));
    }

    private static PgException dropped(String stream) {
        return new PgException(SqlState.UNDEFINED_TABLE.code(), "stream \"" + stream
                + "\" does not exist (it was dropped while the statement ran)");
    }

    private static PgException lateError(StreamDef stream, LateEventException late, IntFunction<String> rowName,
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
        return io.coilgun.pgwire.types.PgTextEncoder.encode(PgType.TIMESTAMP, PgValues.timestamp(micros));
    }

    private static Object eventId(StreamDef stream, Object[] event, long assignedId) {
        return stream.eventIdIndex() < 0 ? assignedId : event[stream.eventIdIndex()];
    }

    private static Object[] row(StreamDef stream, List<MetricDef> metrics, Object[] event, long assignedId,
            List<Reply> replies) {
        int width = 1;
        for (MetricDef m : metrics) {
            width += m.aggregations().size();
        }
        Object[] row = new Object[width];
        row[0] = stream.eventIdIndex() < 0 ? assignedId : event[stream.eventIdIndex()];
        int at = 1;
        for (MetricDef m : metrics) {
            Object[] values = null;
            for (Reply r : replies) {
                values = values != null ? values : r.metrics().get(m.name());
            }
            for (int a = 0; a < m.aggregations().size(); a++) {
                Object v = values == null || a >= values.length ? null : values[a];
                row[at++] = PgValues.toWire(m.aggregations().get(a).resultType(), v);
            }
        }
        return row;
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
