package io.coilgun.server.boot;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code coilgun status}: the node's status page in the terminal, read from its HTTP listener's
 * {@code /status.json}: the node, the cluster's nodes, streams, metrics (with a progress bar while one is filled from
 * history), tasks with their lag, and the node's recent errors. {@code --wait} redraws every second until every task
 * of the node has caught up (start-up replay) and no metric is backfilling, with progress bars.
 */
@Command(name = "status", mixinStandardHelpOptions = true,
        description = "Show a node's status: nodes, streams, metrics, tasks, lag, rates, recent errors.")
final class StatusCommand implements Callable<Integer> {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Option(names = "--host", defaultValue = "127.0.0.1", description = "The node's host (default ${DEFAULT-VALUE}).")
    String host;

    @Option(names = {"-p", "--port"}, defaultValue = "5433",
            description = "The node's pgwire port (default ${DEFAULT-VALUE}); its HTTP port is this + 1000.")
    int port;

    @Option(names = "--http-port", description = "The node's HTTP port, when not the pgwire port + 1000.")
    Integer httpPort;

    @Option(names = {"-U", "--user"}, description = "User, when the node asks for passwords (password from "
            + "PGPASSWORD).")
    String user;

    @Option(names = "--tls-ca", description = "The node serves HTTPS (it has --tls-cert): trust this PEM certificate "
            + "(its own, or the CA that signed it) besides the JDK's CAs.")
    Path tlsCa;

    @Option(names = "--wait", description = "Redraw every second until the node is ready and no metric is "
            + "backfilling (at most --timeout seconds).")
    boolean await;

    @Option(names = "--timeout", defaultValue = "3600", description = "Seconds --wait waits at most "
            + "(default ${DEFAULT-VALUE}).")
    long timeoutSeconds;

    private PrintStream out = System.out;
    /** Each backfilling metric's largest event total seen by this command (--wait). */
    private final Map<String, Long> fillTotals = new HashMap<>();

    /** For tests: print to {@code to}. */
    StatusCommand printingTo(PrintStream to) {
        this.out = to;
        return this;
    }

