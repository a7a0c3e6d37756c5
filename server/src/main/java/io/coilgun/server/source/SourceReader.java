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
    /** The event time (micros) of the last event read from each partition, for {@link #align}. */
    private final Map<TopicPartition, Long> lastTime = new HashMap<>();
    /** The polls whose events were handed to the ingest path and whose offsets are not committed yet, oldest first. */
    private final ArrayDeque<InFlight> inFlight = new ArrayDeque<>();

    SourceReader(StreamDef stream, String bootstrap, String nodeId, Catalog catalog, IngestService ingest,
            StatementCompiler compiler, SourceErrors errors) {
        this.streamName = stream.name();
        this.catalog = catalog;
        this.ingest = ingest;
        this.compiler = compiler;
        this.errors = errors;
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
        } else if (inFlight.isEmpty()) {
            state = assigned == 0 ? "idle (no partition of the topic here)" : "caught up";
        }
        if (!settle(stream, inFlight.size() >= MAX_IN_FLIGHT)) {
            return false;
        }
        lag = currentLag();
        align(stream);
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
        long bound = bound(stream, parsed);
        List<Object[]> rows = new ArrayList<>();
        Map<TopicPartition, OffsetAndMetadata> next = new HashMap<>();
        java.util.Set<TopicPartition> held = new java.util.HashSet<>();
        int taken = 0;
        for (Parsed p : parsed) {
            ConsumerRecord<byte[], byte[]> r = p.record();
            TopicPartition tp = new TopicPartition(r.topic(), r.partition());
            if (held.contains(tp)) {
                continue;
            }
            if (p.row() != null && (Long) p.row()[stream.eventTimeIndex()] > bound) {
                held.add(tp); // ahead of the other partitions: read again once they caught up
                consumer.seek(tp, r.offset());
                continue;
            }
            taken++;
            if (p.row() != null) {
                rows.add(p.row());
                lastTime.put(tp, (Long) p.row()[stream.eventTimeIndex()]);
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

    /**
     * The latest event time of this poll's records taken now: half the lateness past the slowest partition that may
     * still have records (its first event in the poll, else the last one read from it). Records past it wait for a
     * later poll, so that Kafka's long runs of one partition do not make the other partitions' events late.
     */
    private long bound(StreamDef stream, List<Parsed> parsed) {
        Map<TopicPartition, Long> first = new HashMap<>();
        long earliest = Long.MAX_VALUE;
        for (Parsed p : parsed) {
            if (p.row() != null) {
                long t = (Long) p.row()[stream.eventTimeIndex()];
                first.putIfAbsent(new TopicPartition(p.record().topic(), p.record().partition()), t);
                earliest = Math.min(earliest, t);
            }
        }
        if (earliest == Long.MAX_VALUE) {
            return Long.MAX_VALUE; // bad records only
        }
        long slowest = earliest;
        for (TopicPartition tp : consumer.assignment()) {
            OptionalLong l = consumer.currentLag(tp);
            if (!first.containsKey(tp) && lastTime.containsKey(tp) && (l.isEmpty() || l.getAsLong() > 0)) {
                slowest = Math.min(slowest, lastTime.get(tp));
            }
        }
        return slowest + Math.max(stream.latenessMicros() / 2, 1);
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
     * Keeps the partitions read here within half the stream's lateness of each other in event time: a partition
     * whose last event is further ahead of the slowest partition that still has records waits (paused) until that
     * one catches up. Kafka hands a reader long runs of one partition at a time, and without this the events of
     * the others would come later than the lateness behind them (dropped or refused as late).
     */
    private void align(StreamDef stream) {
        long slowest = Long.MAX_VALUE;
        for (TopicPartition tp : consumer.assignment()) {
            OptionalLong l = consumer.currentLag(tp);
            if (l.isEmpty() || l.getAsLong() > 0) { // may have records still
                slowest = Math.min(slowest, lastTime.getOrDefault(tp, Long.MIN_VALUE));
            }
        }
        long allowance = Math.max(stream.latenessMicros() / 2, 1);
        List<TopicPartition> pause = new ArrayList<>();
        List<TopicPartition> resume = new ArrayList<>();
        for (TopicPartition tp : consumer.assignment()) {
            Long t = lastTime.get(tp);
            // a partition with records not read yet is behind them all (its first events are unknown)
            boolean ahead = slowest != Long.MAX_VALUE && t != null && (slowest == Long.MIN_VALUE
                    || t - slowest > allowance);
            boolean paused = consumer.paused().contains(tp);
            if (ahead && !paused) {
                pause.add(tp);
            } else if (!ahead && paused) {
                resume.add(tp);
            }
        }
        consumer.pause(pause);
        consumer.resume(resume);
        lastTime.keySet().retainAll(consumer.assignment());
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
