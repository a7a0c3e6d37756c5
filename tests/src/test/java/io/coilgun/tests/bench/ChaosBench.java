package io.coilgun.tests.bench;

import io.coilgun.tests.ClusterProcesses;
import io.coilgun.tests.PrivateNetwork;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * {@code scripts/bench chaos}: a 3-broker, 3-node cluster (each member in a network namespace of its own) at a steady
 * load while a schedule of faults runs, one every {@code --fault-every} seconds, in turn: a kill -9 of the node
 * leading the most tasks (started again {@code --restart-after} s later), a kill -9 of a broker (started again
 * after the same), a node frozen (SIGSTOP) for {@code --freeze} s, a node cut off from everyone (its link down) for
 * {@code --isolate} s. Clients retry an event on the next node until it is answered, as a careful client does. At the
 * end the oracle (every card's 30-day count against the events answered: lost, double counted), the latency per
 * second with the faults marked (latency-over-time.svg), and per fault the worst latency of the events sent in the
 * 10 s after it. The run fails ({@code verdict=fail}, and {@code scripts/bench} exits 3) when an event was lost,
 * counted twice or left unanswered; each is named ({@link ChaosVerdict}), on the output and in verdict.txt.
 */
final class ChaosBench {
    private static final String STREAM = "CREATE STREAM payments (id BIGINT, ts TIMESTAMP, card_id VARCHAR, "
            + "merchant_id VARCHAR, amount DOUBLE) WITH (event_time = 'ts', event_id = 'id', partition_by = 'card_id', "
            + "partitions = %d, replicas = 2, lateness = '1 minute')";
    private static final String[] FAULTS = {"kill-node", "kill-broker", "freeze-node", "isolate-node"};

    private final BenchOptions o;
    private final Path runDir;

    ChaosBench(BenchOptions o, Path runDir) {
        this.o = o;
        this.runDir = runDir;
    }

    /** A fault that happened: when, which, to whom. */
    private record Fault(long at, String kind, String target) {
    }

    Map<String, String> run(Function<Long, PaymentSource> source) throws Exception {
        if (!PrivateNetwork.available()) {
            throw new IllegalStateException("chaos needs network namespaces (root and iproute2) for its partitions");
        }
        int partitions = o.integer("partitions", 12);
        double rate = o.number("rate", 50);
        double warmup = o.number("warmup", 60);
        double duration = o.number("duration", 200);
        double faultEvery = o.number("fault-every", 25);
        double restartAfter = o.number("restart-after", 8);
        double freezeS = o.number("freeze", 3);
        double isolateS = o.number("isolate", 5);
        int connections = o.integer("connections", 12);
        int timeoutS = o.integer("timeout", 60);
        List<String> ids = List.of("n1", "n2", "n3");
        Map<String, String> result = new LinkedHashMap<>();
        System.out.println("chaos: starting 3 Kafka brokers and 3 nodes in namespaces of their own (logs in " + runDir
                + ")");
        try (PrivateNetwork net = new PrivateNetwork();
                ClusterProcesses c = new ClusterProcesses(runDir.resolve("data-chaos"), 3, true, net)) {
            for (String id : ids) {
                c.startNode(id);
            }
            try (Connection conn = ClusterBench.connect(c.host("n1"), c.port("n1"), 120);
                    Statement st = conn.createStatement()) {
                st.execute(String.format(Locale.ROOT, STREAM, partitions));
                st.execute(Workload.sumAvgCount("card_5m", "SLIDING INTERVAL '5' MINUTE"));
                st.execute("CREATE METRIC card_30d AS SELECT COUNT(*) AS n FROM payments GROUP BY card_id "
                        + "OVER SLIDING INTERVAL '30' DAY"); // the oracle's: every event of the run
            }
            ClusterBench.Stats stats = new ClusterBench.Stats(partitions, true);
            List<Sender> senders = new ArrayList<>();
            for (int i = 0; i < connections; i++) {
                senders.add(new ClusterBench.ClusterSender(c, ids, i % ids.size(), timeoutS, stats));
            }
            List<Fault> faults = Collections.synchronizedList(new ArrayList<>());
            long start = System.currentTimeMillis();
            Thread chaos = new Thread(() -> {
                try {
                    for (int k = 0; ; k++) {
                        long due = start + (long) ((warmup + (k + 1) * faultEvery) * 1000);
                        if (due > start + (long) ((warmup + duration - faultEvery / 2) * 1000)) {
                            return; // the last fault leaves time to recover before the run ends
                        }
                        Thread.sleep(Math.max(0, due - System.currentTimeMillis()));
                        inject(c, net, ids, FAULTS[k % FAULTS.length], k, faults, restartAfter, freezeS, isolateS);
                    }
                } catch (InterruptedException e) {
                    // the run ended first
                } catch (Exception e) {
                    System.out.println("chaos: a fault failed: " + e);
                }
            }, "bench-chaos");
            chaos.setDaemon(true);
            chaos.start();
            OpenLoop.Result r;
            try {
                r = OpenLoop.run("chaos", senders, source.apply(1L), rate, warmup, duration, timeoutS);
            } finally {
                senders.forEach(Sender::close);
            }
            chaos.interrupt();
            chaos.join(60_000);
            ClusterBench.phase(result, "run", r, (int) Math.ceil(warmup), r.seconds().size());
            List<Fault> happened = List.copyOf(faults);
            List<String> worst = new ArrayList<>();
            for (Fault f : happened) {
                int second = (int) ((f.at() - start) / 1000);
                double max = 0;
                for (int s = second; s < Math.min(second + 10, r.perSecond().size()); s++) {
                    double p999 = r.perSecond().get(s)[5];
                    max = Double.isNaN(p999) ? max : Math.max(max, p999); // NaN: a second with no answer
                }
                worst.add(f.kind() + ":" + f.target() + "=" + Math.round(max));
            }
            result.put("faults", String.valueOf(happened.size()));
            result.put("p999_ms_in_10s_after_each_fault", String.join(",", worst));
            String live = ids.stream().filter(c::alive).findFirst().orElseThrow();
            ChaosVerdict verdict = verdict(stats, r, c.host(live), c.port(live));
            result.put("accepted", String.valueOf(stats.total.sum()));
            result.put("lost", String.valueOf(verdict.lost()));
            result.put("double_counted", String.valueOf(verdict.doubleCounted()));
            result.put("client_errors", String.valueOf(stats.clientErrors.get()));
            result.put("unanswered", String.valueOf(verdict.unanswered()));
            result.put("rate", String.format(Locale.ROOT, "%.0f", rate));
            result.put("verdict", verdict.passed() ? "pass" : "fail");
            write(r, start, happened);
            for (String id : ids) {
                Files.copy(c.logFile(id), runDir.resolve("node-" + id + ".log"),
                        java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            }
        }
        return result;
    }

    /**
     * The oracle, event by event: every card's 30-day count read back from a live node, and for the cards whose count
     * is not the events answered (or with an unanswered event) the ids their stream holds. Prints each event that
     * fails the run, and writes them all to verdict.txt.
     */
    private ChaosVerdict verdict(ClusterBench.Stats stats, OpenLoop.Result r, String host, int port)
            throws Exception {
        Map<String, Long> counted = new java.util.HashMap<>();
        Map<String, List<Long>> stored = new java.util.HashMap<>();
        Map<Long, String> unanswered = new java.util.TreeMap<>();
        r.unanswered().forEach(p -> unanswered.put(p.id(), p.card()));
        try (Connection conn = ClusterBench.connect(host, port, 120); Statement st = conn.createStatement()) {
            try (var rs = st.executeQuery("SELECT card_id, n FROM card_30d")) {
                while (rs.next()) {
                    counted.put(rs.getString(1), rs.getLong(2));
                }
            }
            List<String> suspects = new ArrayList<>(ChaosVerdict.suspects(stats.answeredIds, counted, unanswered));
            try (var read = conn.prepareStatement("SELECT id FROM payments WHERE card_id = ?")) {
                for (String card : suspects.subList(0, Math.min(200, suspects.size()))) { // the others by count
                    List<Long> ids = new ArrayList<>();
                    read.setString(1, card);
                    try (var rs = read.executeQuery()) {
                        while (rs.next()) {
                            ids.add(rs.getLong(1));
                        }
                    }
                    stored.put(card, ids);
                }
            }
        }
        ChaosVerdict verdict = ChaosVerdict.judge(stats.answeredIds, counted, stored, unanswered);
        List<String> lines = verdict.findings().stream().map(Object::toString).toList();
        Files.write(runDir.resolve("verdict.txt"), lines);
        if (verdict.passed()) {
            System.out.println("chaos: verdict pass: nothing lost, nothing counted twice, every statement answered");
        } else {
            System.out.printf("chaos: verdict FAIL: %d lost, %d counted twice, %d unanswered%n", verdict.lost(),
                    verdict.doubleCounted(), verdict.unanswered());
            lines.stream().limit(50).forEach(l -> System.out.println("chaos:   " + l));
            if (lines.size() > 50) {
                System.out.println("chaos:   … " + (lines.size() - 50) + " more in " + runDir.resolve("verdict.txt"));
            }
        }
        return verdict;
    }

    private static void inject(ClusterProcesses c, PrivateNetwork net, List<String> ids, String kind, int k,
            List<Fault> faults, double restartAfter, double freezeS, double isolateS) throws Exception {
        String target;
        long at = System.currentTimeMillis();
        switch (kind) {
            case "kill-node" -> {
                Map<String, Set<Integer>> led = ClusterBench.leaders(c, ids);
                target = led.entrySet().stream().max((a, b) -> a.getValue().size() - b.getValue().size())
                        .orElseThrow().getKey();
                at = System.currentTimeMillis();
                c.kill(target);
                faults.add(new Fault(at, kind, target));
                System.out.printf("chaos: killed node %s%n", target);
                Thread.sleep((long) (restartAfter * 1000));
                c.startNode(target);
            }
            case "kill-broker" -> {
                int broker = 2 + (k / FAULTS.length) % 2; // broker 2 or 3: broker 1 is the one nodes bootstrap from
                target = "broker-" + broker;
                c.killBroker(broker);
                faults.add(new Fault(at, kind, target));
                System.out.printf("chaos: killed %s%n", target);
                Thread.sleep((long) (restartAfter * 1000));
                c.startBroker(broker);
            }
            case "freeze-node" -> {
                target = ids.get(k % ids.size());
                faults.add(new Fault(at, kind, target));
                System.out.printf("chaos: froze %s for %.0f s%n", target, freezeS);
                c.freeze(target, (long) (freezeS * 1000));
            }
            default -> {
                target = ids.get((k + 1) % ids.size());
                net.isolate(target);
                faults.add(new Fault(at, kind, target));
                System.out.printf("chaos: cut %s off for %.0f s%n", target, isolateS);
                Thread.sleep((long) (isolateS * 1000));
                net.reconnect(target);
            }
        }
    }

    private void write(OpenLoop.Result r, long start, List<Fault> faults) throws IOException {
        List<String> labels = new ArrayList<>();
        double[] p99 = new double[r.perSecond().size()];
        double[] p999 = new double[r.perSecond().size()];
        try (PrintWriter w = new PrintWriter(Files.newBufferedWriter(runDir.resolve("per-second.csv")))) {
            w.println("t_s,sent,answered,p50_ms,p99_ms,p999_ms,errors");
            for (int i = 0; i < r.perSecond().size(); i++) {
                double[] row = r.perSecond().get(i);
                w.printf(Locale.ROOT, "%.0f,%.0f,%.0f,%.3f,%.3f,%.3f,%.0f%n", row[0], row[1], row[2], row[3], row[4],
                        row[5], row[6]);
                labels.add(i % 10 == 0 ? String.format(Locale.ROOT, "%.0f", row[0]) : "");
                p99[i] = row[4];
                p999[i] = row[5];
            }
        }
        try (PrintWriter w = new PrintWriter(Files.newBufferedWriter(runDir.resolve("faults.csv")))) {
            w.println("t_s,fault,target");
            for (Fault f : faults) {
                w.printf(Locale.ROOT, "%.1f,%s,%s%n", (f.at() - start) / 1000.0, f.kind(), f.target());
            }
        }
        SvgChart chart = new SvgChart("chaos: latency per second, faults marked", "time (s)",
                "latency (ms, due to reply)", labels).series("p99", p99).series("p99.9", p999);
        for (Fault f : faults) {
            chart.marker((int) ((f.at() - start) / 1000), f.kind() + " " + f.target());
        }
        chart.write(runDir.resolve("latency-over-time.svg"));
    }
}
