package io.coilgun.cluster.recovery;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import io.coilgun.cluster.task.TaskId;
import io.coilgun.planner.plan.TaskSnapshot;
import io.coilgun.storage.snapshot.SnapshotManifest;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves copies of the tasks this node holds to the peers that recover them (peer recovery, docs/architecture.md),
 * over HTTP on its own port, found by the peers in this node's status on Kafka with the token they must send:
 * <ul>
 *   <li>{@code POST /peer/snapshots?task=<topic>-<partition>}: a snapshot of the task, taken on its unit's thread at
 *       a checkpoint; answers its id, a newline, and its {@link SnapshotManifest} (404 when the task is not here);</li>
 *   <li>{@code GET /peer/snapshots/<id>/<path>?from=<n>}: a file of the snapshot from byte {@code n} to its length
 *       in the manifest, at the node's {@link TransferLimiter} rate (a receiver resumes a cut file with
 *       {@code from});</li>
 *   <li>{@code DELETE /peer/snapshots/<id>}: the receiver is done.</li>
 * </ul>
 * A snapshot's files are hard links under {@code <data>/snapshots}: they cost no space until the task's own files
 * are deleted (retention), and stay valid while the task goes on. One not used for {@link #IDLE_MS} is dropped.
 */
public final class SnapshotServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SnapshotServer.class);
    static final String TOKEN_HEADER = "X-Coilgun-Peer-Token";
    /** A request's proof of the cluster secret ({@link PeerSecurity}). */
    static final String PROOF_HEADER = "X-Coilgun-Peer-Proof";
    /** The signature of a snapshot's manifest, when the cluster has a secret. */
    static final String SIGNATURE_HEADER = "X-Coilgun-Peer-Signature";
    static final long IDLE_MS = 10 * 60_000;

    /** Takes a snapshot of a task held on this node (failing with {@link NotHeldException} when it is not). */
    public interface Source {
        CompletableFuture<TaskSnapshot> snapshot(TaskId task, Path into);
    }

    /** The task is not held on this node. */
    public static final class NotHeldException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        public NotHeldException(TaskId task) {
            super("task " + task + " is not held here");
        }
    }

    private record Held(Path dir, SnapshotManifest manifest, long[] lastUse) {
    }

    private final HttpServer http;
    private final ExecutorService threads;
    private final ScheduledExecutorService cleaner;
    private final Path root;
    private final Source source;
    private final TransferLimiter limiter;
    private final String token;
    private final PeerSecurity security;
    /** The proofs of the secret taken within the skew window: each is taken once. */
    private final SeenProofs seen = new SeenProofs(PeerSecurity.SKEW_MS, SeenProofs.CAPACITY);
    /** The clock proofs are judged by (milliseconds; the system's, a test's own). */
    private final LongSupplier clock;
    private final Map<String, Held> snapshots = new ConcurrentHashMap<>();

    private SnapshotServer(HttpServer http, Path root, Source source, TransferLimiter limiter,
            PeerSecurity security, LongSupplier clock) {
        this.http = http;
        this.security = security;
        this.clock = clock;
        this.root = root;
        this.source = source;
        this.limiter = limiter;
        byte[] random = new byte[16];
        new SecureRandom().nextBytes(random);
        this.token = HexFormat.of().formatHex(random);
        this.threads = Executors.newFixedThreadPool(4, r -> daemon(r, "coilgun-snapshot-server"));
        this.cleaner = Executors.newSingleThreadScheduledExecutor(r -> daemon(r, "coilgun-snapshot-cleaner"));
        http.setExecutor(threads);
        http.createContext("/peer/snapshots", this::handle);
    }

    private static Thread daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }

    /**
     * Listens on {@code host:port} (0: any free port). Snapshots left under {@code root} by an earlier run are
     * deleted.
     */
    public static SnapshotServer start(String host, int port, Path root, Source source, TransferLimiter limiter)
            throws IOException {
        return start(host, port, root, source, limiter, PeerSecurity.NONE);
    }

    /** The same, serving HTTPS with the node's certificate and asking the cluster secret as {@code security} says. */
    public static SnapshotServer start(String host, int port, Path root, Source source, TransferLimiter limiter,
            PeerSecurity security) throws IOException {
        return start(host, port, root, source, limiter, security, System::currentTimeMillis);
    }

    /** The same, judging the proofs' time by {@code clock} (milliseconds). */
    static SnapshotServer start(String host, int port, Path root, Source source, TransferLimiter limiter,
            PeerSecurity security, LongSupplier clock) throws IOException {
        Files.createDirectories(root);
        FileTrees.deleteChildren(root);
        InetSocketAddress address = new InetSocketAddress(host, port);
        HttpServer http;
        if (security.serverTls() != null) {
            HttpsServer https = HttpsServer.create(address, 16);
            https.setHttpsConfigurator(new HttpsConfigurator(security.serverTls()));
            http = https;
        } else {
            http = HttpServer.create(address, 16);
        }
        SnapshotServer server = new SnapshotServer(http, root, source, limiter, security, clock);
        server.http.start();
        server.cleaner.scheduleWithFixedDelay(server::dropIdle, 60, 60, TimeUnit.SECONDS);
        return server;
    }

    /** {@code host:port} the peers reach this server at ({@code https://host:port} when it serves TLS). */
    public String address() {
        InetSocketAddress a = http.getAddress();
        return (security.serverTls() != null ? "https://" : "") + a.getHostString() + ":" + a.getPort();
    }

    /** What a peer must send in {@value #TOKEN_HEADER}. */
    public String token() {
        return token;
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            URI uri = exchange.getRequestURI();
            String proof = exchange.getRequestHeaders().getFirst(PROOF_HEADER);
            if (security.secret() != null) {
                long now = clock.getAsLong();
                if (!security.authorized(proof, exchange.getRequestMethod(), target(uri), now)) {
                    LOG.warn("refused a peer request from {}: it does not prove the cluster secret",
                            exchange.getRemoteAddress());
                    reply(exchange, 401, "a peer must prove the cluster secret");
                    return;
                }
                SeenProofs.Verdict taken = seen.admit(proof, now);
                if (taken == SeenProofs.Verdict.FULL) {
                    LOG.warn("refused a peer request from {}: {} proofs of the cluster secret taken within {} s",
                            exchange.getRemoteAddress(), seen.size(), PeerSecurity.SKEW_MS / 1000);
                    reply(exchange, 503, "too many peer requests within the proofs' window: try again later");
                    return;
                }
                if (taken != SeenProofs.Verdict.FIRST) { // a replay; or older than the window (the clock went back)
                    String why = taken == SeenProofs.Verdict.REPEATED ? "was used before" : "is too old";
                    LOG.warn("refused a peer request from {}: its proof of the cluster secret {}",
                            exchange.getRemoteAddress(), why);
                    reply(exchange, 401, "a peer must prove the cluster secret: this proof " + why);
                    return;
                }
            } else if (!token.equals(exchange.getRequestHeaders().getFirst(TOKEN_HEADER))) {
                reply(exchange, 401, "a peer token is required");
                return;
            }
            String rest = uri.getPath().substring("/peer/snapshots".length());
            switch (exchange.getRequestMethod()) {
                case "POST" -> take(exchange, query(uri, "task"), proof);
                case "GET" -> send(exchange, rest);
                case "DELETE" -> {
                    release(rest.startsWith("/") ? rest.substring(1) : rest);
                    exchange.sendResponseHeaders(204, -1);
                }
                default -> reply(exchange, 405, "method not allowed");
            }
        } catch (RuntimeException e) {
            LOG.warn("peer request {} {} failed", exchange.getRequestMethod(), exchange.getRequestURI(), e);
            try {
                reply(exchange, 500, String.valueOf(e.getMessage()));
            } catch (IOException | RuntimeException ignored) {
                // the answer had begun: the peer sees a cut transfer and retries
            }
        }
    }

    /** A request's raw path and query: what its proof of the secret covers. */
    static String target(URI uri) {
        return uri.getRawPath() + (uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery());
    }

    private void take(HttpExchange exchange, String task, String proof) throws IOException {
        TaskId id;
        try {
            id = TaskId.parse(task == null ? "" : task);
        } catch (RuntimeException e) {
            reply(exchange, 400, "no task named " + task);
            return;
        }
        String snapshotId = UUID.randomUUID().toString();
        Path dir = root.resolve(snapshotId);
        TaskSnapshot snapshot;
        try {
            snapshot = source.snapshot(id, dir).get(60, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            FileTrees.deleteQuietly(dir);
            if (e.getCause() instanceof NotHeldException) {
                reply(exchange, 404, e.getCause().getMessage());
                return;
            }
            throw new IllegalStateException("snapshot of " + id + " failed: " + e.getCause(), e.getCause());
        } catch (InterruptedException | TimeoutException e) {
            FileTrees.deleteQuietly(dir);
            throw new IllegalStateException("snapshot of " + id + " not taken: " + e, e);
        }
        SnapshotManifest manifest = SnapshotManifest.of(dir, snapshot.nextOffset(), snapshot.files());
        snapshots.put(snapshotId, new Held(dir, manifest, new long[] {System.currentTimeMillis()}));
        LOG.info("task={} snapshot {} at offset {} for a peer: {} files, {} bytes", id, snapshotId,
                manifest.nextOffset(), manifest.files().size(), manifest.bytes());
        String body = snapshotId + "\n" + manifest.encode();
        if (security.secret() != null) {
            exchange.getResponseHeaders().set(SIGNATURE_HEADER, security.sign(proof, body));
        }
        reply(exchange, 200, body);
    }

    private void send(HttpExchange exchange, String rest) throws IOException {
        int slash = rest.indexOf('/', 1);
        Held held = slash < 0 ? null : snapshots.get(rest.substring(1, slash));
        String path = slash < 0 ? null : rest.substring(slash + 1);
        SnapshotManifest.Entry entry = held == null ? null
                : held.manifest().files().stream().filter(e -> e.path().equals(path)).findFirst().orElse(null);
        if (entry == null) {
            reply(exchange, 404, "no such snapshot file");
            return;
        }
        held.lastUse()[0] = System.currentTimeMillis();
        String from = query(exchange.getRequestURI(), "from");
        long start = from == null ? 0 : Long.parseLong(from);
        if (start < 0 || start > entry.length()) {
            reply(exchange, 416, "from " + start + " is outside the file's " + entry.length() + " bytes");
            return;
        }
        long length = entry.length() - start;
        exchange.sendResponseHeaders(200, length == 0 ? -1 : length);
        byte[] buffer = new byte[64 << 10];
        try (InputStream in = Files.newInputStream(held.dir().resolve(path)); OutputStream out = exchange.getResponseBody()) {
            in.skipNBytes(start);
            long left = length;
            while (left > 0) {
                int n = (int) Math.min(buffer.length, left);
                limiter.acquire(n);
                in.readNBytes(buffer, 0, n);
                out.write(buffer, 0, n);
                left -= n;
                held.lastUse()[0] = System.currentTimeMillis();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void release(String snapshotId) {
        Held held = snapshots.remove(snapshotId);
        if (held != null) {
            FileTrees.deleteQuietly(held.dir());
        }
    }

    private void dropIdle() {
        long now = System.currentTimeMillis();
        for (var e : snapshots.entrySet()) {
            if (now - e.getValue().lastUse()[0] > IDLE_MS) {
                LOG.info("snapshot {} dropped: unused for {} s", e.getKey(), IDLE_MS / 1000);
                release(e.getKey());
            }
        }
    }

    private static String query(URI uri, String name) {
        String q = uri.getRawQuery();
        if (q == null) {
            return null;
        }
        for (String pair : q.split("&")) {
            int eq = pair.indexOf('=');
            if (eq > 0 && pair.substring(0, eq).equals(name)) {
                return URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
            }
        }
        return null;
    }

    private static void reply(HttpExchange exchange, int status, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
        exchange.sendResponseHeaders(status, bytes.length == 0 ? -1 : bytes.length);
        if (bytes.length > 0) {
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(bytes);
            }
        }
    }

    @Override
    public void close() {
        http.stop(0);
        threads.shutdownNow();
        cleaner.shutdownNow();
        for (String id : snapshots.keySet()) {
            release(id);
        }
    }
}
