package io.coilgun.tests.bench;

import io.coilgun.tests.ClusterProcesses;
import java.io.Writer;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.HdrHistogram.Histogram;
import org.postgresql.PGConnection;

/**
 * {@code scripts/bench backfill}: one node (its own process) and a broker. {@code --history} events (default 10
 * million) are loaded with COPY through the live path (Kafka, the tasks, a running metric): the live path's
 * events/s. Then, under an open-loop load of {@code --rate} INSERTs per second, a metric with the same SELECT is
 * created {@code WITH (backfill = 'all')}: the backfill's events/s and the live statements' latency before and
 * during it. {@code --fills N} does that N times on the same history (each metric checked, then dropped): the latency
 * reported during is the worst fill's. Then {@code COPY (REPLAY …) TO STDOUT} of the same SELECT: the replay's events/s. Both are checked
 * against the running metric: every card's values after the backfill, and every card's last replayed row (the
 * history is in time order and the window INFINITE, so that row is the card's current value).
 */
final class BackfillBench {
    private static final String SELECT = "SELECT SUM(amount) AS total, COUNT(*) AS n FROM payments GROUP BY card_id "
            + "OVER INFINITE";

    private final BenchOptions o;
    private final Path runDir;

    BackfillBench(BenchOptions o, Path runDir) {
        this.o = o;
        this.runDir = runDir;
    }

