package io.coilgun.server.source;

import io.coilgun.cluster.ingest.IngestService;
import io.coilgun.cluster.ingest.LateEventException;
import io.coilgun.cluster.kafka.KafkaClients;
import io.coilgun.planner.error.CoilgunException;
import io.coilgun.planner.model.Catalog;
import io.coilgun.planner.model.StreamDef;
import io.coilgun.planner.model.StreamSource;
import io.coilgun.sql.compile.CopyStatement;
import io.coilgun.sql.compile.StatementCompiler;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads one stream's source topic on this node: a member of the stream's consumer group
 * ({@code coilgun.source.<stream>}), so each partition of the topic is read by one node and moves to another when
 * this one stops or dies (Kafka's group, nothing of Coilgun's). Each poll's records become events through COPY's
 * conversion and go through INSERT's path ({@link IngestService#ingest}); the group's offsets are committed only
 * once every one of them was applied (or was a duplicate, or dropped as late). After a crash the records since the
 * last commit are read again: their event ids make them duplicates, counted once.
 */
final class SourceReader implements Runnable {
    private static final Logger LOG = LoggerFactory.getLogger(SourceReader.class);
    private static final long RETRY_MS = 1000;
    /** The most polls whose events may be in the ingest path at once. */
    static final int MAX_IN_FLIGHT = 4;

    private final String streamName;
    private final Catalog catalog;
    private final IngestService ingest;
    private final StatementCompiler compiler;
    private final SourceErrors errors;
    private final KafkaConsumer<byte[], byte[]> consumer;
    private volatile boolean running = true;
    private volatile String state = "starting";
    final AtomicLong records = new AtomicLong();
    final AtomicLong badRecords = new AtomicLong();
    private volatile long lag = -1;
    private volatile int assigned;
    /** Keeps this node's partitions within half the lateness of each other in event time. */
    private final PartitionAlignment<TopicPartition> alignment;
    /** The polls whose events were handed to the ingest path and whose offsets are not committed yet, oldest first. */
    private final ArrayDeque<InFlight> inFlight = new ArrayDeque<>();

    SourceReader(StreamDef stream, String bootstrap, String nodeId, Catalog catalog, IngestService ingest,
            StatementCompiler compiler, SourceErrors errors) {
        this.streamName = stream.name();
        this.catalog = catalog;
        this.ingest = ingest;
        this.compiler = compiler;
        this.errors = errors;
        this.alignment = new PartitionAlignment<>(stream.latenessMicros());
        this.consumer = KafkaClients.groupConsumer(bootstrap, "coilgun-" + nodeId + "-source-" + stream.name(),
                "coilgun.source." + stream.name(), 10_000, CooperativeStickyAssignor.class, Map.of(), 500, 200);
        consumer.subscribe(List.of(stream.source().topic()));
    }

    @Override
    public void run() {
        try {
            while (running) {
                StreamDef stream = catalog.stream(streamName).orElse(null);
                if (stream == null || stream.source() == null) {
                    break; // dropped: SourceReaders stops this reader
                }
                try {
                    if (!step(stream)) {
                        return;
                    }
                } catch (WakeupException e) {
                    throw e;
                } catch (RuntimeException e) {
                    // a commit refused by a rebalance, a broker gone: what was not committed is read again (duplicates)
                    state = "retrying after: " + e;
                    LOG.warn("stream={} source reader: {}; going on in {} ms", streamName, e.toString(), RETRY_MS);
                    sleep(RETRY_MS);
                }
            }
        } catch (WakeupException e) {
            // closing
        } finally {
            consumer.close(Duration.ofSeconds(5));
        }
    }

    /**
     * One poll and what it brought, then the offsets of the polls whose events were answered; false when the reader
     * stops (a bad record under {@code 'stop'}). Up to {@link #MAX_IN_FLIGHT} polls' events are in the ingest path
     * at once (each poll's records are read while the last ones' are applied); offsets are committed in poll order,
     * each poll's once its events are answered.
     */
    private boolean step(StreamDef stream) {
        ConsumerRecords<byte[], byte[]> polled = consumer.poll(Duration.ofMillis(inFlight.isEmpty() ? 200 : 2));
        assigned = consumer.assignment().size();
        if (!polled.isEmpty()) {
            state = "reading";
            if (!apply(stream, polled)) {
                return false;
            }
        }
        if (!settle(stream, inFlight.size() >= MAX_IN_FLIGHT)) {
            return false;
        }
        lag = currentLag();
        if (polled.isEmpty() && inFlight.isEmpty()) { // "caught up" only with nothing left to read
            state = assigned == 0 ? "idle (no partition of the topic here)" : lag == 0 ? "caught up" : "reading";
        }
        align();
        return true;
    }

