package io.coilgun.server.session;

import io.coilgun.cluster.ingest.IngestService;
import io.coilgun.cluster.ingest.LateEventException;
import io.coilgun.cluster.ingest.LateJudgement;
import io.coilgun.pgwire.spi.PgException;
import io.coilgun.pgwire.spi.QueryResult;
import io.coilgun.planner.model.StreamDef;
import io.coilgun.sql.compile.CopyStatement;
import io.coilgun.sql.compile.StatementCompiler;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.function.Function;

/**
 * A COPY too big to publish as one statement ({@link StreamCopyIn} spooled its rows): published in batches, one
 * at a time, in order, so that its memory and its share of the node's events in flight stay bounded.
 *
 * <p>All or none as far as the front end can tell: on a stream with {@code late_events = 'reject'} every row is
 * first judged for lateness, batch after batch, before any is published (a late row that is not the retry of an
 * accepted event fails the COPY with nothing applied, as for a small one). What only happens once publishing has
 * begun (another client's events made a later batch late, a task refused a row, the statement timed out, Kafka went
 * away) fails the COPY with the rows before the failed batch applied, which the error's DETAIL says; a COPY sent
 * again counts them as duplicates when the stream has an event_id column.
 */
final class CopyBatches {
    /** Rows per batch (each a multi-row INSERT). */
    static final int BATCH_ROWS = Integer.getInteger("coilgun.copyBatchRows", 5_000);
    /** At most this many duplicates get a NOTICE each; the rest are counted in one. */
    private static final int MAX_DUPLICATE_NOTICES = 100;

    /** One batch: its rows, and the COPY's line and row number (0-based) of each. */
    private record Batch(List<Object[]> rows, long[] lines, long firstRow) {
    }

    private final CopyStatement copy;
    private final StatementCompiler compiler;
    private final Inserter inserter;
    private final List<Object[]> head;
    private final long[] headLines;
    private final CopySpool spool;
    private final Executor executor;
    private final CompletableFuture<QueryResult> done = new CompletableFuture<>();

    private long applied;
    private long duplicates;
    private final List<String> notices = new ArrayList<>();
    /** The line the batch being published begins with, for an error that comes after others were applied. */
    private long publishedBefore = -1;

    /**
     * @param head the first rows, converted, kept in memory
     * @param spool the rest, as the client sent them
     * @param executor where batches are read and converted (never a network thread)
     */
    CopyBatches(CopyStatement copy, StatementCompiler compiler, Inserter inserter, List<Object[]> head,
            long[] headLines, CopySpool spool, Executor executor) {
        this.copy = copy;
        this.compiler = compiler;
        this.inserter = inserter;
        this.head = head;
        this.headLines = headLines;
        this.spool = spool;
        this.executor = executor;
    }

    /** Judges (when the stream rejects late events) and publishes every batch; the COPY's result. */
    CompletableFuture<QueryResult> run() {
        StreamDef stream = copy.stream();
        LateJudgement judged = inserter.ingestService().newJudgement(stream);
        boolean judge = stream.latePolicy() == io.coilgun.planner.model.LatePolicy.REJECT;
        CompletableFuture<Void> judgedAll = judge ? each(batch -> inserter.ingestService()
                .judgeAhead(stream, batch.rows(), judged).exceptionallyCompose(e -> failed(stream, batch, e)))
                : CompletableFuture.completedFuture(null);
        judgedAll.thenCompose(v -> each(this::publish)).whenComplete((v, e) -> {
            spool.close();
            if (e != null) {
                done.completeExceptionally(e instanceof CompletionException && e.getCause() != null ? e.getCause()
                        : e);
                return;
            }
            if (duplicates > MAX_DUPLICATE_NOTICES) {
                notices.add((duplicates - MAX_DUPLICATE_NOTICES) + " more events of the COPY are duplicates (their "
                        + "ids were already accepted): not counted again");
            }
            done.complete(new QueryResult(List.of(), List.of(), "COPY " + applied, notices));
        });
        return done;
    }

    /** The COPY's result; failed from outside (statement_timeout) it publishes no further batch. */
    CompletableFuture<QueryResult> result() {
        return done;
    }

