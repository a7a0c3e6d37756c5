package io.coilgun.server;

import io.coilgun.cluster.ClusterNode;
import io.coilgun.cluster.catalog.CatalogKey;
import io.coilgun.cluster.catalog.CatalogLog;
import io.coilgun.planner.error.CoilgunException;
import io.coilgun.planner.error.SqlState;
import io.coilgun.planner.model.Catalog;
import io.coilgun.planner.model.MetricDef;
import io.coilgun.planner.model.StreamDef;
import io.coilgun.server.session.Inserter;
import io.coilgun.sql.compile.AlterStreamStatement;
import io.coilgun.sql.compile.CompiledStatement;
import io.coilgun.sql.compile.CreateMetricStatement;
import io.coilgun.sql.compile.CreateStreamStatement;
import io.coilgun.sql.compile.DropMetricStatement;
import io.coilgun.sql.compile.StatementCompiler;
import io.coilgun.sql.compile.SqlStatement;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node's catalog of streams and metrics and the DDL that changes it: each operation runs on the node's one DDL
 * thread, writes the durable catalog topic first ({@link CatalogKey}), then the node's catalog, then the tasks. At
 * start, {@link #recover} replays the catalog topic and deploys the tasks.
 */
final class CatalogService {
    private static final Logger LOG = LoggerFactory.getLogger(CatalogService.class);

    private final Catalog catalog;
    private final StatementCompiler compiler;
    private final ClusterNode cluster;
    private final Inserter inserter;
    private final ExecutorService ddl;

    CatalogService(Catalog catalog, StatementCompiler compiler, ClusterNode cluster, Inserter inserter,
            ExecutorService ddl) {
        this.catalog = catalog;
        this.compiler = compiler;
        this.cluster = cluster;
        this.inserter = inserter;
        this.ddl = ddl;
    }

    /** Replays the catalog topic: streams and metrics come back, then their tasks resume after their checkpoints. */
    void recover() {
        for (CatalogLog.Entry entry : cluster.catalog().readAll()) {
            if (entry.ddl() == null) {
                if (entry.key().kind() == CatalogKey.Kind.METRIC) {
                    catalog.removeMetric(entry.key().name());
                } else if (entry.key().kind() == CatalogKey.Kind.STREAM) {
                    catalog.removeStream(entry.key().name()); // DROP STREAM
                }
                continue;
            }
            for (SqlStatement parsed : SqlStatement.parse(entry.ddl())) {
                CompiledStatement st = compiler.compile(parsed);
                if (st instanceof CreateStreamStatement cs) {
                    catalog.addStream(cs.stream());
                } else if (st instanceof AlterStreamStatement as) {
                    catalog.addStream(as.stream());
                } else if (st instanceof CreateMetricStatement cm) {
                    catalog.addMetric(cm.metric());
                }
            }
        }
        for (StreamDef stream : catalog.streams()) {
            cluster.deployStream(stream, catalog.metricsOf(stream.name()));
        }
        // Before taking statements: each task's stream time must count the records after its checkpoint, or a
        // multi-row INSERT could pass the lateness check and still lose a row to its task.
        if (!cluster.awaitReplayed(catalog.streams(), 120_000)) {
            LOG.warn("some tasks are still replaying after 120 s; statements are taken meanwhile, and a late row may "
                    + "then be rejected by its task after the other rows of its statement were applied");
        }
        LOG.info("catalog recovered streams={} tasks started", catalog.streams().size());
    }

    /** CREATE STREAM: topics, then the catalog record (the point of no return), then the tasks. */
    public CompletableFuture<Void> createStream(CreateStreamStatement cs) {
        return CompletableFuture.runAsync(() -> {
            StreamDef s = cs.stream();
            if (catalog.exists(s.name())) {
                if (cs.ifNotExists() && catalog.stream(s.name()).isPresent()) {
                    return;
                }
                throw new CoilgunException(SqlState.DUPLICATE_TABLE, "relation \"" + s.name() + "\" already exists");
            }
            cluster.purgeStream(s.name()); // what a dropped stream of this name may have left (a crash mid-drop)
            cluster.createTopics(s);
            cluster.catalog().append(CatalogKey.stream(s.name()), s.ddl());
            catalog.addStream(s);
            cluster.deployStream(s, java.util.List.of());
        }, ddl);
    }

    /**
     * ALTER STREAM ... ADD COLUMN: the catalog record (key {@code stream:<name>:v<version>}, after the CREATE), then
     * every task of the stream decodes with the new schema from its next event on.
     */
    public CompletableFuture<Void> alterStream(AlterStreamStatement as) {
        return CompletableFuture.runAsync(() -> {
            StreamDef altered = as.stream();
            StreamDef current = catalog.stream(altered.name()).orElseThrow(() -> new CoilgunException(
                    SqlState.UNDEFINED_TABLE, "stream \"" + altered.name() + "\" does not exist"));
            if (current.schemaVersion() != altered.schemaVersion() - 1) {
                throw new CoilgunException(SqlState.QUERY_CANCELED, "stream \"" + altered.name()
                        + "\" was altered concurrently; run the statement again");
            }
            cluster.catalog().append(CatalogKey.streamVersion(altered.name(), altered.schemaVersion()), as.ddl());
            catalog.addStream(altered);
            cluster.alterStream(altered);
        }, ddl);
    }

    /**
     * DROP STREAM: refused (2BP01) while the stream has metrics, unless CASCADE. The catalog tombstones (each metric,
     * each schema version, then the stream: the point of no return; a restart does not bring it back), then the
     * stream leaves the node's catalog while no statement of it publishes, statements waiting for replies fail
     * (42P01), and its tasks, their reservoirs and state, and its topics are deleted. Completes with the notices.
     */
    public CompletableFuture<java.util.List<String>> dropStream(io.coilgun.sql.compile.DropStreamStatement ds) {
        return CompletableFuture.supplyAsync(() -> {
            StreamDef s = catalog.stream(ds.name()).orElse(null);
            if (s == null) {
                if (ds.ifExists()) {
                    return java.util.List.of(io.coilgun.sql.compile.StreamDrops.skipping(ds.name()));
                }
                throw io.coilgun.sql.compile.StreamDrops.doesNotExist(ds.name());
            }
            java.util.List<MetricDef> metrics = catalog.metricsOf(s.name());
            if (!metrics.isEmpty() && !ds.cascade()) {
                throw io.coilgun.sql.compile.StreamDrops.dependentObjects(s.name(), metrics);
            }
            for (MetricDef m : metrics) {
                cluster.catalog().remove(CatalogKey.metric(m.name()));
            }
            for (int v = 2; v <= s.schemaVersion(); v++) {
                cluster.catalog().remove(CatalogKey.streamVersion(s.name(), v));
            }
            cluster.catalog().remove(CatalogKey.stream(s.name()));
            inserter.streamDropped(s.name(), () -> catalog.removeStream(s.name()));
            cluster.dropStream(s);
            String cascaded = io.coilgun.sql.compile.StreamDrops.cascades(metrics);
            return cascaded == null ? java.util.List.<String>of() : java.util.List.of(cascaded);
        }, ddl);
    }

    /** DROP METRIC: the catalog tombstone, then every task of its partitioner drops it (and its state). */
    public CompletableFuture<Void> dropMetric(DropMetricStatement dm) {
        return CompletableFuture.runAsync(() -> {
            MetricDef m = catalog.metric(dm.name()).orElse(null);
            if (m == null) {
                if (dm.ifExists()) {
                    return;
                }
                throw new CoilgunException(SqlState.UNDEFINED_TABLE, "metric \"" + dm.name() + "\" does not exist");
            }
            StreamDef s = catalog.stream(m.stream()).orElseThrow();
            cluster.catalog().remove(CatalogKey.metric(m.name()));
            catalog.removeMetric(m.name());
            cluster.dropMetric(s, m);
        }, ddl);
    }

    /** CREATE METRIC: the catalog record, then every task of its partitioner adds the metric between two events. */
    public CompletableFuture<Void> createMetric(CreateMetricStatement cm) {
        return CompletableFuture.runAsync(() -> {
            MetricDef m = cm.metric();
            if (catalog.exists(m.name())) {
                if (cm.ifNotExists() && catalog.metric(m.name()).isPresent()) {
                    return;
                }
                throw new CoilgunException(SqlState.DUPLICATE_TABLE, "relation \"" + m.name() + "\" already exists");
            }
            StreamDef s = catalog.stream(m.stream()).orElseThrow(() -> new CoilgunException(SqlState.UNDEFINED_TABLE,
                    "stream \"" + m.stream() + "\" does not exist"));
            cluster.catalog().append(CatalogKey.metric(m.name()), m.ddl());
            catalog.addMetric(m);
            cluster.deployMetric(s, m);
        }, ddl);
    }
}