    private void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            running = false;
        }
    }

    /**
     * Applies a poll's records and commits the offsets after them; false when the source stops (a bad record under
     * {@code bad_records = 'stop'}: the offsets stay before it).
     */
    private boolean apply(StreamDef stream, ConsumerRecords<byte[], byte[]> polled) {
        StreamSource source = stream.source();
        CopyStatement shape = new CopyStatement(stream, IntStream.range(0, stream.columns().size()).toArray(),
                stream.columns().stream().map(c -> c.name()).toList(), Map.of());
        List<Parsed> parsed = new ArrayList<>(polled.count());
        for (ConsumerRecord<byte[], byte[]> r : polled) {
            try {
                parsed.add(new Parsed(r, compiler.copyRow(shape, SourceRecordFormat.fields(stream, source.format(),
                        r.value())), null));
            } catch (SourceRecordFormat.BadRecordException | CoilgunException e) {
                parsed.add(new Parsed(r, null, e.getMessage()));
            }
        }
        boolean[] take = take(stream, parsed);
        List<Object[]> rows = new ArrayList<>();
        Map<TopicPartition, OffsetAndMetadata> next = new HashMap<>();
        java.util.Set<TopicPartition> held = new java.util.HashSet<>();
        int taken = 0;
        for (int i = 0; i < parsed.size(); i++) {
            Parsed p = parsed.get(i);
            ConsumerRecord<byte[], byte[]> r = p.record();
            TopicPartition tp = new TopicPartition(r.topic(), r.partition());
            if (!take[i]) {
                if (held.add(tp)) { // ahead of the other partitions: read again from here once they caught up
                    consumer.seek(tp, r.offset());
                }
                continue;
            }
            taken++;
            if (p.row() != null) {
                rows.add(p.row());
            } else {
                badRecords.incrementAndGet();
                errors.add(stream.name(), r, p.error());
                if (source.badRecords() == StreamSource.BadRecords.STOP) {
                    settle(stream, true); // the polls before this one first
                    submit(stream, rows);
                    commit(next);
                    state = "stopped at " + r.topic() + "-" + r.partition() + "@" + r.offset() + ": " + p.error();
                    LOG.warn("stream={} source stopped at a bad record ({}-{} offset {}): {}", stream.name(),
                            r.topic(), r.partition(), r.offset(), p.error());
                    return false;
                }
            }
            next.put(tp, new OffsetAndMetadata(r.offset() + 1));
        }
        inFlight.add(new InFlight(rows, next, taken, rows.isEmpty() ? CompletableFuture.completedFuture(null)
                : ingestAsync(stream, rows)));
        return true;
    }

    /** The rows into the ingest path; one refused at once (the node overloaded) fails its answer instead. */
    private CompletableFuture<?> ingestAsync(StreamDef stream, List<Object[]> rows) {
        try {
            return ingest.ingest(stream, rows);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e); // settle applies it again, with submit's retries
        }
    }

    /**
     * Commits the offsets of the oldest polls whose events were answered (all of them, waiting, when {@code all});
     * a poll whose ingest failed is applied again here ({@link #submit}: its retries, its late rows one by one).
     * False when the reader stopped meanwhile.
     */
    private boolean settle(StreamDef stream, boolean all) {
        Map<TopicPartition, OffsetAndMetadata> next = new HashMap<>();
        while (!inFlight.isEmpty() && (all || inFlight.peekFirst().answered().isDone())) {
            InFlight f = inFlight.pollFirst();
            try {
                f.answered().get(60, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                if (!submit(stream, f.rows())) {
                    return false;
                }
            }
            records.addAndGet(f.taken());
            next.putAll(f.next()); // a later poll's offset of a partition passes an earlier one's
        }
        commit(next);
        return true;
    }

    /** A poll whose events are in the ingest path: its rows, the offsets after it, and its answer. */
    private record InFlight(List<Object[]> rows, Map<TopicPartition, OffsetAndMetadata> next, int taken,
            CompletableFuture<?> answered) {
    }

    /** A record of a poll: its event, or why it is none. */
    private record Parsed(ConsumerRecord<byte[], byte[]> record, Object[] row, String error) {
    }

    /** Which of this poll's records are taken now ({@link PartitionAlignment#take}); the others are held back. */
    private boolean[] take(StreamDef stream, List<Parsed> parsed) {
        List<TopicPartition> partitions = new ArrayList<>(parsed.size());
        List<Long> times = new ArrayList<>(parsed.size());
        for (Parsed p : parsed) {
            partitions.add(new TopicPartition(p.record().topic(), p.record().partition()));
            times.add(p.row() == null ? null : (Long) p.row()[stream.eventTimeIndex()]);
        }
        alignment.lateness(stream.latenessMicros());
        return alignment.take(partitions, times, consumer.assignment(), this::mayHaveRecords);
    }

    /** Whether a partition may have records not read yet (its lag is unknown or above 0). */
    private boolean mayHaveRecords(TopicPartition tp) {
        OptionalLong l = consumer.currentLag(tp);
        return l.isEmpty() || l.getAsLong() > 0;
    }

    /** Ingests {@code rows}, again until it succeeds while the reader runs; false when it stopped first. */
    private boolean submit(StreamDef stream, List<Object[]> rows) {
        while (running && !rows.isEmpty()) {
            try {
                ingest.ingest(stream, rows).get(60, TimeUnit.SECONDS);
                return true;
            } catch (java.util.concurrent.ExecutionException e) {
                if (e.getCause() instanceof LateEventException && rows.size() > 1) {
                    // late_events = 'reject': a late event fails its whole statement; one by one, the late are left
                    for (Object[] row : rows) {
                        submit(stream, List.<Object[]>of(row));
                    }
                    return true;
                }
                if (e.getCause() instanceof LateEventException) {
                    return true; // refused as late, as an INSERT of it would be
                }
                LOG.warn("stream={} source: {} events not applied, again in {} ms: {}", stream.name(), rows.size(),
                        RETRY_MS, e.getCause().getMessage());
            } catch (java.util.concurrent.TimeoutException e) {
                LOG.warn("stream={} source: {} events not answered within 60 s, again", stream.name(), rows.size());
            } catch (RuntimeException e) {
                LOG.warn("stream={} source: {} events refused, again in {} ms: {}", stream.name(), rows.size(),
                        RETRY_MS, e.toString());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
            try {
                Thread.sleep(RETRY_MS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return rows.isEmpty() || running;
    }

    private void commit(Map<TopicPartition, OffsetAndMetadata> offsets) {
        if (!offsets.isEmpty()) {
            consumer.commitSync(offsets);
        }
    }

    /**
     * Pauses the partitions ahead of the slowest one by more than half the lateness and resumes the others
     * ({@link PartitionAlignment}): the slowest partition with records is always read.
     */
    private void align() {
        java.util.Set<TopicPartition> assignment = consumer.assignment();
        List<TopicPartition> ahead = alignment.ahead(assignment, this::mayHaveRecords);
        java.util.Set<TopicPartition> paused = consumer.paused();
        List<TopicPartition> resume = new ArrayList<>();
        for (TopicPartition tp : paused) {
            if (!ahead.contains(tp)) {
                resume.add(tp);
            }
        }
        consumer.pause(ahead);
        consumer.resume(resume);
    }

    /** The lag last read (records of this node's partitions not read yet), -1 unknown. */
    long lag() {
        return lag;
    }

    private long currentLag() {
        long sum = 0;
        for (TopicPartition tp : consumer.assignment()) {
            OptionalLong l = consumer.currentLag(tp);
            if (l.isEmpty()) {
                return -1;
            }
            sum += l.getAsLong();
        }
        return sum;
    }

    /** {@code coilgun.sources}' row of this reader. */
    Object[] row(String nodeId, String topic) {
        return new Object[] {streamName, topic, nodeId, assigned, records.get(), badRecords.get(),
            lag < 0 ? null : lag, state};
    }

    void stop() {
        running = false;
        consumer.wakeup();
    }
}
