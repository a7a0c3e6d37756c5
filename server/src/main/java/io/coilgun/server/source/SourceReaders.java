package io.coilgun.server.source;

import io.coilgun.cluster.ingest.IngestService;
import io.coilgun.planner.model.Catalog;
import io.coilgun.planner.model.StreamDef;
import io.coilgun.sql.compile.StatementCompiler;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The source readers of this node: one for each stream of the catalog fed from a Kafka topic, started when the
 * stream appears (here or on another node) and stopped when it is dropped, each on a thread of its own (never a
 * processor unit's). Looks at the catalog once a second.
 */
public final class SourceReaders implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SourceReaders.class);

    private final Catalog catalog;
    private final IngestService ingest;
    private final StatementCompiler compiler;
    private final String bootstrap;
    private final String nodeId;
    private final SourceErrors errors = new SourceErrors();
    private final Map<String, Running> readers = new HashMap<>();
    private final ScheduledExecutorService watcher = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "coilgun-sources");
        t.setDaemon(true);
        return t;
    });

    private record Running(StreamDef stream, SourceReader reader, Thread thread, List<Meter> meters) {
    }

    private final MeterRegistry registry;

    public SourceReaders(Catalog catalog, IngestService ingest, StatementCompiler compiler, String bootstrap,
            String nodeId, MeterRegistry registry) {
        this.registry = registry;
        this.catalog = catalog;
        this.ingest = ingest;
        this.compiler = compiler;
        this.bootstrap = bootstrap;
        this.nodeId = nodeId;
    }

    public void start() {
        watcher.scheduleWithFixedDelay(this::reconcile, 0, 1, TimeUnit.SECONDS);
    }

    private synchronized void reconcile() {
        try {
            Map<String, StreamDef> wanted = new HashMap<>();
            for (StreamDef s : catalog.streams()) {
                if (s.source() != null) {
                    wanted.put(s.name(), s);
                }
            }
            for (var it = readers.entrySet().iterator(); it.hasNext();) {
                var e = it.next();
                StreamDef now = wanted.get(e.getKey());
                // a reader that stopped at a bad record stays (its state says where) until the stream is dropped
                if (now == null || !now.source().topic().equals(e.getValue().stream().source().topic())) {
                    e.getValue().reader().stop();
                    e.getValue().meters().forEach(registry::remove);
                    it.remove();
                }
            }
            for (StreamDef s : wanted.values()) {
                if (!readers.containsKey(s.name())) {
                    SourceReader reader = new SourceReader(s, bootstrap, nodeId, catalog, ingest, compiler, errors);
                    Thread t = new Thread(reader, "coilgun-source-" + s.name());
                    t.setDaemon(true);
                    t.start();
                    readers.put(s.name(), new Running(s, reader, t, meters(s.name(), reader)));
                    LOG.info("stream={} reads {}", s.name(), s.source().describe());
                }
            }
        } catch (RuntimeException e) {
            LOG.warn("source readers: {}", e.toString());
        }
    }

    /** The reader's meters on /metrics, tagged with its stream. */
    private List<Meter> meters(String stream, SourceReader reader) {
        return List.of(
                FunctionCounter.builder("coilgun.source.records", reader, r -> r.records.get()).tags("stream", stream)
                        .description("Records of the stream's Kafka topic this node read and applied")
                        .register(registry),
                FunctionCounter.builder("coilgun.source.bad.records", reader, r -> r.badRecords.get())
                        .tags("stream", stream).description("Records of the stream's Kafka topic that were no valid "
                                + "event (coilgun.source_errors)").register(registry),
                Gauge.builder("coilgun.source.lag.records", reader, SourceReader::lag).tags("stream", stream)
                        .description("Records of the topic's partitions this node reads not read yet (-1 unknown)")
                        .register(registry));
    }

    /** {@code coilgun.sources}: this node's readers. */
    public synchronized List<Object[]> rows() {
        List<Object[]> rows = new ArrayList<>();
        for (Running r : readers.values()) {
            rows.add(r.reader().row(nodeId, r.stream().source().topic()));
        }
        return rows;
    }

    /** {@code coilgun.source_errors}: the bad records this node's readers met. */
    public List<Object[]> errors() {
        return errors.rows();
    }

    @Override
    public synchronized void close() {
        watcher.shutdownNow();
        for (Running r : readers.values()) {
            r.reader().stop();
        }
        for (Running r : readers.values()) {
            try {
                r.thread().join(10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        readers.clear();
    }
}
