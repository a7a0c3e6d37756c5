package io.coilgun.cluster.recovery;

import io.coilgun.cluster.task.TaskId;
import io.coilgun.storage.snapshot.SnapshotManifest;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Copies a task from a peer into a staging directory, file by file as the peer's {@link SnapshotManifest} lists them,
 * every file checked against its length and CRC32C. What the staging directory already holds from an earlier try is
 * kept when it matches (a whole file) or resumed (a file cut short: the rest is fetched, then the whole checked).
 * A file of {@code local} (the node's stale copy of the task) that matches is hard-linked instead of fetched: a
 * stale copy fetches only what changed since (whole segments: a closed one never changes).
 */
public final class PeerCopy {
    /** A node that holds the task: its snapshot server's address and token. */
    public record Peer(String node, String address, String token) {
    }

    private final HttpClient client;
    private final PeerSecurity security;

    public PeerCopy() {
        this(PeerSecurity.NONE);
    }

    /** A copier that trusts the peers' certificates and proves the cluster secret as {@code security} says. */
    public PeerCopy(PeerSecurity security) {
        this.security = security;
        HttpClient.Builder b = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5));
        if (security.clientTls() != null) {
            b.sslContext(security.clientTls());
        }
        this.client = b.build();
    }

    /**
     * Fetches a snapshot of {@code task} from {@code peer} into {@code staging}; its manifest once every file in it
     * checks. Files of {@code staging} not in the manifest are deleted.
     *
     * @param local the node's own (stale) copy of the task, or null
     * @throws IOException when the peer cannot be reached, has no copy, or sends a file that does not check twice
     */
    public SnapshotManifest fetch(Peer peer, TaskId task, Path staging, Path local, RecoveryProgress progress)
            throws IOException, InterruptedException {
        String base = (peer.address().contains("://") ? "" : "http://") + peer.address() + "/peer/snapshots";
        HttpRequest.Builder take = request(peer, base + "?task=" + URLEncoder.encode(task.toString(),
                StandardCharsets.UTF_8), "POST");
        String proof = take.build().headers().firstValue(SnapshotServer.PROOF_HEADER).orElse(null);
        HttpResponse<String> taken = client.send(take.timeout(Duration.ofSeconds(90))
                .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
        if (taken.statusCode() != 200) {
            throw new IOException("node " + peer.node() + " gave no snapshot of " + task + ": " + taken.statusCode()
                    + " " + taken.body());
        }
        if (security.secret() != null && !security.signed(proof, taken.body(),
                taken.headers().firstValue(SnapshotServer.SIGNATURE_HEADER).orElse(null))) {
            throw new IOException("the snapshot of " + task + " node " + peer.node() + " sent cannot be verified "
                    + "(its manifest is not signed with this cluster's secret): refused");
        }
        int newline = taken.body().indexOf('\n');
        String id = taken.body().substring(0, newline);
        SnapshotManifest manifest = SnapshotManifest.decode(taken.body().substring(newline + 1));
        progress.from(peer.node(), manifest.bytes());
        try {
            Files.createDirectories(staging);
            Set<Path> wanted = new HashSet<>();
            for (SnapshotManifest.Entry e : manifest.files()) {
                Path file = staging.resolve(e.path());
                wanted.add(file);
                fetchFile(peer, base + "/" + id + "/" + e.path(), e, file, local == null ? null : local.resolve(e.path()),
                        progress);
            }
            try (Stream<Path> all = Files.walk(staging)) {
                for (Path p : all.filter(Files::isRegularFile).toList()) {
                    if (!wanted.contains(p)) {
                        Files.delete(p);
                    }
                }
            }
            return manifest;
        } finally {
            try {
                client.send(request(peer, base + "/" + id, "DELETE").timeout(Duration.ofSeconds(5)).DELETE().build(),
                        HttpResponse.BodyHandlers.discarding());
            } catch (IOException e) {
                // the peer drops it when idle
            }
        }
    }

    private void fetchFile(Peer peer, String url, SnapshotManifest.Entry e, Path file, Path local,
            RecoveryProgress progress) throws IOException, InterruptedException {
        Files.createDirectories(file.getParent());
        if (Files.exists(file) && Files.size(file) == e.length() && SnapshotManifest.crc(file, e.length()) == e.crc()) {
            progress.reused(e.length());
            return;
        }
        if (!Files.exists(file) && local != null && Files.isRegularFile(local) && Files.size(local) == e.length()
                && SnapshotManifest.crc(local, e.length()) == e.crc()) {
            Files.createLink(file, local); // never written to: a match is complete
            progress.reused(e.length());
            return;
        }
        for (int attempt = 0; attempt < 2; attempt++) {
            long have = Files.exists(file) ? Files.size(file) : 0;
            if (have > e.length() || attempt > 0) {
                Files.deleteIfExists(file);
                have = 0;
            }
            if (have > 0) {
                progress.reused(have);
            }
            download(peer, url + "?from=" + have, file, have > 0, e.length() - have, progress);
            if (SnapshotManifest.crc(file, e.length()) == e.crc() && Files.size(file) == e.length()) {
                return;
            }
        }
        throw new IOException("file " + e.path() + " from node " + peer.node() + " does not match its checksum");
    }

    private void download(Peer peer, String url, Path file, boolean append, long expected, RecoveryProgress progress)
            throws IOException, InterruptedException {
        HttpResponse<InputStream> r = client.send(request(peer, url, "GET").GET().build(),
                HttpResponse.BodyHandlers.ofInputStream());
        try (InputStream in = r.body()) {
            if (r.statusCode() != 200) {
                throw new IOException("node " + peer.node() + " answered " + r.statusCode() + " for " + url + ": "
                        + new String(in.readNBytes(300), StandardCharsets.UTF_8));
            }
            try (OutputStream out = Files.newOutputStream(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                    append ? StandardOpenOption.APPEND : StandardOpenOption.TRUNCATE_EXISTING)) {
                byte[] buffer = new byte[64 << 10];
                long left = expected;
                int n;
                while (left > 0 && (n = in.read(buffer, 0, (int) Math.min(buffer.length, left))) > 0) {
                    out.write(buffer, 0, n);
                    left -= n;
                    progress.received(n);
                }
            }
        }
    }

    /** A request to a peer with its proof: the cluster secret's when there is one, else the peer's token. */
    private HttpRequest.Builder request(Peer peer, String url, String method) {
        URI uri = URI.create(url);
        HttpRequest.Builder b = HttpRequest.newBuilder(uri);
        return security.secret() != null ? b.header(SnapshotServer.PROOF_HEADER, security.authorize(method,
                SnapshotServer.target(uri), System.currentTimeMillis())) : b.header(SnapshotServer.TOKEN_HEADER,
                peer.token());
    }
}
