package io.coilgun.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.coilgun.server.boot.Main;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.Base64;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The operator's view of a node under load (issue 19): {@code /metrics} in Prometheus' text format with the task,
 * latency, reservoir, RocksDB, JVM and pgwire series and bounded labels; {@code /health} and {@code /ready}; the
 * status page loaded in headless Chromium (Debian's package, installed when missing) with its JavaScript run, its
 * tables and sparklines checked and a screenshot kept in tests/target; {@code coilgun status}.
 */
@Tag("integration")
@Timeout(300)
class ObservabilityIT {
    static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @TempDir
    static Path dir;
    static TestNode node;
    static Thread load;
    static final AtomicBoolean loading = new AtomicBoolean(true);
    static final AtomicLong inserted = new AtomicLong();

    @BeforeAll
    static void start() throws Exception {
        node = new TestNode(dir.resolve("data"));
        try (Connection c = node.connect(); Statement s = c.createStatement()) {
            s.execute(WalkingSkeletonIT.CREATE_STREAM);
            s.execute(WalkingSkeletonIT.CREATE_METRIC);
        }
        // ~100 INSERTs/s over 20 cards until the tests end
        load = new Thread(() -> {
            try (Connection c = node.connect(); Statement s = c.createStatement()) {
                long id = 1;
                while (loading.get()) {
                    try (ResultSet rs = s.executeQuery("INSERT INTO payments VALUES (" + id + ", TIMESTAMP "
                            + "'2026-01-01 10:00:00' + INTERVAL '" + id + "' SECOND, 'c" + (id % 20) + "', 'm1', 1.5) "
                            + "RETURNING *")) {
                        rs.next();
                    }
                    id++;
                    inserted.incrementAndGet();
                    Thread.sleep(10);
                }
            } catch (Exception e) {
                if (loading.get()) {
                    e.printStackTrace();
                }
            }
        }, "observability-load");
        load.start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (inserted.get() < 200) {
            assertTrue(System.nanoTime() < deadline, "the load did not start");
            Thread.sleep(50);
        }
    }

    @AfterAll
    static void stop() throws InterruptedException {
        loading.set(false);
        if (load != null) {
            load.join(10_000);
        }
        if (node != null) {
            node.close();
        }
    }

    static String base() {
        return "http://127.0.0.1:" + node.httpPort();
    }

    /** GET {@code url}, with HTTP Basic {@code userPassword} ("user:password") unless null. */
    static HttpResponse<String> get(String url, String userPassword) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(20));
        if (userPassword != null) {
            b.header("Authorization", "Basic " + Base64.getEncoder().encodeToString(
                    userPassword.getBytes(StandardCharsets.UTF_8)));
        }
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** The sum of every sample of {@code metric} whose labels include all of {@code labels} (k="v" pairs). */
    static double sum(String text, String metric, String... labels) {
        double total = 0;
        boolean found = false;
        for (String line : text.split("\n")) {
            if (!line.startsWith(metric + "{") && !line.startsWith(metric + " ")) {
                continue;
            }
            boolean all = true;
            for (String l : labels) {
                all &= line.contains(l);
            }
            if (all) {
                found = true;
                total += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        assertTrue(found, "no sample of " + metric + " with " + String.join(",", labels) + " in:\n" + text);
        return total;
    }

    @Test
    void healthAndReady() throws Exception {
        HttpResponse<String> health = get(base() + "/health", null);
        assertEquals(200, health.statusCode());
        assertEquals("ok\n", health.body());
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        HttpResponse<String> ready;
        while ((ready = get(base() + "/ready", null)).statusCode() != 200) {
            assertTrue(System.nanoTime() < deadline, "never ready: " + ready.body());
            Thread.sleep(200);
        }
        assertEquals("ready\n", ready.body());
        assertEquals(404, get(base() + "/nothing", null).statusCode());
    }

    @Test
    void prometheusMetrics() throws Exception {
        System.gc(); // a collection at least, for the GC pause series (Micrometer registers them at the first)
        Thread.sleep(500);
        HttpResponse<String> r = get(base() + "/metrics", null);
        assertEquals(200, r.statusCode());
        assertTrue(r.headers().firstValue("Content-Type").orElse("").startsWith("text/plain"));
        String m = r.body();
        String task0 = "task=\"coilgun.stream.payments.card_id-0\"";
        assertTrue(sum(m, "coilgun_task_events_total", "outcome=\"applied\"", "stream=\"payments\"") >= 200, m);
        assertTrue(sum(m, "coilgun_task_events_in_total", "node=\"node-1\"") >= 200);
        sum(m, "coilgun_task_events_total", "outcome=\"duplicate\"", task0);
        sum(m, "coilgun_task_events_total", "outcome=\"late\"", task0);
        sum(m, "coilgun_task_events_total", "outcome=\"failed\"", task0);
        assertTrue(sum(m, "coilgun_event_latency_seconds", "quantile=\"0.99\"") > 0);
        sum(m, "coilgun_event_latency_seconds", "quantile=\"0.999\"", task0);
        assertTrue(sum(m, "coilgun_event_processing_seconds_count") >= 200);
        sum(m, "coilgun_event_processing_seconds", "quantile=\"0.5\"");
        sum(m, "coilgun_task_lag_events", task0);
        sum(m, "coilgun_task_lag_seconds", task0);
        sum(m, "coilgun_reservoir_chunks", task0);
        sum(m, "coilgun_reservoir_open_bytes", task0);
        sum(m, "coilgun_chunk_cache_hits_total", task0);
        sum(m, "coilgun_chunk_cache_misses_total", task0);
        sum(m, "coilgun_chunk_loads_waited_total", task0);
        assertTrue(sum(m, "coilgun_rocksdb_block_cache_bytes") > 0);
        sum(m, "coilgun_rocksdb_memtables_bytes");
        assertTrue(sum(m, "coilgun_checkpoint_seconds_count") > 0);
        assertTrue(sum(m, "coilgun_pgwire_connections") >= 1);
        sum(m, "coilgun_replies_in_flight");
        assertTrue(sum(m, "coilgun_statements_seconds_count", "kind=\"insert\"", "outcome=\"ok\"") >= 200);
        sum(m, "coilgun_statements_seconds_count", "kind=\"ddl\"");
        sum(m, "jvm_gc_memory_allocated_bytes_total");
        sum(m, "jvm_memory_used_bytes", "area=\"heap\"");
        assertTrue(m.contains("# TYPE coilgun_event_latency_seconds summary"), m);
        // every series the Grafana dashboard in docs/ draws is served
        String dashboard = Files.readString(Path.of("..", "docs", "grafana-dashboard.json"));
        Matcher used = Pattern.compile("\\b((?:coilgun|jvm)_[a-z_]+)\\{").matcher(dashboard);
        int names = 0;
        while (used.find()) {
            names++;
            assertTrue(Pattern.compile("(?m)^" + used.group(1) + "[{ ]").matcher(m).find(),
                    "docs/grafana-dashboard.json uses " + used.group(1) + ", which /metrics does not serve");
        }
        assertTrue(names >= 20, "dashboard series: " + names);
        // labels stay bounded: the four tasks of the stream, no more
        Set<String> tasks = new TreeSet<>();
        Matcher t = Pattern.compile("task=\"([^\"]+)\"").matcher(m);
        while (t.find()) {
            tasks.add(t.group(1));
        }
        assertEquals(Set.of("coilgun.stream.payments.card_id-0", "coilgun.stream.payments.card_id-1",
                "coilgun.stream.payments.card_id-2", "coilgun.stream.payments.card_id-3"), tasks);
    }

    @Test
    void statusJsonAndCli() throws Exception {
        JsonNode s = new ObjectMapper().readTree(get(base() + "/status.json", null).body());
        assertEquals("node-1", s.path("node").path("id").asText());
        assertEquals(4, s.path("tasks").size());
        assertEquals("card_5m", s.path("metrics").get(0).path("name").asText());
        assertTrue(s.path("totals").path("events").asLong() >= 200);

        // its own stream, not System.out: the node of another test class may be logging there meanwhile
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        int code = Main.run(new PrintStream(bytes, true, StandardCharsets.UTF_8), "status", "--port",
                String.valueOf(node.port()), "--http-port", String.valueOf(node.httpPort()), "--wait", "--timeout",
                "60");
        String out = bytes.toString(StandardCharsets.UTF_8);
        assertEquals(0, code, out);
        assertTrue(out.startsWith("node node-1  pgwire 127.0.0.1:" + node.port()), out);
        assertTrue(out.contains("READY"), out);
        assertTrue(out.contains("payments") && out.contains("partitions 4"), out);
        assertTrue(out.contains("card_5m") && out.contains("running"), out);
        assertTrue(out.contains("coilgun.stream.payments.card_id-3"), out);
        assertTrue(out.contains("caught up [##############################] 100% 4 / 4"), out);
    }

    /** The page after its JavaScript ran for a few (virtual) seconds, as Chromium's DOM; a screenshot beside it. */
    @Test
    void statusPageInChromium() throws Exception {
        installChromium();
        String dom = chromium("--dump-dom", base() + "/");
        assertTrue(dom.contains("<b id=\"node-id\">node-1</b>"), dom);
        assertTrue(dom.contains("<span id=\"ready\" class=\"ok\">ready</span>"), dom);
        for (int p = 0; p < 4; p++) {
            assertTrue(dom.contains("<td>coilgun.stream.payments.card_id-" + p + "</td>"), dom);
        }
        assertTrue(dom.contains("<td>card_5m</td>"), dom);
        // the script fetched /status.json several times: sparklines drawn, a rate shown
        Matcher points = Pattern.compile("id=\"rate-line\"[^>]*data-points=\"(\\d+)\"|data-points=\"(\\d+)\"[^>]*"
                + "id=\"rate-line\"").matcher(dom);
        assertTrue(points.find(), dom);
        int n = Integer.parseInt(points.group(1) != null ? points.group(1) : points.group(2));
        assertTrue(n >= 2, "sparkline points: " + n);
        assertTrue(dom.contains("<polyline"), dom);
        Matcher rate = Pattern.compile("<b id=\"rate\">(\\d+)</b>").matcher(dom);
        assertTrue(rate.find(), dom);
        assertTrue(dom.contains("updated 20"), dom);

        Path shot = Path.of("target", "status-page.png").toAbsolutePath();
        Files.createDirectories(shot.getParent());
        Files.deleteIfExists(shot);
        chromium("--screenshot=" + shot, "--window-size=1280,1000", base() + "/");
        assertTrue(Files.size(shot) > 10_000, "screenshot " + shot);
    }

    /**
     * Debian's chromium, installed on first use as ClientConformanceIT installs PostgreSQL (as root, or with sudo):
     * CI's machine starts without it.
     */
    static void installChromium() throws Exception {
        if (Files.isExecutable(CHROMIUM)) {
            return;
        }
        String sudo = "0".equals(new String(new ProcessBuilder("id", "-u").start().getInputStream().readAllBytes(),
                StandardCharsets.UTF_8).trim()) ? "" : "sudo -n ";
        Process p = new ProcessBuilder("bash", "-c", "export DEBIAN_FRONTEND=noninteractive; " + sudo
                + "apt-get install -y -q chromium || (" + sudo + "apt-get update -q && " + sudo
                + "apt-get install -y -q chromium)").redirectErrorStream(true)
                .redirectOutput(dir.resolve("apt.log").toFile()).start();
        assertTrue(p.waitFor(15, TimeUnit.MINUTES), "apt-get install chromium did not end");
        assertTrue(Files.isExecutable(CHROMIUM), "the status page test needs Debian's chromium and could not install"
                + " it (run as root or with sudo): " + Files.readString(dir.resolve("apt.log")));
    }

    /** Runs headless Chromium with its JavaScript given 5 s of virtual time; its standard output. */
    static String chromium(String... args) throws Exception {
        Path profile = Files.createTempDirectory(dir, "chromium");
        java.util.List<String> cmd = new java.util.ArrayList<>(java.util.List.of(CHROMIUM.toString(), "--headless",
                "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking",
                "--disable-extensions", "--no-first-run", "--user-data-dir=" + profile,
                "--virtual-time-budget=5000"));
        cmd.addAll(java.util.List.of(args));
        Process p = new ProcessBuilder(cmd).redirectError(dir.resolve("chromium.err").toFile()).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(90, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            fail("chromium did not end: " + Files.readString(dir.resolve("chromium.err")));
        }
        assertEquals(0, p.exitValue(), Files.readString(dir.resolve("chromium.err")));
        return out;
    }
}
