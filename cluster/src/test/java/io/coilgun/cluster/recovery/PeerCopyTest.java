package io.coilgun.cluster.recovery;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coilgun.cluster.task.TaskId;
import io.coilgun.planner.event.EventCodec;
import io.coilgun.planner.model.AggregationDef;
import io.coilgun.planner.model.AggregationKind;
import io.coilgun.planner.model.ColumnType;
import io.coilgun.planner.model.Durations;
import io.coilgun.planner.model.LatePolicy;
import io.coilgun.planner.model.MetricDef;
import io.coilgun.planner.model.StreamColumn;
import io.coilgun.planner.model.StreamDef;
import io.coilgun.planner.model.WindowSpec;
import io.coilgun.planner.plan.TaskPlan;
import io.coilgun.storage.reservoir.ChunkCache;
import io.coilgun.storage.reservoir.ReservoirIO;
import io.coilgun.storage.snapshot.SnapshotManifest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A task copied over HTTP from a node's {@link SnapshotServer} by {@link PeerCopy}, while the source keeps
 * processing, goes on exactly as the source; a copy cut short or damaged is resumed and repaired; a stale copy takes
 * its unchanged files from its own disk; a peer without the token gets nothing.
 */
class PeerCopyTest {
    static final ReservoirIO IO = ReservoirIO.defaults();
    static final long T0 = 1_700_000_000_000_000L;
    static final StreamDef STREAM = new StreamDef("p", List.of(new StreamColumn("id", ColumnType.BIGINT, false),
            new StreamColumn("ts", ColumnType.TIMESTAMP, false), new StreamColumn("card", ColumnType.VARCHAR, false),
            new StreamColumn("amount", ColumnType.DOUBLE, false)), 1, 0, List.of("card"), 1, 10 * Durations.SECOND,
            LatePolicy.REJECT, "");
    static final MetricDef METRIC = new MetricDef("m", "p", List.of(
            new AggregationDef(AggregationKind.SUM, 3, "total", ColumnType.DOUBLE),
            new AggregationDef(AggregationKind.COUNT_STAR, -1, "n", ColumnType.BIGINT)),
            List.of(2), "card", WindowSpec.sliding(Durations.HOUR), "");
    static final TaskId TASK = new TaskId("coilgun.stream.p.card", 0);

    @TempDir
    Path dir;

    @AfterAll
    static void closeIo() {
        IO.close();
    }

