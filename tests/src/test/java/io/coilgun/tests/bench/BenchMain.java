package io.coilgun.tests.bench;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The end-to-end scenarios of {@code scripts/bench} (paper section 5): a node in a child JVM with its embedded
 * broker, an open-loop injector ({@link OpenLoop}) through pgwire or straight to Kafka, and memory read from the
 * node after a full GC. Each scenario prints progress, writes CSV files and an SVG plot under
 * {@code bench-results/<scenario>-<time>/} and ends with one {@code RESULT scenario=... key=value ...} line.
 */
public final class BenchMain {
    private final BenchOptions o;
    private final Path root;
    private final Path runDir;
    private final String scenario;
    /** Whether a scenario's verdict failed the run ({@code verdict=fail}: chaos): the process then exits 3. */
    private boolean failed;

    private BenchMain(String scenario, BenchOptions o) throws IOException {
        this.scenario = scenario;
        this.o = o;
        this.root = Path.of(o.string("root", ".")).toAbsolutePath().normalize();
        this.runDir = root.resolve("bench-results").resolve(scenario + "-"
                + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
        Files.createDirectories(runDir);
    }

    public static void main(String[] args) throws Exception {
        if (args.length == 0) {
            throw new IllegalArgumentException("a scenario: e2e, max-rate, window-sizes, window-count, cluster, "
                    + "rebalance, chaos, backfill");
        }
        String[] rest = java.util.Arrays.copyOfRange(args, 1, args.length);
        BenchMain b = new BenchMain(args[0], new BenchOptions(rest));
        try {
            switch (args[0]) {
                case "e2e" -> b.e2e();
                case "max-rate" -> b.maxRate();
                case "window-sizes" -> b.windowSizes();
                case "window-count" -> b.windowCount();
                case "cluster" -> b.finish(new ClusterBench(b.o, b.runDir).run(b::liveSource));
                case "rebalance" -> b.finish(new RebalanceBench(b.o, b.runDir).run(b::liveSource));
                case "chaos" -> b.finish(new ChaosBench(b.o, b.runDir).run(b::liveSource));
                case "backfill" -> b.finish(new BackfillBench(b.o, b.runDir).run());
                case "source" -> b.finish(new SourceBench(b.o, b.runDir).run());
                default -> throw new IllegalArgumentException("unknown scenario " + args[0]);
            }
        } catch (IllegalArgumentException | IllegalStateException e) {
            System.out.println("RESULT scenario=" + args[0] + " error=\"" + e.getMessage().replace('"', '\'') + "\"");
            System.exit(1);
        }
        System.exit(b.failed ? 3 : 0);
    }

    private double rate() {
        return o.number("rate", 1000);
    }

    private PaymentGenerator generator(long firstId) {
        return new PaymentGenerator(o.integer("seed", 42), o.integer("cards", 1_000_000), o.integer("merchants", 100_000),
                o.number("out-of-order", 0), (long) (o.number("out-of-order-ms", 5000) * 1000), firstId);
    }

    private BenchNode startNode(String name) throws IOException, InterruptedException {
        Path data = runDir.resolve("data-" + name);
        System.out.println(scenario + ": starting a node (data in " + root.relativize(data) + ")");
        return BenchNode.start(root, data, o.string("server-heap", "2g"), o.string("server-opts", ""),
                o.string("server-args", ""), runDir.resolve("node-" + name + ".log"));
    }

    /**
     * Senders of the chosen transport: {@code --via pg} (default: prepared INSERTs, pgjdbc's defaults),
     * {@code --via pg-simple} (an INSERT text per event, simple query protocol) or {@code --via kafka}.
     */
    private List<Sender> senders(BenchNode node, int connections) throws Exception {
        int timeout = o.integer("timeout", 30);
        List<Sender> out = new ArrayList<>();
        if (o.string("via", "pg").equals("kafka")) {
            if (!o.string("partition-by", "card_id").equals("card_id")) {
                throw new IllegalArgumentException("--via kafka publishes to the stream partitioned by card_id only");
            }
            KafkaSender shared = new KafkaSender(node.kafkaBootstrap(), timeout);
            for (int i = 0; i < connections; i++) {
                out.add(i == 0 ? shared : new Sender() {
                    @Override
                    public void send(Payment p) throws Exception {
                        shared.send(p);
                    }

                    @Override
                    public void close() {
                    }
                });
            }
        } else {
            for (int i = 0; i < connections; i++) {
                out.add(new PgSender(node, timeout, o.string("via", "pg").equals("pg-simple"),
                        o.string("partition-by", "card_id").contains("device_id")));
            }
        }
        return out;
    }

    private OpenLoop.Result inject(String label, BenchNode node, PaymentSource source, double rate, int connections)
            throws Exception {
        List<Sender> senders = senders(node, connections);
        try {
            return OpenLoop.run(label, senders, source, rate, o.number("warmup", 10), o.number("duration", 30),
                    o.integer("timeout", 30));
        } finally {
            senders.forEach(Sender::close);
        }
    }

    private PaymentSource liveSource(long firstId) {
        if (o.has("csv")) {
            return new CsvPayments(Path.of(o.string("csv", "")), o.list("csv-columns",
                    "id,ts,card_id,merchant_id,amount"));
        }
        return PaymentSource.of(generator(firstId));
    }

    // ---- e2e

    private void e2e() throws Exception {
        double rate = rate();
        int connections = o.integer("connections", 16);
        Map<String, String> result = new LinkedHashMap<>();
        try (BenchNode node = startNode("e2e")) {
            Workload.define(node, Workload.metricSet(o.string("metrics", "ab")), o.string("partition-by", "card_id"));
            OpenLoop.Result r = inject("e2e", node, liveSource(1), rate, connections);
            result.put("rate", fmt0(r.achievedRate()));
            result.put("target_rate", fmt0(rate));
            latencyKeys(result, r);
            result.put("errors", String.valueOf(r.errors()));
            result.put("via", o.string("via", "pg"));
            result.put("partition_by", o.string("partition-by", "card_id").replace(" ", ""));
            result.put("connections", String.valueOf(connections));
            memory(result, node);
            if (o.has("hops")) {
                result.putAll(Hops.measure(node.kafkaBootstrap(), "payments", (long) (o.number("warmup", 10) * 1000)));
            }
            writeLatency(r, "e2e at " + fmt0(rate) + " events/s (" + o.string("via", "pg") + ", " + connections
                    + " connections)");
            if (r.firstError() != null) {
                System.out.println("e2e: first error: " + r.firstError());
            }
        }
        finish(result);
    }

    private static void latencyKeys(Map<String, String> result, OpenLoop.Result r) {
        result.put("p50_ms", OpenLoop.fmt(r.ms(50)));
        result.put("p90_ms", OpenLoop.fmt(r.ms(90)));
        result.put("p99_ms", OpenLoop.fmt(r.ms(99)));
        result.put("p999_ms", OpenLoop.fmt(r.ms(99.9)));
        result.put("p9999_ms", OpenLoop.fmt(r.ms(99.99)));
        result.put("max_ms", OpenLoop.fmt(r.maxMs()));
    }

    private void memory(Map<String, String> result, BenchNode node) {
        result.put("heap_mb", String.format(Locale.ROOT, "%.1f", node.heapAfterGcMb()));
        result.put("rss_mb", String.format(Locale.ROOT, "%.1f", node.rssMb()));
        result.put("pss_mb", String.format(Locale.ROOT, "%.1f", node.pssMb()));
        result.put("reservoir_mb", String.format(Locale.ROOT, "%.1f", node.reservoirMb()));
    }

    private static final double[] PERCENTILES = {50, 90, 99, 99.9, 99.99, 100};
    private static final List<String> PERCENTILE_LABELS = List.of("p50", "p90", "p99", "p99.9", "p99.99", "max");

    private void writeLatency(OpenLoop.Result r, String title) throws IOException {
        try (PrintWriter w = csv("latency.csv")) {
            w.println("percentile,latency_ms");
            for (double p : PERCENTILES) {
                w.printf(Locale.ROOT, "%s,%.3f%n", p, p == 100 ? r.maxMs() : r.ms(p));
            }
        }
        try (PrintWriter w = csv("per-second.csv")) {
            w.println("t_s,sent,answered,p50_ms,p99_ms,p999_ms,errors");
            for (double[] row : r.perSecond()) {
                w.printf(Locale.ROOT, "%.0f,%.0f,%.0f,%.3f,%.3f,%.3f,%.0f%n", row[0], row[1], row[2], row[3], row[4],
                        row[5], row[6]);
            }
        }
        double[] ys = new double[PERCENTILES.length];
        for (int i = 0; i < ys.length; i++) {
            ys[i] = PERCENTILES[i] == 100 ? r.maxMs() : r.ms(PERCENTILES[i]);
        }
        new SvgChart(title, "percentile", "latency (ms, send to reply)", PERCENTILE_LABELS).series("latency", ys)
                .limit(10).write(runDir.resolve("latency.svg"));
    }

    // ---- max-rate

    private void maxRate() throws Exception {
        double bound = o.number("bound-ms", 250);
        double rate = o.number("start-rate", 500);
        double step = o.number("step", 1.5);
        double ceiling = o.number("max", 100_000);
        int connections = o.integer("connections", 64);
        List<String> labels = new ArrayList<>();
        List<Double> p999 = new ArrayList<>();
        List<Double> p99 = new ArrayList<>();
        double best = 0;
        Map<String, String> result = new LinkedHashMap<>();
        try (BenchNode node = startNode("max-rate"); PrintWriter w = csv("steps.csv")) {
            Workload.define(node, Workload.metricSet(o.string("metrics", "ab")), o.string("partition-by", "card_id"));
            w.println("target_rate,achieved_rate,p50_ms,p99_ms,p999_ms,max_ms,errors,sustained");
            long nextId = 1;
            while (rate <= ceiling) {
                OpenLoop.Result r = inject("max-rate " + fmt0(rate) + "/s", node, liveSource(nextId), rate,
                        connections);
                nextId += (long) (rate * (o.number("warmup", 10) + o.number("duration", 30))) + 1;
                boolean ok = r.errors() == 0 && r.ms(99.9) <= bound && r.achievedRate() >= 0.95 * rate;
                w.printf(Locale.ROOT, "%.0f,%.0f,%.3f,%.3f,%.3f,%.3f,%d,%s%n", rate, r.achievedRate(), r.ms(50),
                        r.ms(99), r.ms(99.9), r.maxMs(), r.errors(), ok);
                w.flush();
                System.out.printf(Locale.ROOT, "max-rate: %.0f events/s -> achieved %.0f, p99.9 %s ms, errors %d: %s%n",
                        rate, r.achievedRate(), OpenLoop.fmt(r.ms(99.9)), r.errors(), ok ? "sustained" : "not sustained");
                labels.add(fmt0(rate));
                p999.add(r.ms(99.9));
                p99.add(r.ms(99));
                if (!ok) {
                    break;
                }
                best = rate;
                rate = Math.round(rate * step / 100.0) * 100.0;
            }
            result.put("max_rate", fmt0(best));
            result.put("bound_ms", fmt0(bound));
            result.put("partition_by", o.string("partition-by", "card_id").replace(" ", ""));
            result.put("connections", String.valueOf(connections));
            memory(result, node);
        }
        new SvgChart("max-rate: p99 and p99.9 per offered rate (bound " + fmt0(bound) + " ms)", "offered rate (events/s)",
                "latency (ms)", labels).series("p99", toArray(p99)).series("p99.9", toArray(p999)).limit(bound)
                .write(runDir.resolve("max-rate.svg"));
        finish(result);
    }

    // ---- window-sizes

    private void windowSizes() throws Exception {
        List<String> sizes = o.list("sizes", "5m,1h,1d,7d,365d");
        double rate = rate();
        int connections = o.integer("connections", 16);
        Map<String, String> result = new LinkedHashMap<>();
        Sweep sweep = new Sweep();
        try (PrintWriter w = csv("sizes.csv")) {
            w.println("size,p50_ms,p99_ms,p999_ms,max_ms,errors,heap_mb,rss_mb,reservoir_mb");
            for (String size : sizes) {
                try (BenchNode node = startNode(size)) {
                    Workload.define(node, List.of(Workload.sumAvgCount("w_" + size,
                            "SLIDING " + Workload.interval(size))));
                    PaymentGenerator gen = generator(1);
                    long now = System.currentTimeMillis() * 1000;
                    long w0 = Workload.micros(size);
                    long run = (long) ((o.number("warmup", 10) + o.number("duration", 30)) * 1e6);
                    long margin = 60_000_000L + run / 2; // the preload takes a while: the run starts later than now
                    Workload.preload(node, gen, now, Workload.micros("366d"), o.integer("history", 100_000),
                            w0 + margin, Math.max(1_000_000L, w0 - run - 2 * margin), rate, "window-sizes " + size);
                    OpenLoop.Result r = inject("window-sizes " + size, node, PaymentSource.of(gen), rate, connections);
                    double h = sweep.add(r, node);
                    w.printf(Locale.ROOT, "%s,%.3f,%.3f,%.3f,%.3f,%d,%.1f,%.1f,%.1f%n", size, r.ms(50), r.ms(99),
                            r.ms(99.9), r.maxMs(), r.errors(), h, sweep.lastRss, sweep.reservoir);
                    w.flush();
                    result.put("p999_ms_" + size, OpenLoop.fmt(r.ms(99.9)));
                    result.put("heap_mb_" + size, String.format(Locale.ROOT, "%.1f", h));
                    result.put("errors_" + size, String.valueOf(r.errors()));
                    System.out.printf(Locale.ROOT, "window-sizes %s: p99.9 %s ms, heap after GC %.1f MB%n", size,
                            OpenLoop.fmt(r.ms(99.9)), h);
                }
            }
        }
        sweep.memoryKeys(result);
        result.put("rate", fmt0(rate));
        new SvgChart("window-sizes at " + fmt0(rate) + " events/s: latency per window size", "sliding window",
                "latency (ms)", sizes).series("p99", toArray(sweep.p99)).series("p99.9", toArray(sweep.p999)).limit(10)
                .write(runDir.resolve("window-sizes-latency.svg"));
        new SvgChart("window-sizes: node heap after GC per window size", "sliding window", "heap (MB)", sizes)
                .series("heap after GC", toArray(sweep.heap)).write(runDir.resolve("window-sizes-heap.svg"));
        finish(result);
    }

    // ---- window-count

    private void windowCount() throws Exception {
        List<String> counts = o.list("counts", "10,40,80,120");
        double rate = rate();
        int connections = o.integer("connections", 16);
        Map<String, String> result = new LinkedHashMap<>();
        Sweep sweep = new Sweep();
        try (PrintWriter w = csv("counts.csv")) {
            w.println("windows,p50_ms,p99_ms,p999_ms,max_ms,errors,heap_mb,rss_mb,pss_mb");
            for (String count : counts) {
                int n = Integer.parseInt(count);
                try (BenchNode node = startNode("w" + n)) {
                    // misaligned: sizes from 30 s to 5 min, delays 0 to 30 s
                    List<String> metrics = new ArrayList<>();
                    long reach = 0;
                    for (int i = 0; i < n; i++) {
                        long size = 30 + (long) i * 270 / Math.max(1, n - 1);
                        long delay = (i * 7L) % 31;
                        reach = Math.max(reach, size + delay);
                        metrics.add("CREATE METRIC w" + i + " AS SELECT SUM(amount) AS total FROM payments GROUP BY "
                                + "card_id OVER SLIDING INTERVAL '" + size + "' SECOND"
                                + (delay > 0 ? " DELAYED BY INTERVAL '" + delay + "' SECOND" : ""));
                    }
                    Workload.define(node, metrics);
                    PaymentGenerator gen = generator(1);
                    long now = System.currentTimeMillis() * 1000;
                    Workload.preload(node, gen, now, (reach + 60) * 1_000_000L, 0, (reach + 60) * 1_000_000L,
                            1_000_000L, o.number("history-rate", rate / 4), "window-count " + n);
                    Workload.closeGap(node, gen, now - 1_000_000L, o.number("history-rate", rate / 4),
                            "window-count " + n);
                    OpenLoop.Result r = inject("window-count " + n, node, PaymentSource.of(gen), rate, connections);
                    double h = sweep.add(r, node);
                    w.printf(Locale.ROOT, "%d,%.3f,%.3f,%.3f,%.3f,%d,%.1f,%.1f,%.1f%n", n, r.ms(50), r.ms(99), r.ms(99.9),
                            r.maxMs(), r.errors(), h, sweep.lastRss, sweep.lastPss);
                    w.flush();
                    result.put("p999_ms_" + n, OpenLoop.fmt(r.ms(99.9)));
                    result.put("p99_ms_" + n, OpenLoop.fmt(r.ms(99)));
                    result.put("errors_" + n, String.valueOf(r.errors()));
                }
            }
        }
        sweep.memoryKeys(result);
        result.put("rate", fmt0(rate));
        new SvgChart("window-count at " + fmt0(rate) + " events/s: misaligned sliding windows", "windows",
                "latency (ms)", counts).series("p99", toArray(sweep.p99)).series("p99.9", toArray(sweep.p999)).limit(10)
                .write(runDir.resolve("window-count.svg"));
        finish(result);
    }

    /** The points of a sweep (window sizes, window counts): latency and memory of each run's node. */
    private static final class Sweep {
        final List<Double> p999 = new ArrayList<>();
        final List<Double> p99 = new ArrayList<>();
        final List<Double> heap = new ArrayList<>();
        double lastRss;
        double lastPss;
        double reservoir;

        /** Records a run and reads its node's memory; returns the heap after GC. */
        double add(OpenLoop.Result r, BenchNode node) {
            double h = node.heapAfterGcMb();
            lastRss = node.rssMb();
            lastPss = node.pssMb();
            reservoir = node.reservoirMb();
            p999.add(r.ms(99.9));
            p99.add(r.ms(99));
            heap.add(h);
            return h;
        }

        /** heap_mb (the largest of the runs), rss_mb and reservoir_mb (the last run's). */
        void memoryKeys(Map<String, String> result) {
            result.put("heap_mb", String.format(Locale.ROOT, "%.1f", heap.stream().mapToDouble(d -> d).max()
                    .orElse(-1)));
            result.put("rss_mb", String.format(Locale.ROOT, "%.1f", lastRss));
            result.put("pss_mb", String.format(Locale.ROOT, "%.1f", lastPss));
            result.put("reservoir_mb", String.format(Locale.ROOT, "%.1f", reservoir));
        }
    }

    // ---- output

    private PrintWriter csv(String name) throws IOException {
        return new PrintWriter(Files.newBufferedWriter(runDir.resolve(name), StandardCharsets.UTF_8));
    }

    private void finish(Map<String, String> result) throws IOException {
        failed |= "fail".equals(result.get("verdict"));
        if (!o.has("keep-data")) {
            try (var dirs = Files.list(runDir)) {
                for (Path d : dirs.filter(p -> p.getFileName().toString().startsWith("data-")).toList()) {
                    try (var s = Files.walk(d)) {
                        s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
                    }
                }
            }
        }
        StringBuilder line = new StringBuilder("RESULT scenario=" + scenario);
        result.forEach((k, v) -> line.append(' ').append(k).append('=').append(v));
        line.append(" out=").append(root.relativize(runDir));
        Files.writeString(runDir.resolve("result.txt"), line + "\n");
        System.out.println(line);
    }

    private static double[] toArray(List<Double> l) {
        return l.stream().mapToDouble(d -> d).toArray();
    }

    private static String fmt0(double v) {
        return String.format(Locale.ROOT, "%.0f", v);
    }
}
