package io.coilgun.server.observe;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import io.coilgun.cluster.unit.TaskSample;
import io.coilgun.pgwire.auth.Authentication;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import javax.net.ssl.SSLContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node's HTTP listener for operators: {@code /metrics} (Prometheus text format), {@code /} (the status page),
 * {@code /status.json} (what the page and {@code coilgun status} read), {@code /health} (the process answers) and
 * {@code /ready} (every task the node holds is caught up). Two threads of its own: nothing here runs on a processor
 * unit or a pgwire thread. When pgwire asks for passwords, so does this, with HTTP Basic over the same users.
 */
public final class HttpEndpoint implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(HttpEndpoint.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    /** What the endpoint serves from: the node's meters, a fresh sample of its tasks, and its status report. */
    public interface Source {
        /** Samples the node's tasks now (on their units), updating the task meters. */
        List<TaskSample> sample();

        NodeMeters meters();

        NodeStatusReport report();

        /** Whether the node has started (pgwire listening, catalog recovered). */
        boolean started();
    }

    private final HttpServer server;
    private final ExecutorService threads;
    private final Source source;
    private final Authentication auth;
    /** Credentials already checked (SHA-256 of the Authorization header): SCRAM's key derivation is slow. */
    private final Set<String> accepted = ConcurrentHashMap.newKeySet();

    private HttpEndpoint(HttpServer server, ExecutorService threads, Source source, Authentication auth) {
        this.server = server;
        this.threads = threads;
        this.source = source;
        this.auth = auth;
    }

    /** Starts listening on {@code host:port} (0: any free port). */
    public static HttpEndpoint start(String host, int port, Source source, Authentication auth) throws IOException {
        return start(host, port, source, auth, null);
    }

    /** Starts listening on {@code host:port}: HTTPS with {@code tls} (the node's certificate), else HTTP. */
    public static HttpEndpoint start(String host, int port, Source source, Authentication auth, SSLContext tls)
            throws IOException {
        InetSocketAddress address = new InetSocketAddress(InetAddress.getByName(host), port);
        HttpServer server;
        if (tls == null) {
            server = HttpServer.create(address, 64);
        } else {
            HttpsServer https = HttpsServer.create(address, 64);
            https.setHttpsConfigurator(new HttpsConfigurator(tls));
            server = https;
        }
        ExecutorService threads = Executors.newFixedThreadPool(2, r -> {
            Thread t = new Thread(r, "coilgun-http");
            t.setDaemon(true);
            return t;
        });
        server.setExecutor(threads);
        HttpEndpoint endpoint = new HttpEndpoint(server, threads, source, auth);
        server.createContext("/", endpoint::handle);
        server.start();
        return endpoint;
    }

    public int port() {
        return server.getAddress().getPort();
    }

    private void handle(HttpExchange ex) throws IOException {
        try (ex) {
            if (!"GET".equals(ex.getRequestMethod()) && !"HEAD".equals(ex.getRequestMethod())) {
                send(ex, 405, "text/plain", "only GET\n");
                return;
            }
            String path = ex.getRequestURI().getPath();
            if (path.equals("/health")) {
                send(ex, 200, "text/plain", "ok\n"); // liveness: no login, no task reads
                return;
            }
            if (!authorized(ex)) {
                ex.getResponseHeaders().add("WWW-Authenticate", "Basic realm=\"coilgun\", charset=\"UTF-8\"");
                send(ex, 401, "text/plain", "login with a Coilgun user\n");
                return;
            }
            switch (path) {
                case "/metrics" -> {
                    source.sample();
                    send(ex, 200, "text/plain; version=0.0.4; charset=utf-8", source.meters().scrape());
                }
                case "/ready" -> {
                    boolean ready = source.started() && NodeStatusReport.ready(source.sample());
                    send(ex, ready ? 200 : 503, "text/plain", ready ? "ready\n" : "not ready: tasks catching up\n");
                }
                case "/status.json" -> {
                    Map<String, Object> report = source.report().build(source.sample());
                    if ("html=1".equals(ex.getRequestURI().getQuery())) {
                        report.put("tables_html", StatusPage.tables(report)); // the page's tables, rendered here
                    }
                    send(ex, 200, "application/json", JSON.writeValueAsString(report));
                }
                case "/", "/index.html" -> send(ex, 200, "text/html; charset=utf-8",
                        StatusPage.render(source.report().build(source.sample())));
                default -> send(ex, 404, "text/plain", "no such page; try /, /metrics, /status.json, /health or /ready\n");
            }
        } catch (RuntimeException e) {
            LOG.warn("http request={} failed", ex.getRequestURI(), e);
            try {
                send(ex, 500, "text/plain", "error: " + e + "\n");
            } catch (IOException | RuntimeException ignored) {
                // the response had begun
            }
        }
    }

    private boolean authorized(HttpExchange ex) {
        if (auth == null || auth.method() == Authentication.Method.TRUST) {
            return true;
        }
        String header = ex.getRequestHeaders().getFirst("Authorization");
        if (header == null || !header.regionMatches(true, 0, "Basic ", 0, 6)) {
            return false;
        }
        String digest = sha256(header);
        if (accepted.contains(digest)) {
            return true;
        }
        String pair;
        try {
            pair = new String(Base64.getDecoder().decode(header.substring(6).trim()), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            return false;
        }
        int colon = pair.indexOf(':');
        if (colon < 0) {
            return false;
        }
        boolean ok = auth.checkPassword(pair.substring(0, colon), pair.substring(colon + 1));
        if (ok && accepted.size() < 1_000) {
            accepted.add(digest);
        }
        return ok;
    }

    private static String sha256(String s) {
        try {
            return Base64.getEncoder().encodeToString(MessageDigest.getInstance("SHA-256")
                    .digest(s.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void send(HttpExchange ex, int status, String type, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", type);
        ex.getResponseHeaders().set("Cache-Control", "no-store");
        boolean head = "HEAD".equals(ex.getRequestMethod());
        ex.sendResponseHeaders(status, head ? -1 : bytes.length);
        if (!head) {
            try (OutputStream out = ex.getResponseBody()) {
                out.write(bytes);
            }
        }
    }

    /** The JSON of a status report (also for {@code coilgun status}'s tests). */
    public static String json(Map<String, Object> report) throws IOException {
        return JSON.writeValueAsString(report);
    }

    @Override
    public void close() {
        server.stop(0);
        threads.shutdownNow();
        try {
            threads.awaitTermination(2, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
