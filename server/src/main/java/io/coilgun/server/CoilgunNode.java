package io.coilgun.server;

import io.coilgun.cluster.ClusterConfig;
import io.coilgun.cluster.ClusterNode;
import io.coilgun.cluster.Progress;
import io.coilgun.cluster.feed.ClusterFeed;
import io.coilgun.cluster.ingest.InflightBudget;
import io.coilgun.cluster.ingest.IngestService;
import io.coilgun.cluster.kafka.KafkaUnavailableException;
import io.coilgun.cluster.recovery.PeerSecurity;
import io.coilgun.cluster.unit.TaskSample;
import io.coilgun.pgwire.PgServer;
import io.coilgun.pgwire.auth.Authentication;
import io.coilgun.pgwire.tls.ServerTls;
import io.coilgun.planner.model.Catalog;
import io.coilgun.server.config.NodeConfig;
import io.coilgun.server.config.StartupException;
import io.coilgun.server.embedded.EmbeddedKafka;
import io.coilgun.server.observe.HttpEndpoint;
import io.coilgun.server.observe.NodeMeters;
import io.coilgun.server.observe.NodeStatusReport;
import io.coilgun.server.query.NodeQueryData;
import io.coilgun.server.source.SourceReaders;
import io.coilgun.server.query.RemoteReplays;
import io.coilgun.server.query.ReplaySource;
import io.coilgun.server.session.ClusterSessions;
import io.coilgun.server.session.CoilgunSession;
import io.coilgun.server.session.Inserter;
import io.coilgun.server.session.SessionRegistry;
import io.coilgun.server.session.SessionServices;
import io.coilgun.sql.compile.AlterStreamStatement;
import io.coilgun.sql.compile.CreateMetricStatement;
import io.coilgun.sql.compile.CreateSinkStatement;
import io.coilgun.sql.compile.CreateStreamStatement;
import io.coilgun.sql.compile.DropMetricStatement;
import io.coilgun.sql.compile.DropSinkStatement;
import io.coilgun.sql.compile.GrantStatement;
import io.coilgun.sql.compile.RoleStatement;
import io.coilgun.server.access.Privileges;
import io.coilgun.sql.compile.DropStreamStatement;
import io.coilgun.sql.compile.QueryStatement;
import io.coilgun.sql.compile.ReplayStatement;
import io.coilgun.sql.compile.StatementCompiler;
import io.coilgun.sql.compile.ValueConverter;
import io.coilgun.sql.query.OpenQuery;
import io.coilgun.sql.query.QueryEngine;
import io.coilgun.sql.query.QuerySession;
import java.io.IOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One Coilgun node: the data directory (locked), Kafka (embedded broker or external), the cluster layer
 * (processor units, tasks, reply router), the catalog rebuilt from the catalog topic, and the pgwire front end.
 *
 * <p>DDL runs on one thread, in order: it blocks on Kafka (topic creation, catalog writes) and must not run
 * on network threads.
 */
public final class CoilgunNode implements AutoCloseable, SessionServices {
    private static final Logger LOG = LoggerFactory.getLogger(CoilgunNode.class);

