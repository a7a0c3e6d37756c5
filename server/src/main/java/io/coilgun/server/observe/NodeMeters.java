package io.coilgun.server.observe;

import io.coilgun.cluster.ClusterNode;
import io.coilgun.cluster.ingest.InflightBudget;
import io.coilgun.cluster.reply.ReplyStatus;
import io.coilgun.cluster.unit.TaskSample;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;
import java.util.function.ToDoubleFunction;

/**
 * The node's meters, in one Prometheus registry (Micrometer): the JVM's (GC pauses, memory, threads, CPU), the
 * processor units' and tasks' timers (recorded on their threads, see {@code TaskMeters}), counters and gauges of
 * each task read from a {@link TaskSample} taken at each scrape, the node's RocksDB memory, pgwire connections,
 * statements by kind and replies in flight. Every series carries {@code node}; task series carry {@code stream} and
 * {@code task}, so their number is bounded by the tasks the node holds. docs/operations.md lists them all.
 */
public final class NodeMeters implements AutoCloseable {
    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final JvmGcMetrics gc = new JvmGcMetrics();
    /** The latest sample of each task held here, and the meters that read it. */
    private final Map<String, TaskCell> tasks = new HashMap<>();
    private final Map<String, Timer> statements = new ConcurrentHashMap<>();
    private volatile long rocksMemtables;
    private volatile long rocksTableReaders;

    public NodeMeters(String nodeId) {
        registry.config().commonTags("node", nodeId);
        gc.bindTo(registry);
        new JvmMemoryMetrics().bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        new UptimeMetrics().bindTo(registry);
        Gauge.builder("coilgun.rocksdb.block.cache", ClusterNode::sharedStateCacheBytes).baseUnit("bytes")
                .description("RocksDB block cache in use, memtables included (one cache for the node's tasks)")
                .register(registry);
        Gauge.builder("coilgun.rocksdb.memtables", () -> rocksMemtables).baseUnit("bytes")
                .description("RocksDB memtables of the node's tasks (part of the block cache)").register(registry);
        Gauge.builder("coilgun.rocksdb.table.readers", () -> rocksTableReaders).baseUnit("bytes")
                .description("RocksDB index and filter blocks held outside the block cache").register(registry);
    }

    /** Where the cluster layer records its timers. */
    public PrometheusMeterRegistry registry() {
        return registry;
    }

    /** Gauges of the node's front end and cluster layer. */
    public void bind(ClusterNode cluster, IntSupplier connections, InflightBudget budget) {
        Gauge.builder("coilgun.pgwire.connections", connections::getAsInt)
                .description("Open pgwire client connections").register(registry);
        Gauge.builder("coilgun.ingest.inflight.events", budget::inflight)
                .description("Events of running statements holding room in the node's bound (statements past it "
                        + "wait, then fail with 53000)").register(registry);
        Gauge.builder("coilgun.ingest.inflight.limit", budget::limit)
                .description("The node's bound of events in flight (--max-inflight-events)").register(registry);
        FunctionCounter.builder("coilgun.ingest.waited", budget, InflightBudget::waited)
                .description("Statements that waited for room in the node's bound of events in flight")
                .register(registry);
        FunctionCounter.builder("coilgun.ingest.refused", budget, InflightBudget::refused)
                .description("Statements that found no room in time (53000): the node was overloaded")
                .register(registry);
        Gauge.builder("coilgun.replies.in.flight", cluster::repliesInFlight)
                .description("Events this node published for its clients whose answers it still awaits")
                .register(registry);
    }

    /** A statement ended (or failed) after {@code nanos}: counted and timed by kind. */
    public void statement(String kind, boolean failed, long nanos) {
        String key = kind + (failed ? "/error" : "/ok");
        statements.computeIfAbsent(key, k -> Timer.builder("coilgun.statements")
                .description("pgwire statements by kind, from the moment they were run until their answer")
                .tags("kind", kind, "outcome", failed ? "error" : "ok")
                .publishPercentiles(0.5, 0.99, 0.999).distributionStatisticExpiry(Duration.ofMinutes(1))
                .register(registry)).record(nanos, TimeUnit.NANOSECONDS);
    }

    /**
     * Takes a fresh sample of the node's tasks: registers the meters of tasks new here, removes those of tasks that
     * left. Synchronized: the scrapes and the status page may come at once.
     */
    public synchronized List<TaskSample> update(List<TaskSample> samples) {
        Set<String> seen = new HashSet<>();
        long memtables = 0;
        long readers = 0;
        for (TaskSample s : samples) {
            seen.add(s.task());
            memtables += s.memtableBytes();
            readers += s.tableReaderBytes();
            TaskCell cell = tasks.get(s.task());
            if (cell == null) {
                cell = new TaskCell(s);
                tasks.put(s.task(), cell);
                cell.register();
            }
            cell.sample = s;
        }
        rocksMemtables = memtables;
        rocksTableReaders = readers;
        tasks.entrySet().removeIf(e -> {
            if (seen.contains(e.getKey())) {
                return false;
            }
            e.getValue().meters.forEach(registry::remove);
            return true;
        });
        return samples;
    }

