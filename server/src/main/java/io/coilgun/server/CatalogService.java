package io.coilgun.server;

import io.coilgun.cluster.ClusterNode;
import io.coilgun.cluster.catalog.CatalogKey;
import io.coilgun.cluster.catalog.CatalogLog;
import io.coilgun.planner.error.CoilgunException;
import io.coilgun.planner.error.SqlState;
import io.coilgun.planner.model.Catalog;
import io.coilgun.planner.model.MetricDef;
import io.coilgun.planner.model.SinkDef;
import io.coilgun.planner.model.StreamDef;
import io.coilgun.server.session.Inserter;
import io.coilgun.sql.compile.AlterStreamStatement;
import io.coilgun.sql.compile.CompiledStatement;
import io.coilgun.sql.compile.CreateMetricStatement;
import io.coilgun.sql.compile.CreateSinkStatement;
import io.coilgun.sql.compile.CreateStreamStatement;
import io.coilgun.sql.compile.DropMetricStatement;
import io.coilgun.sql.compile.DropSinkStatement;
import io.coilgun.sql.compile.DropStreamStatement;
import io.coilgun.sql.compile.GrantStatement;
import io.coilgun.sql.compile.LegacyNumerics;
import io.coilgun.sql.compile.RoleStatement;
import io.coilgun.sql.compile.SqlStatement;
import io.coilgun.sql.compile.StatementCompiler;
import io.coilgun.sql.compile.StreamDrops;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node's catalog of streams and metrics and the DDL that changes it, on a cluster of nodes. The catalog topic
 * orders all DDL: a statement run here is checked against this node's catalog on its one DDL thread, written to the
 * topic (the point of no return), applied here, and returns once every node of the cluster's view reports it
 * applied it too (their {@code NodeStatus}), or after {@value #APPLIED_TIMEOUT_MS} ms with a warning in the log.
 * The records other nodes write reach this node through its {@link io.coilgun.cluster.directory.ClusterDirectory}
 * and are applied on the same DDL thread, in log order. At start, {@link #recover} replays the catalog topic.
 */
final class CatalogService {
    private static final Logger LOG = LoggerFactory.getLogger(CatalogService.class);
    static final long APPLIED_TIMEOUT_MS = 30_000;
    /** How long an ALTER STREAM … ADD PARTITION BY on a stream partitioned by one field waits for its decider. */
    static final long CONVERSION_WAIT_MS = Long.getLong("coilgun.conversionWaitMs", 120_000);

    private final Catalog catalog;
    private final StatementCompiler compiler;
    private final ClusterNode cluster;
    private final Inserter inserter;
    /** ALTER STREAM … ADD | DROP PARTITION BY. */
    private final PartitionerCatalog partitioners;
    private final RoleCatalog roles;
    private final ExecutorService ddl;
    /** Catalog offsets this node wrote and applied itself: its follower skips them. Touched on the DDL thread. */
    private final Set<Long> ownRecords = ConcurrentHashMap.newKeySet();
    /** Where a statement waits for the other nodes, so the DDL thread goes on applying theirs meanwhile. */
    private final ExecutorService waits = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "coilgun-ddl-wait");
        t.setDaemon(true);
        return t;
    });

    CatalogService(Catalog catalog, StatementCompiler compiler, ClusterNode cluster, Inserter inserter,
            ExecutorService ddl) {
        this.catalog = catalog;
        this.compiler = compiler;
        this.cluster = cluster;
        this.inserter = inserter;
        this.ddl = ddl;
        this.partitioners = new PartitionerCatalog(catalog, cluster);
        this.roles = new RoleCatalog(catalog.roles(), this::append, this::remove);
        cluster.conversions().onSeeded(stream -> ddl.execute(() -> {
            try {
                partitioners.seeded(stream, this::append);
            } catch (RuntimeException e) {
                LOG.error("stream={} the end of its conversion could not be written (the decider's next turn tries "
                        + "again)", stream, e);
            }
        }));
    }

    /**
     * Replays the catalog topic: streams and metrics come back, then their tasks resume after their checkpoints;
     * then follows the catalog for what other nodes write.
     */
    void recover() {
        CatalogLog.Snapshot snapshot = cluster.catalog().readAll();
        for (CatalogLog.Entry entry : snapshot.entries()) {
            if (RoleCatalog.handles(entry.key())) {
                roles.apply(entry.key(), entry.ddl());
                continue;
            }
            if (entry.key().kind() == CatalogKey.Kind.STREAM_PARTITIONER
                    || entry.key().kind() == CatalogKey.Kind.STREAM_CONVERTED) {
                partitioners.recovered(entry, compiler);
                continue;
            }
            if (entry.ddl() == null) {
                if (entry.key().kind() == CatalogKey.Kind.SINK) {
                    catalog.removeSink(entry.key().name());
                } else if (entry.key().kind() == CatalogKey.Kind.METRIC) {
                    catalog.removeMetric(entry.key().name());
                } else if (entry.key().kind() == CatalogKey.Kind.STREAM) {
                    catalog.removeStream(entry.key().name()); // DROP STREAM
                }
                continue;
            }
            for (SqlStatement parsed : SqlStatement.parse(ddlOf(entry.key(), entry.ddl(), entry.exactNumerics()))) {
                CompiledStatement st = compiler.compile(parsed);
                if (st instanceof CreateStreamStatement cs) {
                    catalog.addStream(cs.stream());
                } else if (st instanceof AlterStreamStatement as) {
                    catalog.addStream(as.stream());
                } else if (st instanceof CreateMetricStatement cm) {
                    catalog.addMetric(cm.metric());
                    cluster.metricVersion(cm.metric().name(), entry.offset());
                } else if (st instanceof CreateSinkStatement ck) {
                    catalog.addSink(ck.sink().withId(entry.offset()));
                }
            }
        }
        sinksChanged(); // before the tasks open: each makes its sinks' records from its first event
        for (StreamDef stream : catalog.streams()) {
            cluster.deployStream(stream, catalog.metricsOf(stream.name()), false);
        }
        partitioners.resumeConversions();
        // Before taking statements: each task's stream time must count the records after its checkpoint, or a
        // multi-row INSERT could pass the lateness check and still lose a row to its task.
        if (!cluster.awaitReplayed(catalog.streams(), 120_000)) {
            LOG.warn("some tasks are still replaying after 120 s; statements are taken meanwhile, and a late row may "
                    + "then be rejected by its task after the other rows of its statement were applied");
        }
        cluster.catalogApplied(snapshot.end() - 1);
        // Each metric's start marker once more: a CREATE METRIC cut off between its catalog record and its markers
        // (its node died) starts now; a task that has the metric ignores it. Not awaited.
        for (StreamDef stream : catalog.streams()) {
            for (MetricDef m : catalog.metricsOf(stream.name())) {
                cluster.startMetric(stream, m).exceptionally(e -> {
                    LOG.warn("metric={} start marker not answered: {}", m.name(), e.toString());
                    return null;
                });
            }
        }
        cluster.directory().start(snapshot.end(), this::follow);
        LOG.info("catalog recovered streams={} tasks started", catalog.streams().size());
    }

    /**
     * On the directory's thread, in log order: a catalog record. Applied on the DDL thread unless this node wrote
     * it (decided there too, after the statement that wrote it noted its offset).
     */
    private void follow(long offset, CatalogKey key, String text, boolean exactNumerics) {
        try {
            CompletableFuture.runAsync(() -> {
                if (!ownRecords.remove(offset)) {
                    applyFollowed(offset, key, text == null ? null : ddlOf(key, text, exactNumerics));
                }
            }, ddl).join();
        } catch (RuntimeException e) {
            LOG.error("catalog record {} at offset {} could not be applied on this node", key.text(), offset, e);
        }
        cluster.catalogApplied(offset);
    }

    /**
     * A stream's DDL as this version reads it: in a record written before NUMERIC stream columns were exact, they
     * are double precision ({@link LegacyNumerics}).
     */
    private static String ddlOf(CatalogKey key, String ddl, boolean exactNumerics) {
        boolean columns = key.kind() == CatalogKey.Kind.STREAM || key.kind() == CatalogKey.Kind.STREAM_VERSION;
        return exactNumerics || !columns ? ddl : LegacyNumerics.asDouble(ddl);
    }

    /** A record another node wrote: the same change, on this node's catalog and tasks. */
    private void applyFollowed(long offset, CatalogKey key, String text) {
        if (RoleCatalog.handles(key)) {
            roles.apply(key, text);
            return;
        }
        if (key.kind() == CatalogKey.Kind.STREAM_PARTITIONER) {
            partitioners.followed(key, text, compiler);
            return;
        }
        if (key.kind() == CatalogKey.Kind.STREAM_CONVERTED) {
            partitioners.followedConverted(key, text);
            return;
        }
        if (text == null) {
            if (key.kind() == CatalogKey.Kind.SINK) {
                catalog.removeSink(key.name());
                sinksChanged();
            } else if (key.kind() == CatalogKey.Kind.METRIC) {
                MetricDef m = catalog.metric(key.name()).orElse(null);
                if (m != null) {
                    catalog.removeMetric(m.name());
                    catalog.stream(m.stream()).ifPresent(s -> cluster.dropMetric(s, m));
                }
            } else if (key.kind() == CatalogKey.Kind.STREAM) {
                StreamDef s = catalog.stream(key.name()).orElse(null);
                if (s != null) {
                    inserter.streamDropped(s.name(), () -> catalog.removeStream(s.name()));
                    cluster.dropStreamLocally(s);
                    sinksChanged(); // its sinks went with it
                }
            }
            return;
        }
        for (SqlStatement parsed : SqlStatement.parse(text)) {
            CompiledStatement st = compiler.compile(parsed);
            if (st instanceof CreateStreamStatement cs && !catalog.exists(cs.stream().name())) {
                cluster.purgeLocally(cs.stream().name()); // what an earlier stream of this name left here
                catalog.addStream(cs.stream());
                cluster.deployStream(cs.stream(), List.of(), false);
            } else if (st instanceof AlterStreamStatement as) {
                catalog.addStream(as.stream());
                cluster.alterStream(as.stream());
                if (as.options()) {
                    cluster.rebalance(); // the copies each task wants changed
                }
            } else if (st instanceof CreateMetricStatement cm && !catalog.exists(cm.metric().name())) {
                catalog.addMetric(cm.metric());
                cluster.deployMetric(catalog.stream(cm.metric().stream()).orElseThrow(), cm.metric(), offset);
            } else if (st instanceof CreateSinkStatement ck && !catalog.exists(ck.sink().name())) {
                catalog.addSink(ck.sink().withId(offset));
                sinksChanged();
            }
        }
    }

    /** The tasks of this node write the catalog's sinks now. */
    private void sinksChanged() {
        cluster.sinks().update(catalog.sinks());
    }

    /** Writes a record of this node's DDL; its offset is noted so the follower does not apply it twice. */
    private long append(CatalogKey key, String text) {
        long offset = cluster.catalog().append(key, text);
        ownRecords.add(offset);
        return offset;
    }

    private long remove(CatalogKey key) {
        long offset = cluster.catalog().remove(key);
        ownRecords.add(offset);
        return offset;
    }

    /** Completes when every node applied the catalog through {@code offset} (or the wait timed out). */
    private CompletableFuture<Void> everyNodeApplied(long offset) {
        if (offset < 0) {
            return CompletableFuture.completedFuture(null); // nothing was written
        }
        return CompletableFuture.runAsync(() -> {
            if (!cluster.awaitCatalogApplied(offset, APPLIED_TIMEOUT_MS)) {
                LOG.warn("catalog record at offset {} not applied by every node of the cluster after {} ms; they "
                        + "apply it when they get to it", offset, APPLIED_TIMEOUT_MS);
            }
        }, waits);
    }

    /** CREATE STREAM: topics, then the catalog record (the point of no return), then the tasks. */
    public CompletableFuture<Void> createStream(CreateStreamStatement cs) {
        return CompletableFuture.supplyAsync(() -> {
            StreamDef s = cs.stream();
            if (catalog.exists(s.name())) {
                if (cs.ifNotExists() && catalog.stream(s.name()).isPresent()) {
                    return -1L;
                }
                throw new CoilgunException(SqlState.DUPLICATE_TABLE, "relation \"" + s.name() + "\" already exists");
            }
            cluster.purgeStream(s.name()); // what a dropped stream of this name may have left (a crash mid-drop)
            cluster.createTopics(s);
            long offset = append(CatalogKey.stream(s.name()), s.ddl());
            catalog.addStream(s);
            cluster.deployStream(s, List.of(), false);
            return offset;
        }, ddl).thenCompose(this::everyNodeApplied).thenRunAsync(() -> {
            StreamDef s = cs.stream();
            cluster.awaitPlaced(s); // every node subscribed by now: the group places its tasks
        }, waits);
    }

    /**
     * ALTER STREAM ... ADD COLUMN: the catalog record (key {@code stream:<name>:v<version>}, after the CREATE), then
     * every task of the stream decodes with the new schema from its next event on.
     */
    public CompletableFuture<Void> alterStream(AlterStreamStatement as) {
        return CompletableFuture.supplyAsync(() -> {
            StreamDef altered = as.stream();
            StreamDef current = catalog.stream(altered.name()).orElseThrow(() -> new CoilgunException(
                    SqlState.UNDEFINED_TABLE, "stream \"" + altered.name() + "\" does not exist"));
            if (as.partitioner() != null) {
                return partitioners.alter(current, as, this::append);
            }
            if (as.options()) {
                // ALTER STREAM … SET: the latest is kept (compaction keeps one record of the key)
                long offset = append(CatalogKey.streamOptions(altered.name()), as.ddl());
                catalog.addStream(current.withReplicas(altered.replicas()));
                cluster.alterStream(catalog.stream(altered.name()).orElseThrow());
                cluster.rebalance(); // new copies are placed (and copied from their peers), extra ones dropped
                return offset;
            }
            if (current.schemaVersion() != altered.schemaVersion() - 1) {
                throw new CoilgunException(SqlState.QUERY_CANCELED, "stream \"" + altered.name()
                        + "\" was altered concurrently; run the statement again");
            }
            long offset = append(CatalogKey.streamVersion(altered.name(), altered.schemaVersion()), as.ddl());
            catalog.addStream(altered);
            cluster.alterStream(altered);
            return offset;
        }, ddl).thenCompose(this::everyNodeApplied).thenRunAsync(() -> {
            if (as.dropsPartitioner()) {
                cluster.deletePartitionerTopic(as.stream().name(), as.partitioner()); // every node let it go
            } else if (as.partitioner() != null) {
                awaitConverted(as.stream().name());
            }
        }, waits);
    }

    /**
     * A stream partitioned by one field that gained a partitioner: the ALTER answers once the stream takes events
     * again (its decider holds its tasks' history), or after the statements' own wait; the seed topic goes then.
     */
    private void awaitConverted(String stream) {
        try {
            cluster.conversions().pauses().resumed(stream).get(CONVERSION_WAIT_MS, TimeUnit.MILLISECONDS);
            if (!partitioners.converting(stream) && catalog.stream(stream).isPresent()) {
                cluster.conversions().deleteSeedTopic(stream);
            }
        } catch (TimeoutException e) {
            LOG.warn("stream={} still gaining its decider after {} ms: the ALTER answers, the stream takes events "
                    + "once it has it", stream, CONVERSION_WAIT_MS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException e) {
            throw new IllegalStateException(e.getCause());
        }
    }

    /**
     * DROP STREAM: refused (2BP01) while the stream has metrics, unless CASCADE. The catalog tombstones (each metric,
     * each schema version, then the stream: the point of no return; a restart does not bring it back), then the
     * stream leaves the node's catalog while no statement of it publishes, statements waiting for replies fail
     * (42P01), and its tasks, their reservoirs and state are deleted; once every node did the same, its topics are
     * deleted. Completes with the notices.
     */
    public CompletableFuture<List<String>> dropStream(DropStreamStatement ds) {
        String[] notice = {null};
        long[] offset = {-1};
        return CompletableFuture.supplyAsync(() -> {
            StreamDef s = catalog.stream(ds.name()).orElse(null);
            if (s == null) {
                if (ds.ifExists()) {
                    notice[0] = StreamDrops.skipping(ds.name());
                    return null;
                }
                throw StreamDrops.doesNotExist(ds.name());
            }
            List<MetricDef> metrics = catalog.metricsOf(s.name());
            List<SinkDef> sinks = catalog.sinksOf(s.name());
            if ((!metrics.isEmpty() || !sinks.isEmpty()) && !ds.cascade()) {
                throw StreamDrops.dependentObjects(s.name(), metrics, sinks);
            }
            for (SinkDef k : sinks) {
                remove(CatalogKey.sink(k.name()));
                roles.forget(k.name());
            }
            for (MetricDef m : metrics) {
                remove(CatalogKey.metric(m.name()));
                roles.forget(m.name());
            }
            roles.forget(s.name());
            for (int v = 2; v <= s.schemaVersion(); v++) {
                remove(CatalogKey.streamVersion(s.name(), v));
            }
            remove(CatalogKey.streamOptions(s.name())); // a tombstone of a key never written is harmless
            for (CatalogKey k : partitioners.recordsOf(s.name())) {
                remove(k);
            }
            offset[0] = remove(CatalogKey.stream(s.name()));
            inserter.streamDropped(s.name(), () -> catalog.removeStream(s.name()));
            cluster.dropStreamLocally(s);
            sinksChanged();
            notice[0] = StreamDrops.cascades(metrics, sinks);
            return s;
        }, ddl).thenCompose(s -> s == null ? CompletableFuture.completedFuture(null)
                : everyNodeApplied(offset[0]).thenRunAsync(() -> cluster.deleteTopics(s.name()), waits))
                .thenApply(v -> notice[0] == null ? List.<String>of() : List.of(notice[0]));
    }

    /** DROP METRIC: the catalog tombstone, then every task of its partitioner drops it (and its state). */
    public CompletableFuture<Void> dropMetric(DropMetricStatement dm) {
        return CompletableFuture.supplyAsync(() -> {
            MetricDef m = catalog.metric(dm.name()).orElse(null);
            if (m == null) {
                if (dm.ifExists()) {
                    return -1L;
                }
                throw new CoilgunException(SqlState.UNDEFINED_TABLE, "metric \"" + dm.name() + "\" does not exist");
            }
            List<SinkDef> sinks = catalog.sinks().stream().filter(k -> !k.wholeStream() && k.from().equals(m.name()))
                    .toList();
            if (!sinks.isEmpty()) {
                throw StreamDrops.metricHasSinks(m.name(), sinks);
            }
            StreamDef s = catalog.stream(m.stream()).orElseThrow();
            roles.forget(m.name());
            long offset = remove(CatalogKey.metric(m.name()));
            catalog.removeMetric(m.name());
            cluster.dropMetric(s, m);
            return offset;
        }, ddl).thenCompose(this::everyNodeApplied);
    }

    /**
     * CREATE METRIC: the catalog record; once every node applied it, the metric's start marker in each partition of
     * its partitioner: every copy of every task adds the metric there (ClusterNode.startMetric). Returns when every
     * task's active copy has it.
     */
    public CompletableFuture<Void> createMetric(CreateMetricStatement cm) {
        return CompletableFuture.supplyAsync(() -> {
            MetricDef m = cm.metric();
            if (catalog.exists(m.name())) {
                if (cm.ifNotExists() && catalog.metric(m.name()).isPresent()) {
                    return -1L;
                }
                throw new CoilgunException(SqlState.DUPLICATE_TABLE, "relation \"" + m.name() + "\" already exists");
            }
            StreamDef s = catalog.stream(m.stream()).orElseThrow(() -> new CoilgunException(SqlState.UNDEFINED_TABLE,
                    "stream \"" + m.stream() + "\" does not exist"));
            partitioners.checkFilled(s, m.partitioner());
            long offset = append(CatalogKey.metric(m.name()), m.ddl());
            catalog.addMetric(m);
            cluster.deployMetric(s, m, offset);
            return offset;
        }, ddl).thenCompose(offset -> everyNodeApplied(offset).thenCompose(v -> offset < 0
                ? CompletableFuture.completedFuture(null) // IF NOT EXISTS of an existing metric
                : cluster.startMetric(catalog.stream(cm.metric().stream()).orElseThrow(), cm.metric())));
    }

    /**
     * CREATE SINK: its topic (if missing, with the partitions of the partitioner topic it reads), then the catalog
     * record; every node's tasks of the metric (or stream) make its records from their next event, and each task's
     * active copy writes them.
     */
    public CompletableFuture<Void> createSink(CreateSinkStatement cs) {
        return CompletableFuture.supplyAsync(() -> {
            SinkDef k = cs.sink();
            if (catalog.exists(k.name())) {
                if (cs.ifNotExists() && catalog.sink(k.name()).isPresent()) {
                    return -1L;
                }
                throw new CoilgunException(SqlState.DUPLICATE_TABLE, "relation \"" + k.name() + "\" already exists");
            }
            StreamDef s = catalog.stream(k.stream()).orElse(null);
            MetricDef m = k.wholeStream() ? null : catalog.metric(k.from()).orElse(null);
            if (s == null || !k.wholeStream() && m == null) {
                throw new CoilgunException(SqlState.UNDEFINED_TABLE, "metric or stream \"" + k.from()
                        + "\" does not exist");
            }
            cluster.createSinkTopic(k.topic(), s.partitions(m != null ? m.partitioner() : s.partitionBy().get(0)));
            long offset = append(CatalogKey.sink(k.name()), k.ddl());
            catalog.addSink(k.withId(offset));
            sinksChanged();
            return offset;
        }, ddl).thenCompose(this::everyNodeApplied);
    }

    /** DROP SINK: the catalog tombstone; the tasks write no more of its records (those written stay in the topic). */
    public CompletableFuture<Void> dropSink(DropSinkStatement ds) {
        return CompletableFuture.supplyAsync(() -> {
            if (catalog.sink(ds.name()).isEmpty()) {
                if (ds.ifExists()) {
                    return -1L;
                }
                throw new CoilgunException(SqlState.UNDEFINED_OBJECT, "sink \"" + ds.name() + "\" does not exist");
            }
            roles.forget(ds.name());
            long offset = remove(CatalogKey.sink(ds.name()));
            catalog.removeSink(ds.name());
            sinksChanged();
            return offset;
        }, ddl).thenCompose(this::everyNodeApplied);
    }

    /** CREATE, ALTER or DROP ROLE: its records, then every node has it. */
    public CompletableFuture<Void> role(RoleStatement rs) {
        return CompletableFuture.supplyAsync(() -> roles.run(rs), ddl).thenCompose(this::everyNodeApplied);
    }

    /** GRANT or REVOKE: the records of the pairs it changed, then every node enforces them. */
    public CompletableFuture<Void> grant(GrantStatement gs) {
        return CompletableFuture.supplyAsync(() -> roles.run(gs), ddl).thenCompose(this::everyNodeApplied);
    }

    /** Notes {@code role} as the owner of the stream, metric or sink it created. */
    public CompletableFuture<Void> own(String object, String role) {
        return CompletableFuture.supplyAsync(() -> roles.own(object, role), ddl).thenCompose(this::everyNodeApplied);
    }

    void close() {
        waits.shutdownNow();
    }
}