    private final NodeConfig config;
    private final FileLock lock;
    private final Catalog catalog = new Catalog();
    private final SessionRegistry sessions;
    private final StatementCompiler compiler;
    private final ExecutorService ddl = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "coilgun-ddl");
        t.setDaemon(true);
        return t;
    });
    private EmbeddedKafka embeddedKafka;
    private String bootstrapServers;
    private ClusterNode cluster;
    /** REPLAY: this node's tasks, and the other nodes' through the peer link. */
    private RemoteReplays replays;
    private Inserter inserter;
    private IngestService ingest;
    /** The DDL operations and the catalog's recovery at start. */
    private CatalogService catalogService;
    /** The server's version, as coilgun.nodes shows it. */
    static final String VERSION = "0.1.0";
    private volatile PgServer pgServer;
    /** The other nodes' sessions, and where a CancelRequest for one of them goes. */
    private ClusterSessions clusterSessions;
    private QueryEngine queryEngine;
    /** Runs SELECTs: Calcite is synchronous and metric reads wait for processor units, so not on network threads. */
    private final ExecutorService queries = Executors.newFixedThreadPool(2, r -> {
        Thread t = new Thread(r, "coilgun-query");
        t.setDaemon(true);
        return t;
    });
    /** pgwire's authentication and TLS, checked before anything starts. */
    private Authentication authentication;
    private Privileges privileges;
    private ServerTls tls;
    /** How task data moves to and from peers: TLS, the cluster secret. */
    private PeerSecurity peerSecurity = PeerSecurity.NONE;
    /** The node's meters (Prometheus), and the HTTP listener that serves them and the status page. */
    private NodeMeters meters;
    private NodeQueryData queryData;
    private SourceReaders sources;
    private HttpEndpoint http;
    private volatile boolean started;
    /** The node runs its training before it says ready (boot.WarmUp): /ready answers 503 meanwhile. */
    private volatile boolean warming;
    /** This node's row of coilgun.nodes (its pgwire address filled in once it listens: --port 0 picks one). */
    private Object[] nodeRow;
    /** This node as the status page shows it: id, pgwire and HTTP addresses, version. */
    private final Map<String, Object> self = new ConcurrentHashMap<>();

    private CoilgunNode(NodeConfig config, FileLock lock) {
        this.config = config;
        this.sessions = new SessionRegistry(config.nodeId());
        this.lock = lock;
        this.compiler = new StatementCompiler(catalog, new ValueConverter(Clock.systemUTC()));
    }

    /**
     * Starts a node; on any start-up problem, releases what it took and throws a {@link StartupException} whose
     * message is one line for the operator.
     */
    public static CoilgunNode start(NodeConfig config) {
        return start(config, Progress.NONE);
    }

    /**
     * Starts a node whose start-up replay, and drain when it stops, report their progress to {@code progress} (the
     * command line's progress bars).
     */
    public static CoilgunNode start(NodeConfig config, Progress progress) {
        Authentication authentication = config.security().authentication();
        ServerTls tls = config.security().tls();
        PeerSecurity peerSecurity = config.security().peerSecurity();
        FileLock lock = lockDataDir(config.dataDir());
        checkPortFree(config.host(), config.port());
        CoilgunNode node = new CoilgunNode(config, lock);
        // the catalog's roles with LOGIN and a password log in too, besides the configured users
        node.authentication = authentication.withRoles(user -> node.catalog.roles().role(user)
                .filter(r -> r.login()).map(r -> r.verifier()).orElse(null));
        node.privileges = new Privileges(node.catalog.roles(), config.security().users().keySet(),
                authentication.method() == Authentication.Method.TRUST);
        node.tls = tls;
        node.peerSecurity = peerSecurity;
        try {
            node.startKafka();
            node.startCluster();
            node.cluster.progress(progress);
            node.startHttp(); // before the start-up replay, so that `coilgun status --wait` shows it
            node.catalogService.recover();
            node.sources.start(); // the streams fed from Kafka topics, once the catalog is known
            node.startPgwire();
            node.nodeRow[1] = config.host() + ":" + node.port();
            node.self.put("pgwire", node.nodeRow[1]);
            node.cluster.advertise(config.host() + ":" + node.port(), VERSION);
            node.started = true;
            return node;
        } catch (StartupException e) {
            node.close();
            throw e;
        } catch (RuntimeException e) {
            node.close();
            throw new StartupException("start-up failed: " + e.getMessage(), e);
        }
    }

    private static FileLock lockDataDir(Path dataDir) {
        try {
            Files.createDirectories(dataDir);
            Path probe = dataDir.resolve(".write-probe");
            Files.writeString(probe, "ok");
            Files.delete(probe);
        } catch (IOException | SecurityException e) {
            throw new StartupException("data directory " + dataDir.toAbsolutePath() + " is not writable ("
                    + e.getClass().getSimpleName() + ": " + e.getMessage() + ")");
        }
        try {
            FileChannel ch = FileChannel.open(dataDir.resolve(".lock"), StandardOpenOption.CREATE,
                    StandardOpenOption.WRITE);
            FileLock lock;
            try {
                lock = ch.tryLock();
            } catch (OverlappingFileLockException e) {
                lock = null;
            }
            if (lock == null) {
                ch.close();
                throw new StartupException("data directory " + dataDir.toAbsolutePath()
                        + " is in use by another Coilgun node");
            }
            return lock;
        } catch (IOException e) {
            throw new StartupException("cannot lock data directory " + dataDir.toAbsolutePath() + ": " + e.getMessage());
        }
    }

    private static void checkPortFree(String host, int port) {
        if (port == 0) {
            return;
        }
        try (ServerSocket s = new ServerSocket()) {
            s.setReuseAddress(true);
            s.bind(new InetSocketAddress(InetAddress.getByName(host), port));
        } catch (BindException e) {
            throw new StartupException("port " + port + " on " + host + " is already in use; "
                    + "choose another with --port");
        } catch (IOException e) {
            throw new StartupException("cannot listen on " + host + ":" + port + ": " + e.getMessage());
        }
    }

    private void startKafka() {
        if (config.embeddedKafka()) {
            try {
                embeddedKafka = EmbeddedKafka.start(config.dataDir(), config.kafkaPort());
            } catch (RuntimeException e) {
                throw new StartupException("cannot start the embedded Kafka broker: " + rootMessage(e), e);
            }
            bootstrapServers = embeddedKafka.bootstrapServers();
        } else {
            bootstrapServers = config.kafka();
        }
    }

    private void startCluster() {
        meters = new NodeMeters(config.nodeId());
        try {
            cluster = ClusterNode.start(new ClusterConfig(config.nodeId(), bootstrapServers, config.dataDir(),
                    config.processorUnits(), config.kafkaConnectTimeoutMs(), 30_000, config.chunkCacheChunks(),
                    config.chunkCacheMb() << 20, config.host(), config.peerPort(), (long) (config.recoveryMbPerSecond() * (1 << 20)),
                    (long) (config.replicaRestoreSeconds() * 1000)).withPeerSecurity(peerSecurity), meters.registry());
        } catch (KafkaUnavailableException e) {
            throw new StartupException(e.getMessage() + (config.embeddedKafka() || e.credentialsRefused() ? ""
                    : " (--kafka " + config.kafka() + "); is it running and reachable?"), e);
        }
        ingest = new IngestService(catalog, cluster.publisher(), new InflightBudget(config.maxInflightEvents(),
                InflightBudget.DEFAULT_WAIT_MS), cluster.conversions().pauses(), cluster.kafkaContact());
        inserter = new Inserter(catalog, ingest, config.dataDir().resolve("copy-spool"));
        catalogService = new CatalogService(catalog, compiler, cluster, inserter, ddl);
        replays = new RemoteReplays(cluster, () -> catalog);
        nodeRow = new Object[] {config.nodeId(), config.host() + ":" + config.port(), kafkaDescription(),
            config.dataDir().toString(), cluster.unitCount(), VERSION};
        clusterSessions = ClusterSessions.serve(cluster, sessions, (pid, secret) -> {
            PgServer server = pgServer;
            return server != null && server.cancelHere(pid, secret);
        });
        sources = new SourceReaders(catalog, ingest, compiler, bootstrapServers, config.nodeId(), meters.registry());
        queryData = new NodeQueryData(catalog, cluster, nodeRow, sessions::activity, sources);
        queryData.privileges(privileges);
        queryEngine = new QueryEngine(queryData);
        meters.bind(cluster, sessions::size, ingest.budget());
    }

    /** The HTTP listener for operators (metrics, status page, health), unless --http-port says none. */
    private void startHttp() {
        int port = config.httpBindPort();
        if (port < 0) {
            return;
        }
        self.put("id", config.nodeId());
        self.put("pgwire", config.host() + ":" + config.port());
        self.put("version", VERSION);
        NodeStatusReport report = new NodeStatusReport(self, queryData, meters.registry(), this::ready);
        try {
            http = HttpEndpoint.start(config.host(), port, new HttpEndpoint.Source() {
                @Override
                public List<TaskSample> sample() {
                    return meters.update(cluster.eachTask(TaskSample::of).orTimeout(5, TimeUnit.SECONDS).join());
                }

                @Override
                public NodeMeters meters() {
                    return meters;
                }

                @Override
                public NodeStatusReport report() {
                    return report;
                }

                @Override
                public boolean started() {
                    return ready();
                }
            }, authentication, tls == null ? null : tls.jdkContext());
        } catch (IOException e) {
            throw new StartupException("cannot listen for HTTP on " + config.host() + ":" + port + " (" + e.getMessage()
                    + "); choose another with --http-port (-1: none)", e);
        }
        self.put("http", config.host() + ":" + http.port());
    }

    private boolean ready() {
        return started && !warming;
    }

    /** Whether the node runs its training run now: it serves clients, but /ready says 503. */
    public void warming(boolean on) {
        warming = on;
    }

    /** {@code https} when the HTTP listener serves TLS (the node has a certificate), else {@code http}. */
    public String httpScheme() {
        return tls == null ? "http" : "https";
    }

    /** The HTTP listener's port, or -1 when there is none. */
    public int httpPort() {
        return http == null ? -1 : http.port();
    }

    /** A statement ended: counted and timed by kind in the node's meters. */
    @Override
    public void statementDone(String kind, boolean failed, long nanos) {
        meters.statement(kind, failed, nanos);
    }

    private void startPgwire() {
        pgServer = PgServer.builder(this::openSession).host(config.host()).port(config.port())
                .authentication(authentication).tls(tls).processIdSlot(cluster::pidSlot).build();
        pgServer.forwardCancelRequestsTo(clusterSessions::forwardCancelRequest);
        try {
            pgServer.start();
        } catch (IOException e) {
            throw new StartupException(e.getMessage() + "; choose another with --port", e);
        }
    }

    private static String rootMessage(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null) {
            t = t.getCause();
        }
        return t.getMessage() == null ? t.toString() : t.getMessage();
    }

    @Override
    public StatementCompiler compiler() {
        return compiler;
    }

    /** This node's feed of applied events to SUBSCRIBE statements. */
    @Override
    public ClusterFeed feed() {
        return cluster.feed();
    }

    @Override
    public SessionRegistry sessions() {
        return sessions;
    }

    @Override
    public Inserter inserter() {
        return inserter;
    }

    /** Runs a query (SELECT …) on a query thread. */
    @Override
    public CompletableFuture<QueryEngine.Rows> query(QueryStatement q, List<Object> parameters, String user,
            String database, QuerySession session, QueryEngine.Cancel cancel) {
        return CompletableFuture.supplyAsync(() -> queryEngine.run(q.text(), q.columnNames(), parameters, user,
                database, session, cancel), queries);
    }

    @Override
    public CompletableFuture<OpenQuery> openQuery(QueryStatement q, List<Object> parameters, String user,
            String database, QuerySession session, QueryEngine.Cancel cancel) {
        return CompletableFuture.supplyAsync(() -> queryEngine.open(q.text(), q.columnNames(), parameters, user,
                database, session, cancel), queries);
    }

    @Override
    public Executor queryExecutor() {
        return queries;
    }

    /** The columns a query returns, without running it (extended protocol Describe). */
    @Override
    public QueryEngine.Rows describeQuery(QueryStatement q, Set<Integer> numericParameters, String user,
            String database) {
        return queryEngine.describe(q.text(), q.columnNames(), numericParameters, user, database);
    }

    @Override
    public int[] queryParameterTypes(QueryStatement q, int count, String user, String database) {
        return queryEngine.parameterTypes(q.text(), count, user, database);
    }

    /** The Kafka the node uses (host:port list): its embedded broker's, or --kafka's. */
    public String bootstrapServers() {
        return bootstrapServers;
    }

    @Override
    public Catalog catalog() {
        return catalog;
    }

    public int port() {
        return pgServer.port();
    }

    public String kafkaDescription() {
        return config.embeddedKafka() ? "embedded at " + bootstrapServers : bootstrapServers;
    }

    @Override
    public CompletableFuture<Void> createStream(CreateStreamStatement cs) {
        return catalogService.createStream(cs);
    }

    @Override
    public CompletableFuture<Void> alterStream(AlterStreamStatement as) {
        return catalogService.alterStream(as);
    }

    @Override
    public CompletableFuture<List<String>> dropStream(DropStreamStatement ds) {
        return catalogService.dropStream(ds);
    }

    @Override
    public CompletableFuture<Void> dropMetric(DropMetricStatement dm) {
        return catalogService.dropMetric(dm);
    }

    @Override
    public CompletableFuture<Void> createMetric(CreateMetricStatement cm) {
        return catalogService.createMetric(cm);
    }

    @Override
    public CompletableFuture<Void> createSink(CreateSinkStatement cs) {
        return catalogService.createSink(cs);
    }

    @Override
    public CompletableFuture<Void> dropSink(DropSinkStatement ds) {
        return catalogService.dropSink(ds);
    }

    /** A pgwire session for an authenticated user, unless its role may not log in (28000, as Postgres says). */
    private CoilgunSession openSession(io.coilgun.pgwire.spi.StartupInfo startup) {
        if (!privileges.mayLogIn(startup.user())) {
            throw new io.coilgun.pgwire.spi.PgException("28000", "role \"" + startup.user()
                    + "\" is not permitted to log in");
        }
        return new CoilgunSession(this, startup);
    }

    @Override
    public CompletableFuture<Void> role(RoleStatement rs) {
        return catalogService.role(rs);
    }

    @Override
    public CompletableFuture<Void> grant(GrantStatement gs) {
        return catalogService.grant(gs);
    }

    @Override
    public CompletableFuture<Void> own(String object, String role) {
        return catalogService.own(object, role);
    }

    @Override
    public Privileges privileges() {
        return privileges;
    }

    @Override
    public CompletableFuture<List<ReplaySource>> startReplay(ReplayStatement replay) {
        return replays.start(replay.stream(), replay.metric(), replay.fromMicros(), replay.toMicros());
    }

    /**
     * Hands this node's tasks to the other nodes of the cluster (replica first; its clients are still served
     * meanwhile), stops accepting connections, stops the tasks (checkpointing them), then Kafka. Idempotent.
     */
    @Override
    public synchronized void close() {
        started = false; // /ready says 503 from now on: the node drains and stops
        if (cluster != null && pgServer != null) {
            cluster.drain();
        }
        if (pgServer != null) {
            pgServer.close();
            pgServer = null;
        }
        if (http != null) {
            http.close();
            http = null;
        }
        if (sources != null) {
            sources.close(); // before the ingest path its readers use
        }
        if (ingest != null) {
            ingest.close();
        }
        ddl.shutdown();
        queries.shutdownNow();
        if (catalogService != null) {
            catalogService.close();
        }
        try {
            ddl.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (replays != null) {
            replays.close();
        }
        if (cluster != null) {
            cluster.close();
            cluster = null;
        }
        if (embeddedKafka != null) {
            embeddedKafka.close();
            embeddedKafka = null;
        }
        if (meters != null) {
            meters.close();
        }
        try {
            if (lock.isValid()) {
                lock.release();
                lock.channel().close();
            }
        } catch (IOException e) {
            LOG.warn("cannot release data directory lock", e);
        }
    }
}