    /** The Prometheus text exposition of every meter. */
    public String scrape() {
        return registry.scrape();
    }

    @Override
    public void close() {
        gc.close();
        registry.close();
    }

    /** The meters of one task, reading its latest sample. */
    private final class TaskCell {
        volatile TaskSample sample;
        final List<Meter> meters = new ArrayList<>();

        TaskCell(TaskSample first) {
            this.sample = first;
        }

        void register() {
            Tags tags = Tags.of("stream", sample.stream(), "task", sample.task());
            for (ReplyStatus status : ReplyStatus.values()) {
                if (status == ReplyStatus.NOT_DUPLICATE) {
                    continue; // answers to probes, not events
                }
                meters.add(FunctionCounter.builder("coilgun.task.events", this, c -> c.sample.outcome(status))
                        .description("Events the task answered since it was opened here, by outcome (applied, "
                                + "duplicate, late, dropped, invalid, failed)")
                        .tags(tags).tag("outcome", status.name().toLowerCase(Locale.ROOT))
                        .register(registry));
            }
            meters.add(FunctionCounter.builder("coilgun.task.events.in", this, c -> c.sample.events())
                    .description("Events the task took from Kafka and answered, whatever the outcome")
                    .tags(tags).register(registry));
            gauge("coilgun.task.lag.events", "Records of the task's partition it has not applied yet", tags,
                    c -> c.sample.lagEvents(), null);
            gauge("coilgun.task.lag", "Age of the last record the task applied, while it lags (0 caught up)",
                    tags, c -> c.sample.lagMs() / 1000.0, "seconds");
            gauge("coilgun.task.active", "1 where this copy of the task is its active, 0 for a replica", tags,
                    c -> "active".equals(c.sample.role()) ? 1 : 0, null);
            gauge("coilgun.task.running", "1 while the task runs, 0 when it stopped on a failure", tags,
                    c -> "failed".equals(c.sample.state()) ? 0 : 1, null);
            gauge("coilgun.reservoir.chunks", "Sealed chunks in the task's reservoir", tags,
                    c -> c.sample.reservoirChunks(), null);
            gauge("coilgun.reservoir.disk", "Bytes of chunks the reservoir wrote since it was opened here", tags,
                    c -> c.sample.reservoirDiskBytes(), "bytes");
            gauge("coilgun.reservoir.open", "Bytes of the reservoir's open (unsealed) chunk, in heap", tags,
                    c -> c.sample.reservoirMemoryBytes(), "bytes");
            counter("coilgun.reservoir.events", "Events appended to the task's reservoir", tags,
                    c -> c.sample.reservoirEvents());
            counter("coilgun.chunk.reads.memory", "Window reads of chunks still in memory", tags,
                    c -> c.sample.chunkReadsInMemory());
            counter("coilgun.chunk.cache.hits", "Chunk reads served by the unit's decoded-chunk cache", tags,
                    c -> c.sample.chunkCacheHits());
            counter("coilgun.chunk.cache.misses", "Chunk reads that loaded the chunk (read ahead or on the "
                    + "unit's thread)", tags, c -> c.sample.readAheads() + c.sample.chunkLoadsOnThread());
            counter("coilgun.chunk.loads.waited", "Chunk reads that waited for a read-ahead still in flight",
                    tags, c -> c.sample.chunkLoadsWaited());
            gauge("coilgun.state.changelog.records", "The task's state changelog records the materializer has not "
                    + "written as rows yet (its lag)", tags, c -> c.sample.changelogRecords(), null);
            gauge("coilgun.state.changelog", "Bytes of the task's state changelog records not materialized yet", tags,
                    c -> c.sample.changelogBytes(), "bytes");
            counter("coilgun.state.changelog.waited.seconds", "Time the task's checkpoints waited for the materializer (its "
                    + "changelog at its bound)", tags, c -> c.sample.changelogWaitNanos() / 1e9);
            counter("coilgun.chunk.loads.sync", "Chunk reads with no read-ahead, loaded on the unit's thread",
                    tags, c -> c.sample.chunkLoadsOnThread());
        }

        private void gauge(String name, String help, Tags tags, ToDoubleFunction<TaskCell> f, String unit) {
            meters.add(Gauge.builder(name, this, f).description(help).tags(tags).baseUnit(unit).register(registry));
        }

        private void counter(String name, String help, Tags tags, ToDoubleFunction<TaskCell> f) {
            meters.add(FunctionCounter.builder(name, this, f).description(help).tags(tags).register(registry));
        }
    }
}