    Map<String, String> run() throws Exception {
        long history = o.integer("history", 10_000_000);
        int partitions = o.integer("partitions", 4);
        double rate = o.number("rate", 200);
        int cards = o.integer("cards", 100_000);
        // --span none: the same CREATE METRIC without a backfill, to tell what the backfill costs from what creating
        // a metric under load costs
        String span = o.string("span", "all");
        Map<String, String> result = new LinkedHashMap<>();
        Path dir = runDir.resolve("data-backfill");
        System.out.println("backfill: starting a Kafka broker and a node (logs in " + runDir + ")");
        try (ClusterProcesses c = new ClusterProcesses(dir, 1, true)) {
            // the node's heap as scripts/coilgun start gives it (2g), not the tests' 512m: with 512m the fill's
            // garbage kept G1 in back-to-back marking cycles on these 2 cores (docs/benchmarks.md)
            c.nodeJvm("-Xmx" + o.string("server-heap", "2g"));
            String serverOpts = o.string("server-opts", "").trim(); // e.g. GC options to try
            if (!serverOpts.isEmpty()) {
                c.nodeJvm(serverOpts.split("\\s+"));
            }
            c.startNode("n1");
            int port = c.port("n1");
            try (Connection conn = ClusterBench.connect(port, 3600); Statement st = conn.createStatement()) {
                st.execute(String.format(Locale.ROOT, "CREATE STREAM payments (id BIGINT, ts TIMESTAMP, card_id VARCHAR, "
                        + "merchant_id VARCHAR, amount DOUBLE) WITH (event_time = 'ts', event_id = 'id', "
                        + "partition_by = 'card_id', partitions = %d, lateness = '1 minute', "
                        + "backfill_horizon = '3650 days')", partitions));
                st.execute("CREATE METRIC card_total AS " + SELECT);

                long nodePid = c.pid("n1");
                List<Long> livePids = new java.util.ArrayList<>(c.brokerPids());
                livePids.add(nodePid);
                long t0 = System.nanoTime();
                double liveCpu0 = cpuSeconds(livePids);
                long endMicros = preload(conn, history, cards);
                awaitApplied(st, history);
                double loadS = (System.nanoTime() - t0) / 1e9;
                double liveCpu = cpuSeconds(livePids) - liveCpu0;
                double live = history / loadS;
                System.out.printf(Locale.ROOT, "backfill: live path: %d events applied in %.1f s: %.0f events/s, "
                        + "%.0f per CPU second of the node and the broker%n", history, loadS, live, history / liveCpu);
                result.put("history", String.valueOf(history));
                result.put("live_events_per_s", String.format(Locale.ROOT, "%.0f", live));
                result.put("live_events_per_cpu_s", String.format(Locale.ROOT, "%.0f", history / liveCpu));

                // the live load, and the backfills in its middle: --fills metrics, one after the other, each created
                // on the same history under the load, checked card by card and dropped before the next
                int fills = o.integer("fills", 1);
                // the load generator shares this JVM: the history's garbage is collected before it starts, and the
                // bench's reads of the metrics after each fill while it waits (a 53 ms G1 pause of this JVM, its
                // comparison maps promoted during the next fill, was measured as a slow INSERT)
                System.gc();
                Load load = new Load(port, rate, endMicros, cards, c.pid("n1"), runDir.resolve("slow-inserts.csv"));
                Thread loader = new Thread(load, "bench-load");
                loader.start();
                // the node's CPU under the live load alone is measured over the last 8 s before the first fill: the
                // seconds after the history was loaded also hold its after-effects (compactions, collections, the
                // INSERT path's compilation), which made the fills' own CPU come out negative on a slower machine
                int before = Math.max(10, o.integer("before", 20));
                Thread.sleep((before - 8) * 1000L);
                double base0 = cpuSeconds(List.of(nodePid));
                long baseT0 = System.nanoTime();
                Thread.sleep(8_000);
                // the node's CPU under the live load alone: what the fill's CPU is counted above
                double baseCores = (cpuSeconds(List.of(nodePid)) - base0) / ((System.nanoTime() - baseT0) / 1e9);
                Histogram worstFill = null;
                double backfillS = 0;
                double fillCpu = 0;
                long backfillMismatches = 0;
                List<String> perFill = new java.util.ArrayList<>();
                for (int f = 1; f <= fills; f++) {
                    String name = fills == 1 ? "filled" : "filled_" + f;
                    load.during(f);
                    long b0 = System.nanoTime();
                    double fillCpu0 = cpuSeconds(List.of(nodePid));
                    int fillFrom = load.second();
                    Thread histogram = f == 1 ? histogramLater(nodePid, o.number("histogram-at", 0)) : null;
                    st.execute("CREATE METRIC " + name + " AS " + SELECT
                            + (span.equals("none") ? "" : " WITH (backfill = '" + span + "')"));
                    awaitRunning(st, name, c, partitions, !span.equals("none"));
                    double s = (System.nanoTime() - b0) / 1e9;
                    if (histogram != null) {
                        histogram.join();
                    }
                    double cpu = cpuSeconds(List.of(nodePid)) - fillCpu0 - baseCores * s;
                    int fillTo = load.second();
                    load.after();
                    Histogram h = load.fill(f);
                    System.out.printf(Locale.ROOT, "backfill: fill %d of %d: %d events in %.1f s (%.0f events/s), live "
                            + "p99.9 %.1f ms, max %.1f ms%n", f, fills, history, s, history / s,
                            h.getValueAtPercentile(99.9) / 1e6, h.getMaxValue() / 1e6);
                    perFill.add(String.format(Locale.ROOT, "%.1f", h.getValueAtPercentile(99.9) / 1e6));
                    if (worstFill == null || h.getValueAtPercentile(99.9) > worstFill.getValueAtPercentile(99.9)) {
                        worstFill = h;
                        backfillS = s;
                        fillCpu = cpu;
                    }
                    load.markFill(fillFrom, fillTo);
                    Thread.sleep(10_000);
                    if (!span.equals("none")) {
                        // the load pauses while the two metrics are read: an INSERT between the two reads would count
                        // in one and not the other (and the bench's reads are not the node's live work)
                        load.pause();
                        backfillMismatches += mismatches(values(st, "card_total"), values(st, name));
                        System.gc(); // the bench's own garbage (those reads), collected while its load waits
                        load.resume();
                    }
                    if (f < fills) {
                        st.execute("DROP METRIC " + name);
                        Thread.sleep(5_000);
                    }
                }
                load.running = false;
                loader.join();
                load.writeTimeline(runDir);
                double backfill = history / backfillS;
                System.out.printf(Locale.ROOT, "backfill: %d events filled in %.1f s: %.0f events/s (the fill with the "
                        + "worst live p99.9)%n", history, backfillS, backfill);
                result.put("fills", String.valueOf(fills));
                result.put("backfill_s", String.format(Locale.ROOT, "%.1f", backfillS));
                result.put("backfill_events_per_s", String.format(Locale.ROOT, "%.0f", backfill));
                result.put("backfill_vs_live", String.format(Locale.ROOT, "%.1f", backfill / live));
                result.put("backfill_cpu_s", String.format(Locale.ROOT, "%.1f", fillCpu));
                result.put("backfill_events_per_cpu_s", String.format(Locale.ROOT, "%.0f", history / fillCpu));
                result.put("backfill_vs_live_per_core", String.format(Locale.ROOT, "%.1f", liveCpu / fillCpu));
                result.put("live_load_cores", String.format(Locale.ROOT, "%.2f", baseCores));
                String[] phases = {"before", "during", "after"};
                for (int p = 0; p < 3; p++) {
                    Histogram h = p == 1 ? worstFill : load.latency[p];
                    result.put(phases[p] + "_p99_ms", String.format(Locale.ROOT, "%.1f",
                            h.getValueAtPercentile(99) / 1e6));
                    result.put(phases[p] + "_p999_ms", String.format(Locale.ROOT, "%.1f",
                            h.getValueAtPercentile(99.9) / 1e6));
                    result.put(phases[p] + "_max_ms", String.format(Locale.ROOT, "%.1f", h.getMaxValue() / 1e6));
                }
                result.put("during_p999_ms_each", String.join(",", perFill));
                result.put("live_errors", String.valueOf(load.errors));
                result.put("backfill_mismatches", span.equals("none") ? "-" : String.valueOf(backfillMismatches));
                result.put("span", span);

                // the replay, read as a client would: COPY … TO STDOUT, each card's last row kept
                LastRows last = new LastRows();
                long r0 = System.nanoTime();
                double replayCpu0 = cpuSeconds(List.of(nodePid));
                long rows = conn.unwrap(PGConnection.class).getCopyAPI()
                        .copyOut("COPY (REPLAY " + SELECT + ") TO STDOUT", last);
                double replayS = (System.nanoTime() - r0) / 1e9;
                double replayCpu = cpuSeconds(List.of(nodePid)) - replayCpu0; // the unit's and pgwire's, not the client's
                double replay = rows / replayS;
                System.out.printf(Locale.ROOT, "backfill: REPLAY gave %d rows in %.1f s: %.0f events/s%n", rows,
                        replayS, replay);
                result.put("replay_rows", String.valueOf(rows));
                result.put("replay_events_per_s", String.format(Locale.ROOT, "%.0f", replay));
                result.put("replay_vs_live", String.format(Locale.ROOT, "%.1f", replay / live));
                result.put("replay_cpu_s", String.format(Locale.ROOT, "%.1f", replayCpu));
                result.put("replay_events_per_cpu_s", String.format(Locale.ROOT, "%.0f", rows / replayCpu));
                result.put("replay_vs_live_per_core", String.format(Locale.ROOT, "%.1f",
                        (rows / replayCpu) / (history / liveCpu)));
                result.put("replay_mismatches", String.valueOf(mismatches(values(st, "card_total"), last.cards)));
                result.put("rate", String.format(Locale.ROOT, "%.0f", rate));
                result.put("partitions", String.valueOf(partitions));
            }
            java.nio.file.Files.copy(dir.resolve("n1.log"), runDir.resolve("node-n1.log"),
                    java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        }
        return result;
    }

    /** Loads the history in time order (one event every 10 ms of event time, ending now); its end in micros. */
    private static long preload(Connection conn, long history, int cards) throws Exception {
        PaymentGenerator gen = new PaymentGenerator(7, cards, 10_000, 0, 0, 1);
        long step = 10_000;
        long end = System.currentTimeMillis() * 1000 - 120_000_000L;
        return RebalanceBench.copyHistory(conn, gen, end - history * step, step, history, "backfill", p -> { });
    }

    private static void awaitApplied(Statement st, long history) throws Exception {
        while (true) {
            try (ResultSet rs = st.executeQuery("SELECT SUM(n) FROM card_total")) {
                if (rs.next() && rs.getLong(1) >= history) {
                    return;
                }
            }
            Thread.sleep(500);
        }
    }

    /**
     * {@code --histogram-at S}: the node's live objects by class (jcmd GC.class_histogram, a full GC each) just before
     * the first fill and S seconds into it, and what grew most in between: what a fill keeps alive through the young
     * GCs of its first seconds. The full GCs pause the node: a run with it measures no latency.
     */
    private Thread histogramLater(long nodePid, double seconds) throws Exception {
        if (seconds <= 0) {
            return null;
        }
        Map<String, long[]> before = ClassHistogram.parse(BenchNode.jcmd(nodePid, "GC.class_histogram"));
        Thread t = new Thread(() -> {
            try {
                Thread.sleep((long) (seconds * 1000));
                String text = BenchNode.jcmd(nodePid, "GC.class_histogram");
                java.nio.file.Files.writeString(runDir.resolve("histogram-fill.txt"), text);
                System.out.print(ClassHistogram.grown(before, ClassHistogram.parse(text), 25));
            } catch (Exception e) {
                System.out.println("backfill: no class histogram: " + e);
            }
        }, "bench-histogram");
        t.start();
        return t;
    }

    /**
     * Waits until every task's fill of {@code metric} went live. The node's log says when each did (read from here,
     * it costs the node nothing); {@code coilgun.metrics} is asked for the progress every 5 s and for the state at the
     * end. A query is planned and compiled by Calcite twice (describe, execute): asked often, its CPU on the node would
     * be counted against the fill and the live statements.
     */
    private static void awaitRunning(Statement st, String metric, ClusterProcesses c, int tasks, boolean logged)
            throws Exception {
        long lastPrint = System.nanoTime();
        String line = "metric=" + metric + " backfilled";
        // the log is read from where the metric was created on, and only what is new each time: the bench's own
        // garbage (a whole log read 20 times a second) made its GC pause the live load it measures
        Path log = c.logFile("n1");
        long from = java.nio.file.Files.size(log);
        int seen = 0;
        String carry = "";
        while (true) {
            long size = java.nio.file.Files.size(log);
            if (logged && size > from) {
                try (java.nio.channels.SeekableByteChannel ch = java.nio.file.Files.newByteChannel(log)) {
                    java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate((int) (size - from));
                    ch.position(from);
                    while (b.hasRemaining() && ch.read(b) > 0) {
                        // reads what is there
                    }
                    from += b.position();
                    String text = carry + new String(b.array(), 0, b.position(), java.nio.charset.StandardCharsets.UTF_8);
                    int end = text.lastIndexOf('\n') + 1;
                    seen += text.substring(0, end).split(java.util.regex.Pattern.quote(line), -1).length - 1;
                    carry = text.substring(end);
                }
            }
            boolean done = !logged || seen >= tasks;
            boolean print = System.nanoTime() - lastPrint > 5_000_000_000L;
            if (done || print) {
                try (ResultSet rs = st.executeQuery("SELECT state, backfilled_events, backfill_events, "
                        + "backfill_eta_s FROM coilgun.metrics WHERE name = '" + metric + "'")) {
                    if (rs.next()) {
                        if (rs.getString(1).equals("running")) {
                            return;
                        }
                        if (print) {
                            lastPrint = System.nanoTime();
                            System.out.printf(Locale.ROOT, "backfill: %s %s of %s events, ETA %s s%n",
                                    rs.getString(1), rs.getObject(2), rs.getObject(3), rs.getObject(4));
                        }
                    }
                }
            }
            Thread.sleep(done ? 200 : 50);
        }
    }

    /** The user + system CPU time of processes {@code pids} so far, in seconds (-1 when /proc cannot tell). */
    static double cpuSeconds(List<Long> pids) {
        double sum = 0;
        for (long pid : pids) {
            try {
                String stat = java.nio.file.Files.readString(Path.of("/proc/" + pid + "/stat"));
                String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                sum += (Long.parseLong(f[11]) + Long.parseLong(f[12])) / 100.0; // utime, stime: fields 14, 15
            } catch (Exception e) {
                return -1;
            }
        }
        return sum;
    }

    /** Each card's total and count in {@code metric}. */
    private static Map<String, double[]> values(Statement st, String metric) throws SQLException {
        Map<String, double[]> out = new HashMap<>();
        try (ResultSet rs = st.executeQuery("SELECT card_id, total, n FROM " + metric)) {
            while (rs.next()) {
                out.put(rs.getString(1), new double[] {rs.getDouble(2), rs.getLong(3)});
            }
        }
        return out;
    }

    private static long mismatches(Map<String, double[]> expected, Map<String, double[]> actual) {
        long bad = 0;
        for (var e : expected.entrySet()) {
            double[] a = actual.get(e.getKey());
            if (a == null || a[1] != e.getValue()[1]
                    || Math.abs(a[0] - e.getValue()[0]) > 1e-9 * Math.max(1, Math.abs(e.getValue()[0]))) {
                bad++;
            }
        }
        return bad + Math.max(0, actual.size() - expected.size());
    }

    /** COPY text rows of the replay (id, ts, card_id, merchant_id, amount, total, n): each card's last. */
    private static final class LastRows extends Writer {
        final Map<String, double[]> cards = new HashMap<>();
        private final StringBuilder line = new StringBuilder();

        @Override
        public void write(char[] buf, int off, int len) {
            for (int i = off; i < off + len; i++) {
                char ch = buf[i];
                if (ch == '\n') {
                    String[] f = line.toString().split("\t");
                    cards.put(f[2], new double[] {Double.parseDouble(f[5]), Long.parseLong(f[6])});
                    line.setLength(0);
                } else {
                    line.append(ch);
                }
            }
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    }

    /**
     * INSERTs at a fixed rate on one connection, latency from each one's due time, per phase and per second (with the
     * node's CPU time in that second, from /proc: the timeline of docs/benchmarks.md's plot).
     */
    private static final class Load implements Runnable {
        /** Before the first fill, the fills together, after each fill. */
        final Histogram[] latency = {new Histogram(60_000_000_000L, 3), new Histogram(60_000_000_000L, 3),
            new Histogram(60_000_000_000L, 3)};
        /** Each fill's own (its number - 1). */
        private final java.util.List<Histogram> fills = new java.util.concurrent.CopyOnWriteArrayList<>();
        private final java.util.List<int[]> fillSeconds = new java.util.ArrayList<>();
        /** Every INSERT over 50 ms from its due time: when it was due (wall clock), its latency, the phase. */
        private final Path slowLog;
        private final StringBuilder slowLines = new StringBuilder("due,latency_ms,phase\n");
        private final java.util.List<Histogram> perSecond = new java.util.ArrayList<>();
        private final java.util.List<Double> nodeCpu = new java.util.ArrayList<>();
        private final long nodePid;
        private final long began = System.nanoTime();
        private volatile int phase;
        private volatile Histogram fill;
        volatile boolean running = true;
        long errors;
        private final int port;
        private final long periodNanos;
        private final int cards;
        private long timeMicros;
        private long id = 1L << 40;

        Load(int port, double rate, long fromMicros, int cards, long nodePid, Path slowLog) {
            this.nodePid = nodePid;
            this.slowLog = slowLog;
            this.port = port;
            this.periodNanos = (long) (1e9 / rate);
            this.timeMicros = fromMicros;
            this.cards = cards;
        }

        @Override
        public void run() {
            java.util.SplittableRandom rnd = new java.util.SplittableRandom(3);
            try (Connection conn = ClusterBench.connect(port, 60);
                    PreparedStatement ps = conn.prepareStatement(
                            "INSERT INTO payments VALUES (?, ?, ?, ?, ?) RETURNING *")) {
                long next = System.nanoTime();
                int slow = 0;
                while (running) {
                    if (paused) {
                        idle = true;
                        Thread.sleep(5);
                        next = System.nanoTime();
                        continue;
                    }
                    idle = false;
                    long due = next;
                    long sent = System.nanoTime();
                    timeMicros += 1000;
                    ps.setLong(1, ++id);
                    ps.setTimestamp(2, new Timestamp(timeMicros / 1000));
                    ps.setString(3, "card-" + rnd.nextInt(cards));
                    ps.setString(4, "m-" + rnd.nextInt(100));
                    ps.setDouble(5, rnd.nextInt(100_000) / 100.0);
                    try (ResultSet rs = ps.executeQuery()) {
                        rs.next();
                    } catch (SQLException e) {
                        errors++;
                    }
                    long took = Math.max(0, System.nanoTime() - due);
                    int ph = phase;
                    latency[ph].recordValue(took);
                    Histogram f = fill;
                    if (ph == 1 && f != null) {
                        f.recordValue(took);
                    }
                    if (took > 50_000_000L) {
                        slowLines.append(Instant.ofEpochMilli(System.currentTimeMillis() - (System.nanoTime() - due)
                                / 1_000_000L)).append(',').append(String.format(Locale.ROOT, "%.1f", took / 1e6))
                                .append(',').append(ph == 1 ? "fill-" + fills.size() : ph == 0 ? "before" : "after")
                                .append('\n');
                    }
                    int second = (int) ((due - began) / 1_000_000_000L);
                    while (perSecond.size() <= second) {
                        perSecond.add(new Histogram(60_000_000_000L, 3));
                        nodeCpu.add(cpuSeconds());
                    }
                    perSecond.get(second).recordValue(took);
                    long answered = System.nanoTime() - sent;
                    if (answered > 200_000_000L && slow++ < 10) {
                        System.out.printf(Locale.ROOT, "backfill: a live INSERT took %.0f ms (answered at %s)%n",
                                answered / 1e6, Instant.now());
                    }
                    next += periodNanos;
                    long sleep = next - System.nanoTime();
                    if (sleep > 0) {
                        Thread.sleep(sleep / 1_000_000, (int) (sleep % 1_000_000));
                    }
                }
            } catch (Exception e) {
                System.out.println("backfill: the live load stopped: " + e);
            }
        }

        private volatile boolean paused;
        private volatile boolean idle;

        /** Stops sending after the INSERT in flight, and waits for its answer. */
        void pause() throws InterruptedException {
            paused = true;
            while (!idle && running) {
                Thread.sleep(5);
            }
        }

        void resume() {
            idle = false;
            paused = false;
        }

        /** Fill {@code f} (from 1) begins: its INSERTs count as during it. */
        void during(int f) {
            Histogram h = new Histogram(60_000_000_000L, 3);
            fills.add(h);
            fill = h;
            phase = 1;
        }

        /** The fill went live: the INSERTs from now count as after a fill. */
        void after() {
            phase = 2;
        }

        Histogram fill(int f) {
            return fills.get(f - 1);
        }

        /** A fill to mark on the timeline: the seconds it began and went live. */
        void markFill(int from, int to) {
            fillSeconds.add(new int[] {from, to});
        }

        /** The second of the load now (from its start). */
        int second() {
            return (int) ((System.nanoTime() - began) / 1_000_000_000L);
        }

        private double cpuSeconds() {
            return BackfillBench.cpuSeconds(List.of(nodePid));
        }

        /** timeline.csv and live-latency.svg: each second's INSERTs (p99, max) and the node's CPU, the fill marked. */
        void writeTimeline(Path dir) throws java.io.IOException {
            java.nio.file.Files.writeString(slowLog, slowLines);
            int n = perSecond.size() - 1; // the last second is partial
            StringBuilder csv = new StringBuilder("second,inserts,p50_ms,p99_ms,max_ms,node_cpu_cores\n");
            double[] p99 = new double[n];
            double[] max = new double[n];
            double[] cpu = new double[n];
            java.util.List<String> labels = new java.util.ArrayList<>();
            for (int i = 0; i < n; i++) {
                Histogram h = perSecond.get(i);
                boolean any = h.getTotalCount() > 0;
                p99[i] = any ? h.getValueAtPercentile(99) / 1e6 : Double.NaN;
                max[i] = any ? h.getMaxValue() / 1e6 : Double.NaN;
                double a = nodeCpu.get(i);
                double b = nodeCpu.get(i + 1);
                cpu[i] = a < 0 || b < 0 ? Double.NaN : b - a;
                labels.add(i % 10 == 0 ? String.valueOf(i) : "");
                csv.append(String.format(Locale.ROOT, "%d,%d,%.2f,%.2f,%.2f,%.2f%n", i, h.getTotalCount(),
                        any ? h.getValueAtPercentile(50) / 1e6 : Double.NaN, p99[i], max[i], cpu[i]));
            }
            java.nio.file.Files.writeString(dir.resolve("timeline.csv"), csv);
            SvgChart latencyChart = new SvgChart("Live INSERT latency around a backfill", "second of the live load",
                    "latency from due time (ms)", labels).series("p99 of the second", p99)
                    .series("max of the second", max).limit(50);
            SvgChart cpuChart = new SvgChart("Node CPU around a backfill", "second of the live load",
                    "cores (user + system)", labels).series("node CPU", cpu).limit(2);
            for (int[] f : fillSeconds) {
                latencyChart.marker(f[0], "fill starts").marker(f[1], "fill live");
                cpuChart.marker(f[0], "fill starts").marker(f[1], "fill live");
            }
            latencyChart.write(dir.resolve("live-latency.svg"));
            cpuChart.write(dir.resolve("node-cpu.svg"));
        }
    }
}
