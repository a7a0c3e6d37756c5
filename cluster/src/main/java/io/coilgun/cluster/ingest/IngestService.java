package io.coilgun.cluster.ingest;

import io.coilgun.cluster.kafka.KafkaContact;
import io.coilgun.cluster.kafka.KafkaUnavailableException;
import io.coilgun.cluster.reply.Reply;
import io.coilgun.cluster.reply.ReplyStatus;
import io.coilgun.planner.error.CoilgunException;
import io.coilgun.planner.error.SqlState;
import io.coilgun.planner.event.EventCodec;
import io.coilgun.planner.model.Catalog;
import io.coilgun.planner.model.LatePolicy;
import io.coilgun.planner.model.StreamDef;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The ingest transaction of a statement's rows, whatever front end sent them (an INSERT, a COPY): waits for room in
 * the node's bound of events in flight ({@link InflightBudget}), assigns the ids of a stream without an event_id
 * column, judges lateness and queues the rows for Kafka under the stream's ingest lock (all rows or none,
 * {@link EventPublisher#publishAll}; they are sent once it is released, {@link SendQueue}), probes rows that look
 * late in case they are retries (a retry within the dedup horizon is a duplicate, not late), waits for every task's
 * reply and maps it to an outcome per row or to an error. What is about a pgwire statement (RETURNING rows, the tag,
 * error wording per row) stays with the caller.
 */
public final class IngestService implements AutoCloseable {
    /** How many rounds of probes a statement may take when its rows keep looking late (a fast-moving stream). */
    private static final int MAX_PROBE_ROUNDS = 3;

    /** How long a statement waits for a stream that is gaining a decider ({@link StreamPauses}). */
    private static final long PAUSE_WAIT_MS = Long.getLong("coilgun.conversionWaitMs", 120_000);

    private final Catalog catalog;
    private final KafkaContact kafka;
    /** Fails the statements of a node cut off from Kafka ({@link #watchKafka}). */
    private final Thread watch;
    private final EventPublisher publisher;
    private final InflightBudget budget;
    private final StreamPauses pauses;
    private final Map<StreamDef, EventCodec> codecs = new ConcurrentHashMap<>();
    /** The statements of each stream waiting for their replies (failed at once if the stream is dropped). */
    private final Map<String, Set<CompletableFuture<Ingested>>> inflight = new ConcurrentHashMap<>();

    /**
     * @param budget the bound of the node's events in flight (statements wait for room, or fail with 53000)
     * @param kafka whether the node still reaches Kafka (a node cut off fails its statements at once)
     */
    public IngestService(Catalog catalog, EventPublisher publisher, InflightBudget budget, StreamPauses pauses,
            KafkaContact kafka) {
        this.catalog = catalog;
        this.publisher = publisher;
        this.budget = budget;
        this.pauses = pauses;
        this.kafka = kafka;
        this.watch = new Thread(this::watchKafka, "coilgun-ingest-kafka-watch");
        watch.setDaemon(true);
        watch.start();
    }

    /** The node stops: the watch of its contact with Kafka too. */
    @Override
    public void close() {
        watch.interrupt();
    }

    /**
     * A node cut off from Kafka (a network partition) answers its clients at once rather than let them wait for
     * replies that cannot come: a statement fails with {@link KafkaUnavailableException} (08006), those waiting
     * too, every quarter second. Its events may be applied or not; the client retries on another node, where a
     * retry of an applied event is a duplicate, never counted twice.
     */
    private void watchKafka() {
        while (true) {
            try {
                Thread.sleep(250);
                KafkaUnavailableException cutOff = cutOff();
                if (cutOff != null) {
                    for (Set<CompletableFuture<Ingested>> running : inflight.values()) {
                        for (CompletableFuture<Ingested> r : running) {
                            r.completeExceptionally(cutOff);
                        }
                    }
                }
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                // a supplier that failed once: look again
            }
        }
    }

    /** The error a statement gets on a node cut off from Kafka, or null while it is not. */
    private KafkaUnavailableException cutOff() {
        return kafka.unavailable();
    }

    /** What became of a row. */
    public enum Outcome {
        APPLIED,
        /** Its id was accepted within the dedup horizon: not counted again. */
        DUPLICATE,
        /** Late under {@code late_events = 'drop'}: not counted. */
        DROPPED
    }

    /**
     * One row's answer.
     *
     * @param eventId the event's id (the stream's event_id column, or the id assigned on ingest)
     * @param metrics the values of the metrics that computed it, by metric name (empty unless applied)
     */
    public record RowResult(Object eventId, Outcome outcome, Map<String, Object[]> metrics) {
    }

    /** The statement's answer: a result per row, in order. */
    public record Ingested(List<RowResult> rows) {
        /** How many rows were applied (the command tag's count). */
        public long applied() {
            return rows.stream().filter(r -> r.outcome() == Outcome.APPLIED).count();
        }
    }

    /**
     * Ingests the statement's rows. Completes exceptionally with a {@link LateEventException} (a late row that is not
     * a retry: nothing applied), a {@link TaskStoppedException} (nothing applied), a {@link RowRejectedException} (a
     * task refused a published row), or a {@link CoilgunException} 42P01 when the stream is dropped meanwhile.
     */
    public CompletableFuture<Ingested> ingest(StreamDef stream, List<Object[]> rows) {
        KafkaUnavailableException cutOff = cutOff();
        if (cutOff != null) {
            return CompletableFuture.failedFuture(cutOff);
        }
        EventCodec codec = codecs.computeIfAbsent(stream, EventCodec::new);
        long[] assignedIds = new long[rows.size()];
        for (int i = 0; i < rows.size(); i++) {
            assignedIds[i] = stream.eventIdIndex() < 0 ? publisher.assignId() : 0;
        }
        CompletableFuture<Ingested> result = new CompletableFuture<>();
        Set<CompletableFuture<Ingested>> running = inflight.computeIfAbsent(stream.name(),
                k -> ConcurrentHashMap.newKeySet());
        running.add(result);
        result.whenComplete((r, e) -> running.remove(result));
        CompletableFuture<Integer> room = budget.acquire(rows.size());
        room.whenComplete((taken, e) -> {
            if (e != null) {
                result.completeExceptionally(e); // no room: nothing published
                return;
            }
            result.whenComplete((r, f) -> budget.release(taken));
            if (!result.isDone()) { // not failed while it waited (cut off from Kafka, stream dropped)
                publish(stream, codec, rows, assignedIds, new boolean[rows.size()], 0, result);
            }
        });
        return result;
    }

    /** The state {@link #judgeAhead} carries from one batch of a statement to the next. */
    public LateJudgement newJudgement(StreamDef stream) {
        return new LateJudgement(stream.partitionBy().size());
    }

    /**
     * Judges a batch of a statement too big to publish at once (a big COPY) for lateness, before any of it is
     * published, so that a late row in it applies nothing, as in a small one: completes when each row of the batch
     * is on time for its tasks (simulated from the batches before, {@code judged}) or the retry of an accepted event
     * (probed: a duplicate); exceptionally with the {@link LateEventException} of the first row that is neither.
     * Publishes nothing and marks nothing published: each batch is judged again when it is published.
     */
    public CompletableFuture<Void> judgeAhead(StreamDef stream, List<Object[]> rows, LateJudgement judged) {
        if (stream.latePolicy() != LatePolicy.REJECT) {
            return CompletableFuture.completedFuture(null);
        }
        try {
            synchronized (publisher.ingestLock(stream.name())) {
                publisher.judge(stream, rows, null, judged);
            }
            return CompletableFuture.completedFuture(null);
        } catch (LateEventException late) {
            if (stream.eventIdIndex() < 0) {
                return CompletableFuture.failedFuture(late); // an id assigned on ingest: never a retry
            }
            EventCodec codec = codecs.computeIfAbsent(stream, EventCodec::new);
            List<Map.Entry<Integer, LateEventException>> lateRows = List.copyOf(late.lateRows().entrySet());
            List<CompletableFuture<Boolean>> probes = new ArrayList<>(lateRows.size());
            for (Map.Entry<Integer, LateEventException> row : lateRows) {
                probes.add(publisher.probe(stream, codec, rows.get(row.getKey()), 0, row.getValue().topicIndex()));
            }
            return CompletableFuture.allOf(probes.toArray(CompletableFuture[]::new)).thenApply(v -> {
                for (int i = 0; i < lateRows.size(); i++) {
                    if (!probes.get(i).join()) {
                        throw lateRows.get(i).getValue();
                    }
                }
                return null;
            });
        }
    }

    /** The bound of the node's events in flight. */
    public InflightBudget budget() {
        return budget;
    }

    /**
     * Publishes the rows not {@code excluded} (retries found to be duplicates), or, when some look late, probes them
     * first: a late row that is not a retry fails the statement, nothing applied.
     */
    private void publish(StreamDef stream, EventCodec codec, List<Object[]> rows, long[] assignedIds,
            boolean[] excluded, int round, CompletableFuture<Ingested> result) {
        List<CompletableFuture<List<Reply>>> pending;
        LateEventException late = null;
        synchronized (publisher.ingestLock(stream.name())) {
            StreamDef current = catalog.stream(stream.name()).orElse(null);
            if (current == null) {
                result.completeExceptionally(dropped(stream.name()));
                return;
            }
            if (pauses.paused(stream.name())) {
                waitForDecider(stream, codec, rows, assignedIds, excluded, round, result);
                return;
            }
            // a statement made before the stream gained a partitioner goes where its events go now (the codec stays
            // the statement's: columns are only ever added)
            StreamDef routed = current.partitionBy().equals(stream.partitionBy()) ? stream : current;
            try {
                pending = publisher.publishAll(routed, codec, rows, assignedIds, excluded);
            } catch (LateEventException e) {
                late = e;
                pending = null;
            } catch (RuntimeException e) {
                result.completeExceptionally(e); // a stopped task, or a row that could not be encoded
                pending = null;
            }
        }
        publisher.flush(); // outside the lock: never held across producer.send
        if (pending == null && late == null) {
            return;
        }
        if (late != null) {
            probeLateRows(stream, codec, rows, assignedIds, excluded, round, late, result);
            return;
        }
        List<CompletableFuture<List<Reply>>> replies = pending;
        CompletableFuture.allOf(replies.toArray(CompletableFuture[]::new)).thenApply(v -> {
            List<RowResult> out = new ArrayList<>(rows.size());
            RowRejectedException rejected = null;
            List<Integer> applied = new ArrayList<>();
            for (int i = 0; i < replies.size(); i++) {
                try {
                    RowResult r = rowResult(stream, rows.get(i), assignedIds[i], replies.get(i).join(), i,
                            replies.size());
                    out.add(r);
                    if (r.outcome() == Outcome.APPLIED) {
                        applied.add(i);
                    }
                } catch (RowRejectedException e) {
                    rejected = rejected == null ? e : rejected;
                }
            }
            if (rejected != null) {
                throw rejected.withApplied(applied); // the statement fails, naming the rows that stay applied
            }
            return new Ingested(out);
        }).whenComplete((r, e) -> {
            if (e != null) {
                result.completeExceptionally(e);
            } else {
                result.complete(r);
            }
        });
    }

    /**
     * The stream is gaining a decider: the statement publishes once it takes events again, to the stream as it is
     * then (its events go to the decider), or fails (55P03) if that takes longer than the wait allows.
     */
    private void waitForDecider(StreamDef stream, EventCodec codec, List<Object[]> rows, long[] assignedIds,
            boolean[] excluded, int round, CompletableFuture<Ingested> result) {
        // a copy: the timeout of one statement must not end the wait of the others
        CompletableFuture<Void> resumed = pauses.resumed(stream.name()).copy();
        resumed.orTimeout(PAUSE_WAIT_MS, TimeUnit.MILLISECONDS).whenCompleteAsync((v, e) -> {
            if (e != null) {
                result.completeExceptionally(new CoilgunException(SqlState.LOCK_NOT_AVAILABLE, "stream \""
                        + stream.name() + "\" is gaining a partitioner (ALTER STREAM … ADD PARTITION BY) and takes no "
                        + "events until its history is handed to its decider; nothing was applied, try again later"));
                return;
            }
            publish(stream, codec, rows, assignedIds, excluded, round, result);
        });
    }

    /** Probes the rows that look late (outside the ingest lock: a Kafka round trip); goes on or fails. */
    private void probeLateRows(StreamDef stream, EventCodec codec, List<Object[]> rows, long[] assignedIds,
            boolean[] excluded, int round, LateEventException late, CompletableFuture<Ingested> result) {
        if (stream.eventIdIndex() < 0 || round >= MAX_PROBE_ROUNDS) {
            // ids assigned on ingest are new on every attempt: such a row cannot be a retry
            result.completeExceptionally(late);
            return;
        }
        List<Map.Entry<Integer, LateEventException>> lateRows = List.copyOf(late.lateRows().entrySet());
        List<CompletableFuture<Boolean>> probes = new ArrayList<>(lateRows.size());
        for (Map.Entry<Integer, LateEventException> row : lateRows) {
            probes.add(publisher.probe(stream, codec, rows.get(row.getKey()), assignedIds[row.getKey()],
                    row.getValue().topicIndex()));
        }
        CompletableFuture.allOf(probes.toArray(CompletableFuture[]::new)).whenComplete((v, e) -> {
            if (e != null) {
                result.completeExceptionally(e);
                return;
            }
            for (int i = 0; i < lateRows.size(); i++) {
                if (!probes.get(i).join()) {
                    result.completeExceptionally(lateRows.get(i).getValue());
                    return;
                }
            }
            boolean[] more = excluded.clone();
            for (Map.Entry<Integer, LateEventException> row : lateRows) {
                more[row.getKey()] = true;
            }
            publish(stream, codec, rows, assignedIds, more, round + 1, result);
        });
    }

    /** A row's replies (one per partitioner topic) as its outcome, or the error of a task that refused it. */
    private static RowResult rowResult(StreamDef stream, Object[] row, long assignedId, List<Reply> replies, int index,
            int count) {
        Outcome outcome = Outcome.APPLIED;
        Map<String, Object[]> metrics = new LinkedHashMap<>();
        for (Reply r : replies) {
            switch (r.status()) {
                case LATE, INVALID, FAILED -> throw new RowRejectedException(r.status() == ReplyStatus.LATE
                        ? SqlState.DATETIME_FIELD_OVERFLOW : r.status() == ReplyStatus.INVALID ? SqlState.DATA_EXCEPTION
                        : SqlState.INTERNAL_ERROR, r.message(), index, count);
                case RETRY -> throw new RowRejectedException(SqlState.SERIALIZATION_FAILURE, r.message(), index, count);
                case DUPLICATE -> outcome = Outcome.DUPLICATE;
                case DROPPED -> outcome = outcome == Outcome.DUPLICATE ? outcome : Outcome.DROPPED;
                default -> metrics.putAll(r.metrics());
            }
        }
        Object eventId = stream.eventIdIndex() < 0 ? assignedId : row[stream.eventIdIndex()];
        return new RowResult(eventId, outcome, outcome == Outcome.APPLIED ? metrics : Map.of());
    }

    /**
     * DROP STREAM, on the DDL thread: runs {@code removeFromCatalog} while no statement of the stream is publishing,
     * then fails the statements still waiting for replies (their tasks are about to go): no statement publishes to
     * the stream afterwards, and none waits for a reply that will not come.
     */
    public void streamDropped(String stream, Runnable removeFromCatalog) {
        synchronized (publisher.ingestLock(stream)) {
            removeFromCatalog.run();
        }
        Set<CompletableFuture<Ingested>> running = inflight.remove(stream);
        if (running != null) {
            for (CompletableFuture<Ingested> r : running) {
                r.completeExceptionally(dropped(stream));
            }
        }
        codecs.keySet().removeIf(s -> s.name().equals(stream));
    }

    private static CoilgunException dropped(String stream) {
        return new CoilgunException(SqlState.UNDEFINED_TABLE, "stream \"" + stream
                + "\" does not exist (it was dropped while the statement ran)");
    }
}