    private CompletableFuture<Void> publish(Batch batch) {
        publishedBefore = batch.lines()[0];
        StreamDef stream = copy.stream();
        return inserter.ingestBatch(stream, batch.rows(), i -> rowName(batch, i), i -> rowContext(batch, i))
                .handle((r, e) -> {
                    if (e != null) {
                        throw new CompletionException(partlyApplied(e));
                    }
                    for (IngestService.RowResult row : r.rows()) {
                        if (row.outcome() == IngestService.Outcome.DUPLICATE && ++duplicates
                                <= MAX_DUPLICATE_NOTICES) {
                            notices.add("event " + row.eventId() + " is a duplicate (its id was already accepted): "
                                    + "not counted again");
                        }
                    }
                    applied += r.applied();
                    return null;
                });
    }

    /** A failure once publishing began: the same error, its DETAIL saying what was applied before it. */
    private Throwable partlyApplied(Throwable failure) {
        Throwable e = failure instanceof CompletionException && failure.getCause() != null ? failure.getCause()
                : failure;
        PgException pg = e instanceof PgException p ? p : ErrorMapper.toPg(e);
        String detail = applied == 0 ? "No row of the COPY was applied."
                : "A COPY of more than " + StreamCopyIn.IN_MEMORY_ROWS + " rows is applied in batches of " + BATCH_ROWS
                        + ": its rows before line " + publishedBefore + " were applied (" + applied + " events), "
                        + "the rest were not.";
        return new PgException(pg.sqlState(), pg.getMessage()) {
            private static final long serialVersionUID = 1L;

            @Override
            public String detail() {
                return detail;
            }

            @Override
            public String context() {
                return pg.context();
            }
        };
    }

    /** A late row found while judging ahead: the COPY fails, nothing applied. */
    private CompletableFuture<Void> failed(StreamDef stream, Batch batch, Throwable failure) {
        Throwable e = failure instanceof CompletionException && failure.getCause() != null ? failure.getCause()
                : failure;
        if (e instanceof LateEventException late) {
            return CompletableFuture.failedFuture(Inserter.lateError(stream, late, i -> rowName(batch, i),
                    i -> rowContext(batch, i)));
        }
        return CompletableFuture.failedFuture(ErrorMapper.toPg(e));
    }

    private static String rowName(Batch batch, int i) {
        return "row " + (batch.firstRow() + i + 1) + " of the COPY (line " + batch.lines()[i] + ")";
    }

    private String rowContext(Batch batch, int i) {
        return "COPY " + copy.stream().name() + ", line " + batch.lines()[i];
    }

    /** Runs {@code step} on each batch in order, the next once the one before completed; stops at a failure. */
    private CompletableFuture<Void> each(Function<Batch, CompletableFuture<Void>> step) {
        CompletableFuture<Void> all = new CompletableFuture<>();
        Batches batches = new Batches();
        next(batches, step, all);
        return all.whenComplete((v, e) -> batches.close());
    }

    private void next(Batches batches, Function<Batch, CompletableFuture<Void>> step, CompletableFuture<Void> all) {
        CompletableFuture.supplyAsync(batches::next, executor).thenCompose(batch -> {
            if (batch == null) {
                return CompletableFuture.completedFuture(Boolean.FALSE);
            }
            if (done.isDone()) {
                throw new CompletionException(StatementTimeout.expired()); // ended from outside: stop here
            }
            return step.apply(batch).thenApply(v -> Boolean.TRUE);
        }).whenComplete((more, e) -> {
            if (e != null) {
                all.completeExceptionally(e);
            } else if (more) {
                next(batches, step, all);
            } else {
                all.complete(null);
            }
        });
    }

    /** The COPY's rows in batches, from the first: the ones in memory, then the spooled ones, converted again. */
    private final class Batches implements AutoCloseable {
        private int headAt;
        private long row;
        private CopySpool.Reader reader;

        Batch next() {
            List<Object[]> rows = new ArrayList<>(BATCH_ROWS);
            long[] lines = new long[BATCH_ROWS];
            long first = row;
            while (rows.size() < BATCH_ROWS && headAt < head.size()) {
                lines[rows.size()] = headLines[headAt];
                rows.add(head.get(headAt++));
            }
            if (rows.size() < BATCH_ROWS && reader == null) {
                reader = spool.read();
            }
            while (rows.size() < BATCH_ROWS) {
                String[] fields = reader.next();
                if (fields == null) {
                    break;
                }
                lines[rows.size()] = reader.line();
                rows.add(compiler.copyRow(copy, fields)); // checked when it came: converts the same way again
            }
            row += rows.size();
            return rows.isEmpty() ? null : new Batch(rows, lines, first);
        }

        @Override
        public void close() {
            if (reader != null) {
                reader.close();
            }
        }
    }
}