    static List<byte[]> log(int n) {
        EventCodec codec = new EventCodec(STREAM);
        Random rnd = new Random(5);
        List<byte[]> log = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            log.add(codec.encode(new Object[] {(long) i, T0 + i * 50_000L, "c" + rnd.nextInt(50),
                rnd.nextInt(10_000) / 100.0}, 0));
        }
        return log;
    }

    static TaskPlan open(Path d) {
        return TaskPlan.open(d, STREAM, List.of(METRIC), IO, new ChunkCache(8, 1 << 20));
    }

    /** The source task on its own thread (as on a processor unit), serving snapshots. */
    final class Source implements AutoCloseable {
        final ExecutorService unit = Executors.newSingleThreadExecutor();
        final TaskPlan plan;
        final SnapshotServer server;
        final List<byte[]> log;
        final List<Object[]> results = new ArrayList<>();

        Source(List<byte[]> log, long bytesPerSecond) throws Exception {
            this(log, bytesPerSecond, PeerSecurity.NONE);
        }

        Source(List<byte[]> log, long bytesPerSecond, PeerSecurity security) throws Exception {
            this.log = log;
            this.plan = unit.submit(() -> open(dir.resolve("source"))).get();
            this.server = SnapshotServer.start("127.0.0.1", 0, dir.resolve("snapshots"),
                    (task, into) -> task.equals(TASK)
                            ? CompletableFuture.supplyAsync(() -> plan.snapshot(into), unit)
                            : CompletableFuture.failedFuture(new SnapshotServer.NotHeldException(task)),
                    new TransferLimiter(bytesPerSecond), security);
        }

        void process(int from, int to) throws Exception {
            unit.submit(() -> {
                for (int i = from; i < to; i++) {
                    Object[] out = new Object[plan.resultWidth()];
                    plan.process(log.get(i), i, new Object[4], out);
                    results.add(out);
                    if (i % 100 == 0) {
                        plan.checkpoint();
                    }
                }
            }).get();
        }

        PeerCopy.Peer peer() {
            return new PeerCopy.Peer("n1", server.address(), server.token());
        }

        @Override
        public void close() throws java.util.concurrent.ExecutionException {
            server.close();
            try {
                unit.submit(plan::close).get();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            unit.shutdown();
        }
    }

    /** The copy in {@code copy} goes on from its offset with the source's results. */
    void goesOnAsTheSource(Path copy, long offset, Source source) {
        TaskPlan copied = open(copy);
        try {
            assertEquals(offset, copied.nextOffset());
            for (int i = (int) offset; i < source.results.size(); i++) {
                Object[] out = new Object[copied.resultWidth()];
                copied.process(source.log.get(i), i, new Object[4], out);
                assertArrayEquals(source.results.get(i), out, "event " + i);
            }
        } finally {
            copied.close();
        }
    }

    @Test
    void aCopyOverHttpGoesOnAsTheSource() throws Exception {
        List<byte[]> log = log(20_000);
        try (Source source = new Source(log, 0)) {
            source.process(0, 15_000);
            RecoveryProgress progress = new RecoveryProgress();
            Path staging = dir.resolve("staging");
            SnapshotManifest manifest = new PeerCopy().fetch(source.peer(), TASK, staging, null, progress);
            source.process(15_000, 20_000); // the source goes on; the copy is as of the snapshot
            assertEquals(15_000, manifest.nextOffset());
            assertEquals(manifest.bytes(), progress.doneBytes());
            assertEquals(0, progress.reusedBytes());
            assertTrue(manifest.files().stream().anyMatch(f -> f.path().startsWith("reservoir/segment-")
                    && f.length() > 0), manifest.encode());
            goesOnAsTheSource(staging, 15_000, source);

            // a copy cut short and a damaged file: fetched again, only what is missing or wrong
            Path again = dir.resolve("again");
            new PeerCopy().fetch(source.peer(), TASK, again, null, new RecoveryProgress());
            SnapshotManifest.Entry largest = manifest.files().stream()
                    .max(java.util.Comparator.comparingLong(SnapshotManifest.Entry::length)).orElseThrow();
            Path cut = again.resolve(largest.path());
            byte[] bytes = Files.readAllBytes(cut);
            Files.write(cut, java.util.Arrays.copyOf(bytes, bytes.length / 2));
            RecoveryProgress resumed = new RecoveryProgress();
            SnapshotManifest second = new PeerCopy().fetch(source.peer(), TASK, again, null, resumed);
            assertTrue(resumed.reusedBytes() > 0, "kept what it had");
            goesOnAsTheSource(again, second.nextOffset(), source);

            // a stale copy: its unchanged files come from its own disk
            RecoveryProgress stale = new RecoveryProgress();
            new PeerCopy().fetch(source.peer(), TASK, dir.resolve("from-stale"), staging, stale);
            assertTrue(stale.reusedBytes() > 0, "a stale copy reuses its unchanged segments");
        }
    }

    @Test
    void withoutTheTokenOrTheTaskNothingIsCopied() throws Exception {
        try (Source source = new Source(log(100), 0)) {
            source.process(0, 100);
            PeerCopy.Peer wrong = new PeerCopy.Peer("n1", source.server.address(), "nope");
            IOException e = assertThrows(IOException.class,
                    () -> new PeerCopy().fetch(wrong, TASK, dir.resolve("x"), null, new RecoveryProgress()));
            assertTrue(e.getMessage().contains("401"), e.getMessage());
            IOException absent = assertThrows(IOException.class, () -> new PeerCopy().fetch(source.peer(),
                    new TaskId("coilgun.stream.p.card", 7), dir.resolve("y"), null, new RecoveryProgress()));
            assertTrue(absent.getMessage().contains("404"), absent.getMessage());
        }
    }

    /**
     * With TLS and a cluster secret (issue 42): the copy goes over HTTPS to a peer whose certificate the copier
     * trusts, proving the secret; a copier with another secret, or none, is refused (401); one that does not trust
     * the certificate gets no connection; and a snapshot whose manifest is not signed with the secret (a server
     * that does not hold it) is refused by the copier.
     */
    @Test
    void overTlsTheClusterSecretIsProvenBothWays() throws Exception {
        javax.net.ssl.SSLContext[] tls = selfSigned(dir.resolve("tls"));
        byte[] secret = "the-cluster-secret-0123456789".getBytes(java.nio.charset.StandardCharsets.UTF_8);
        try (Source source = new Source(log(2_000), 0, new PeerSecurity(tls[0], null, secret))) {
            source.process(0, 1_000);
            assertTrue(source.server.address().startsWith("https://127.0.0.1:"), source.server.address());
            SnapshotManifest manifest = new PeerCopy(new PeerSecurity(null, tls[1], secret)).fetch(source.peer(),
                    TASK, dir.resolve("copied"), null, new RecoveryProgress());
            source.process(1_000, 2_000);
            goesOnAsTheSource(dir.resolve("copied"), manifest.nextOffset(), source);
            for (byte[] other : new byte[][] {"another-secret-of-this-cluster".getBytes(
                    java.nio.charset.StandardCharsets.UTF_8), null}) {
                IOException refused = assertThrows(IOException.class, () -> new PeerCopy(new PeerSecurity(null,
                        tls[1], other)).fetch(source.peer(), TASK, dir.resolve("x"), null, new RecoveryProgress()));
                assertTrue(refused.getMessage().contains("401"), refused.getMessage());
            }
            assertThrows(IOException.class, () -> new PeerCopy(new PeerSecurity(null, null, secret))
                    .fetch(source.peer(), TASK, dir.resolve("y"), null, new RecoveryProgress()),
                    "a certificate the copier does not trust");
        }
        // a server without the secret answers with a manifest of its own: the copier refuses it
        com.sun.net.httpserver.HttpServer rogue = com.sun.net.httpserver.HttpServer.create(
                new java.net.InetSocketAddress("127.0.0.1", 0), 4);
        rogue.createContext("/peer/snapshots", exchange -> {
            byte[] body = "id\ncoilgun-snapshot 1 0\n".getBytes(java.nio.charset.StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        rogue.start();
        try {
            PeerCopy.Peer peer = new PeerCopy.Peer("rogue", "127.0.0.1:" + rogue.getAddress().getPort(), "");
            IOException unsigned = assertThrows(IOException.class, () -> new PeerCopy(new PeerSecurity(null, null,
                    secret)).fetch(peer, TASK, dir.resolve("z"), null, new RecoveryProgress()));
            assertTrue(unsigned.getMessage().contains("cannot be verified"), unsigned.getMessage());
        } finally {
            rogue.stop(0);
        }
    }

    /** One request to {@code server} carrying {@code proof} as its proof of the secret: its status. */
    static int send(SnapshotServer server, String method, String pathAndQuery, String proof) throws Exception {
        java.net.URI uri = java.net.URI.create("http://" + server.address() + pathAndQuery);
        java.net.http.HttpRequest.Builder b = java.net.http.HttpRequest.newBuilder(uri)
                .method(method, java.net.http.HttpRequest.BodyPublishers.noBody());
        if (proof != null) {
            b.header(SnapshotServer.PROOF_HEADER, proof);
        }
        return java.net.http.HttpClient.newHttpClient().send(b.build(),
                java.net.http.HttpResponse.BodyHandlers.discarding()).statusCode();
    }

    /**
     * A request carrying the cluster secret's proof, copied off the wire and sent again within the five minutes of
     * skew, is refused (issue 58): each proof is taken once. The same request with a fresh proof is taken.
     */
    @Test
    void aProofOfTheSecretIsTakenOnce() throws Exception {
        byte[] secret = "the-cluster-secret-0123456789".getBytes(java.nio.charset.StandardCharsets.UTF_8);
        PeerSecurity security = new PeerSecurity(null, null, secret);
        try (Source source = new Source(log(100), 0, security)) {
            source.process(0, 100);
            String take = "/peer/snapshots?task=" + TASK;
            String proof = security.authorize("POST", SnapshotServer.target(java.net.URI.create(take)),
                    System.currentTimeMillis());
            assertEquals(200, send(source.server, "POST", take, proof), "the first time");
            assertEquals(401, send(source.server, "POST", take, proof), "the same proof again: a replay");
            String missing = "/peer/snapshots/none/file";
            String get = security.authorize("GET", missing, System.currentTimeMillis());
            assertEquals(404, send(source.server, "GET", missing, get), "taken: there is no such file");
            assertEquals(401, send(source.server, "GET", missing, get), "a GET's proof again");
            assertEquals(200, send(source.server, "POST", take, security.authorize("POST",
                    SnapshotServer.target(java.net.URI.create(take)), System.currentTimeMillis())), "a fresh proof");
        }
    }

    /**
     * A proof is refused beyond five minutes of skew either way, judged by the server's clock (a test's own here:
     * nothing sleeps), and taken within it; a proof remembered is refused again until it leaves the window.
     */
    @Test
    void aProofBeyondFiveMinutesOfSkewIsRefused() throws Exception {
        byte[] secret = "the-cluster-secret-0123456789".getBytes(java.nio.charset.StandardCharsets.UTF_8);
        PeerSecurity security = new PeerSecurity(null, null, secret);
        java.util.concurrent.atomic.AtomicLong now = new java.util.concurrent.atomic.AtomicLong(1_800_000_000_000L);
        try (SnapshotServer server = SnapshotServer.start("127.0.0.1", 0, dir.resolve("snapshots"),
                (task, into) -> CompletableFuture.failedFuture(new SnapshotServer.NotHeldException(task)),
                new TransferLimiter(0), security, now::get)) {
            String path = "/peer/snapshots/none/file";
            long t = now.get();
            assertEquals(401, send(server, "GET", path, security.authorize("GET", path, t - PeerSecurity.SKEW_MS - 1)),
                    "made more than five minutes ago");
            assertEquals(401, send(server, "GET", path, security.authorize("GET", path, t + PeerSecurity.SKEW_MS + 1)),
                    "made more than five minutes ahead");
            assertEquals(401, send(server, "GET", path, null), "no proof");
            String edge = security.authorize("GET", path, t - PeerSecurity.SKEW_MS);
            assertEquals(404, send(server, "GET", path, edge), "five minutes ago: taken");
            String ahead = security.authorize("GET", path, t + PeerSecurity.SKEW_MS);
            assertEquals(404, send(server, "GET", path, ahead), "five minutes ahead: taken");
            now.addAndGet(60_000);
            assertEquals(401, send(server, "GET", path, ahead), "a minute later, the same proof: a replay");
            assertEquals(401, send(server, "GET", path, edge), "past the window now: too old");
        }
    }

    /** A self-signed certificate for 127.0.0.1 (keytool): the server's TLS context, and a client's trusting it. */
    static javax.net.ssl.SSLContext[] selfSigned(Path dir) throws Exception {
        Files.createDirectories(dir);
        Path store = dir.resolve("node.p12");
        char[] password = "store-pass".toCharArray();
        Process keytool = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                "-genkeypair", "-alias", "node", "-keyalg", "EC", "-groupname", "secp256r1", "-dname",
                "CN=127.0.0.1", "-ext", "san=ip:127.0.0.1", "-validity", "2", "-keystore", store.toString(),
                "-storetype", "PKCS12", "-storepass", "store-pass", "-keypass", "store-pass")
                .redirectErrorStream(true).start();
        assertEquals(0, keytool.waitFor(), new String(keytool.getInputStream().readAllBytes()));
        java.security.KeyStore keys = java.security.KeyStore.getInstance("PKCS12");
        try (var in = Files.newInputStream(store)) {
            keys.load(in, password);
        }
        javax.net.ssl.KeyManagerFactory km = javax.net.ssl.KeyManagerFactory.getInstance("PKIX");
        km.init(keys, password);
        javax.net.ssl.SSLContext server = javax.net.ssl.SSLContext.getInstance("TLS");
        server.init(km.getKeyManagers(), null, null);
        java.security.KeyStore trusted = java.security.KeyStore.getInstance("PKCS12");
        trusted.load(null, null);
        trusted.setCertificateEntry("node", keys.getCertificate("node"));
        javax.net.ssl.TrustManagerFactory tm = javax.net.ssl.TrustManagerFactory.getInstance("PKIX");
        tm.init(trusted);
        javax.net.ssl.SSLContext client = javax.net.ssl.SSLContext.getInstance("TLS");
        client.init(null, tm.getTrustManagers(), null);
        return new javax.net.ssl.SSLContext[] {server, client};
    }
}