    @Override
    public Integer call() throws Exception {
        URI uri = URI.create((tlsCa != null ? "https" : "http") + "://" + host + ":"
                + (httpPort != null ? httpPort : port + 1000) + "/status.json");
        HttpClient.Builder builder = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5));
        if (tlsCa != null) {
            try {
                builder.sslContext(io.coilgun.server.config.TrustedCertificates.trusting(tlsCa));
            } catch (IOException | java.security.GeneralSecurityException e) {
                System.err.println("coilgun status: cannot use --tls-ca " + tlsCa + ": " + e);
                return 2;
            }
        }
        HttpClient client = builder.build();
        long deadline = System.currentTimeMillis() + timeoutSeconds * 1000;
        JsonNode previous = null;
        while (true) {
            JsonNode s;
            try {
                s = fetch(client, uri);
            } catch (IOException e) {
                System.err.println("coilgun status: cannot reach " + uri + " (" + e.getMessage() + "); is the node "
                        + "running, with its HTTP listener on that port (HTTPS when it has --tls-cert: give --tls-ca)?");
                return 1;
            } catch (IllegalStateException e) {
                System.err.println("coilgun status: " + e.getMessage());
                return 1;
            }
            if (await && previous != null) {
                out.print("\033[H\033[2J"); // redraw in place
            }
            print(s, previous);
            out.flush();
            boolean done = s.path("node").path("ready").asBoolean() && !backfilling(s);
            if (!await || done) {
                return 0;
            }
            if (System.currentTimeMillis() > deadline) {
                System.err.println("coilgun status: still not ready after " + timeoutSeconds + " s");
                return 3;
            }
            previous = s;
            Thread.sleep(1000);
        }
    }

    private JsonNode fetch(HttpClient client, URI uri) throws IOException, InterruptedException {
        HttpRequest.Builder req = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10));
        if (user != null) {
            String password = System.getenv().getOrDefault("PGPASSWORD", "");
            req.header("Authorization", "Basic " + Base64.getEncoder().encodeToString(
                    (user + ":" + password).getBytes(StandardCharsets.UTF_8)));
        }
        HttpResponse<String> r = client.send(req.build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() == 401) {
            throw new IllegalStateException("the node asks for a login: give --user (and PGPASSWORD)");
        }
        if (r.statusCode() != 200) {
            throw new IllegalStateException(uri + " answered HTTP " + r.statusCode() + ": " + r.body().trim());
        }
        return JSON.readTree(r.body());
    }

    private static boolean backfilling(JsonNode s) {
        for (JsonNode m : s.path("metrics")) {
            if ("backfilling".equals(m.path("state").asText())) {
                return true;
            }
        }
        return false;
    }

    /** The report as text; {@code previous} (a second earlier, or null) gives the rate. */
    void print(JsonNode s, JsonNode previous) {
        JsonNode node = s.path("node");
        JsonNode t = s.path("totals");
        String rate = "";
        if (previous != null) {
            double dt = (s.path("time_ms").asLong() - previous.path("time_ms").asLong()) / 1000.0;
            long n = t.path("events").asLong() - previous.path("totals").path("events").asLong();
            rate = dt > 0 ? String.format(Locale.ROOT, "  %.0f events/s", Math.max(0, n) / dt) : "";
        }
        out.printf(Locale.ROOT, "node %s  pgwire %s  up %d s  %s  events %,d%s  latency p99 %.1f ms, p99.9 %.1f ms "
                + "(last minute)%n", node.path("id").asText(), node.path("pgwire").asText(),
                node.path("uptime_s").asLong(), node.path("ready").asBoolean() ? "READY" : "CATCHING UP",
                t.path("events").asLong(), rate, t.path("latency_p99_ms").asDouble(),
                t.path("latency_p999_ms").asDouble());
        out.println();
        out.println("nodes (" + s.path("nodes").size() + "):");
        for (JsonNode n : s.path("nodes")) {
            out.printf("  %-12s %-22s units %s  %s%n", n.path("node_id").asText(), n.path("pgwire").asText(),
                    n.path("processor_units").asText(), n.path("version").asText());
        }
        out.println("streams (" + s.path("streams").size() + "):");
        for (JsonNode st : s.path("streams")) {
            out.printf("  %-20s partitions %d  replicas %d  partition by %s  metrics %d%n", st.path("name").asText(),
                    st.path("partitions").asInt(), st.path("replicas").asInt(), st.path("partition_by").asText(),
                    st.path("metrics").asInt());
        }
        out.println("metrics (" + s.path("metrics").size() + "):");
        for (JsonNode m : s.path("metrics")) {
            String state = m.path("state").asText();
            String progress = "";
            if ("backfilling".equals(state)) {
                // coilgun.metrics sums the tasks still filling; one that went live drops out of both figures. Over
                // the whole fill (the largest total seen) what is left only shrinks: the bar never goes back.
                long total = fillTotals.merge(m.path("name").asText(), m.path("backfill_events").asLong(), Math::max);
                long done = total - (m.path("backfill_events").asLong() - m.path("backfilled_events").asLong());
                progress = "  " + ProgressBar.of(done, total)
                        + String.format(Locale.ROOT, " %,d / %,d events", done, total)
                        + (m.path("backfill_eta_s").isNumber() ? ", ETA " + m.path("backfill_eta_s").asLong() + " s"
                        : "");
            }
            out.printf("  %-20s %-16s %-12s%s%n", m.path("name").asText(), m.path("stream").asText(), state,
                    progress);
        }
        JsonNode tasks = s.path("tasks");
        long running = 0;
        long lagging = 0;
        for (JsonNode task : tasks) {
            running += "running".equals(task.path("state").asText()) ? 1 : 0;
        }
        JsonNode local = s.path("local_tasks");
        long caughtUp = 0;
        for (JsonNode task : local) {
            long lag = task.path("lagEvents").asLong();
            if (lag >= 0 && lag <= 1000) {
                caughtUp++;
            } else {
                lagging++;
            }
        }
        out.printf("tasks (%d in the cluster, %d running); on this node %d, caught up %s%n", tasks.size(), running,
                local.size(), ProgressBar.of(caughtUp, local.size()) + " " + caughtUp + " / " + local.size());
        out.printf("  %-34s %-10s %-8s %-8s %-9s %10s %8s%n", "task", "node", "unit", "role", "state", "lag_events",
                "lag_ms");
        for (JsonNode task : local) {
            out.printf(Locale.ROOT, "  %-34s %-10s %-8s %-8s %-9s %10d %8d%n", task.path("task").asText(),
                    node.path("id").asText(), task.path("unit").asText(), task.path("role").asText(),
                    task.path("state").asText(), task.path("lagEvents").asLong(), task.path("lagMs").asLong());
        }
        for (JsonNode task : tasks) {
            if (!node.path("id").asText().equals(task.path("node").asText())) {
                out.printf(Locale.ROOT, "  %-34s %-10s %-8s %-8s %-9s %10s %8s%n", task.path("task").asText(),
                        task.path("node").asText(), task.path("processor_unit").asText(), "active",
                        task.path("state").asText(), task.path("lag_events").asText(""),
                        task.path("lag_ms").asText(""));
            }
        }
        JsonNode errors = s.path("errors");
        out.println("recent warnings and errors (" + errors.size() + "):");
        int shown = 0;
        for (JsonNode e : errors) {
            if (shown++ == 5) {
                out.println("  … (the status page shows the last 50)");
                break;
            }
            out.printf("  %s %-5s %s %s%n", e.path("at").asText(), e.path("level").asText(), e.path("logger").asText(),
                    e.path("message").asText());
        }
    }
}
