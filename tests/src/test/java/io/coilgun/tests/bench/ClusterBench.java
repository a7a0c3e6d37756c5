package io.coilgun.tests.bench;

import io.coilgun.cluster.ingest.EventPublisher;
import io.coilgun.planner.event.GroupKeys;
import io.coilgun.tests.ClusterProcesses;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import org.HdrHistogram.Histogram;

/**
 * {@code scripts/bench cluster}: a 3-broker KRaft Kafka and {@code --nodes} Coilgun nodes, each a process; the
 * open-loop injector spreads its connections over the nodes; at {@code --kill-at} seconds into the measured part the
 * node leading the most tasks is killed with SIGKILL. A statement that fails is retried on another node with the
 * same event id until it is answered (its latency counts the wait, from its due time). Reports throughput and
 * latency before, during (from the kill until every task answers again, plus 5 s) and after the failover, the
 * failover time (kill to the first answer of a task the dead node led), and the oracle: each card's count of
 * events over 30 days read back from the cluster against the events the injector saw accepted (lost, double).
 */
final class ClusterBench {
    private static final String STREAM = "CREATE STREAM payments (id BIGINT, ts TIMESTAMP, card_id VARCHAR, "
            + "merchant_id VARCHAR, amount DOUBLE) WITH (event_time = 'ts', event_id = 'id', partition_by = 'card_id', "
            + "partitions = %d, replicas = %d, lateness = '1 minute')";

    private final BenchOptions o;
    private final Path runDir;

    ClusterBench(BenchOptions o, Path runDir) {
        this.o = o;
        this.runDir = runDir;
    }

    /** Runs the scenario; the RESULT keys. */
    Map<String, String> run(Function<Long, PaymentSource> source) throws Exception {
        int nodes = o.integer("nodes", 3);
        int partitions = o.integer("partitions", 12);
        int replicas = o.integer("replicas", 2);
        double rate = o.number("rate", 500);
        double warmup = o.number("warmup", 10);
        double duration = o.number("duration", 60);
        double killAt = o.number("kill-at", 20);
        int killCount = o.integer("kills", 1);
        double killEvery = o.number("kill-every", 25);
        double restartAfter = o.number("restart-after", 8);
        int connections = o.integer("connections", 12);
        int timeoutS = o.integer("timeout", 60);
        Map<String, String> result = new java.util.LinkedHashMap<>();
        Path dir = runDir.resolve("data-cluster");
        List<String> ids = new ArrayList<>();
        for (int i = 1; i <= nodes; i++) {
            ids.add("n" + i);
        }
        System.out.println("cluster: starting 3 Kafka brokers and " + nodes + " nodes (logs in " + runDir + ")");
        try (ClusterProcesses c = new ClusterProcesses(dir, 3, true)) {
            for (String id : ids) {
                c.startNode(id);
            }
            try (Connection conn = connect(c.port(ids.get(0)), 120); Statement st = conn.createStatement()) {
                st.execute(String.format(Locale.ROOT, STREAM, partitions, replicas));
                st.execute(Workload.sumAvgCount("card_5m", "SLIDING INTERVAL '5' MINUTE"));
                st.execute("CREATE METRIC card_30d AS SELECT COUNT(*) AS n FROM payments GROUP BY card_id "
                        + "OVER SLIDING INTERVAL '30' DAY"); // the oracle's: every event of the run
            }
            Stats stats = new Stats(partitions);
            List<Sender> senders = new ArrayList<>();
            for (int i = 0; i < connections; i++) {
                senders.add(new ClusterSender(c, ids, i % nodes, timeoutS, stats));
            }
            // the kills, on their own thread at their times; the injector goes on meanwhile. Each victim is
            // started again --restart-after seconds after its kill, so that every kill finds every node up
            long[] killedAt = {0};
            String[] victim = {null};
            Set<Integer> victimPartitions = new HashSet<>();
            List<long[]> kills = java.util.Collections.synchronizedList(new ArrayList<>()); // time, then partitions
            long start = System.currentTimeMillis();
            Thread killer = new Thread(() -> {
                try {
                    for (int k = 0; k < killCount; k++) {
                        long due = start + (long) ((warmup + killAt + k * killEvery) * 1000) + 50;
                        Thread.sleep(Math.max(0, due - System.currentTimeMillis()));
                        Map<String, Set<Integer>> led = leaders(c, ids);
                        String v = led.entrySet().stream().max((a, b) -> a.getValue().size() - b.getValue().size())
                                .orElseThrow().getKey();
                        long at = System.currentTimeMillis();
                        c.kill(v);
                        long[] kill = new long[1 + led.get(v).size()];
                        kill[0] = at;
                        int i = 1;
                        for (int partition : led.get(v)) {
                            kill[i++] = partition;
                        }
                        kills.add(kill);
                        if (k == 0) {
                            victim[0] = v;
                            victimPartitions.addAll(led.get(v));
                            killedAt[0] = at;
                        }
                        System.out.printf("cluster: killed %s (it led %d of %d tasks)%n", v, led.get(v).size(),
                                partitions);
                        Thread.sleep((long) (restartAfter * 1000));
                        c.startNode(v);
                    }
                } catch (InterruptedException e) {
                    // the run ended first
                } catch (Exception e) {
                    System.out.println("cluster: a kill failed: " + e);
                }
            }, "bench-killer");
            killer.setDaemon(true);
            killer.start();
            OpenLoop.Result r;
            try {
                r = OpenLoop.run("cluster", senders, source.apply(1L), rate, warmup, duration, timeoutS);
            } finally {
                senders.forEach(Sender::close);
            }
            if (killedAt[0] == 0) {
                killer.interrupt(); // --kill-at beyond the run: no kill
            }
            killer.join(30_000);

            if (killedAt[0] == 0) { // the run ended before the kill: one phase
                phase(result, "run", r, (int) Math.ceil(warmup), r.seconds().size());
            }
            // failover: from the kill to the first answer of an event of a task the dead node led, sent after it
            long failoverMs = killedAt[0] == 0 ? -1
                    : stats.firstAnswerAfter(killedAt[0], victimPartitions) - killedAt[0];
            int killSecond = (int) Math.round((killedAt[0] - start) / 1000.0); // index into the per-second rows
            int recovered = killSecond + (int) Math.ceil(failoverMs / 1000.0) + 5;
            int measuredFrom = (int) Math.ceil(warmup);
            if (killedAt[0] != 0) {
                phase(result, "before", r, measuredFrom, killSecond);
                phase(result, "during", r, killSecond, recovered);
                phase(result, "after", r, recovered, r.seconds().size());
            }
            result.put("failover_ms", String.valueOf(failoverMs));
            // per kill: from it until every task the dead node led answered an event sent after it
            List<Long> everyTask = new ArrayList<>();
            synchronized (kills) {
                for (long[] kill : kills) {
                    long last = 0;
                    for (int i = 1; i < kill.length && last >= 0; i++) {
                        long answer = stats.firstAnswerAfter(kill[0], Set.of((int) kill[i])) - kill[0];
                        last = answer < 0 ? -1 : Math.max(last, answer); // -1: not answered before the run ended
                    }
                    everyTask.add(last);
                }
            }
            if (!everyTask.isEmpty()) {
                List<Long> sorted = everyTask.stream().filter(t -> t >= 0).sorted().toList();
                result.put("kills", String.valueOf(everyTask.size()));
                result.put("failover_every_task_ms", everyTask.stream().map(String::valueOf)
                        .collect(java.util.stream.Collectors.joining(",")));
                result.put("failover_every_task_p50_ms", sorted.isEmpty() ? "-"
                        : String.valueOf(sorted.get((sorted.size() - 1) / 2)));
                result.put("failover_every_task_max_ms", sorted.isEmpty() ? "-"
                        : String.valueOf(sorted.get(sorted.size() - 1)));
            }
            result.put("killed", victim[0] + "(" + victimPartitions.size() + "/" + partitions + "_tasks)");

            // the oracle: every card's 30-day count, read from a live node, against the events answered
            String live = ids.stream().filter(c::alive).findFirst().orElseThrow();
            oracle(result, stats, c.port(live), "SELECT card_id, n FROM card_30d");
            result.put("unanswered", String.valueOf(r.errors()));
            result.put("rate", String.format(Locale.ROOT, "%.0f", rate));
            result.put("nodes", String.valueOf(nodes));
            result.put("partitions", String.valueOf(partitions));
            result.put("replicas", String.valueOf(replicas));
            write(r, killSecond, victim[0]);
            // false failovers: a live unit the group went on without (its session expired), and the times a unit's
            // lease ran out while records for its active tasks came (it held them back)
            long sessionsLost = 0;
            long leaseLapses = 0;
            for (String id : ids) {
                Files.copy(dir.resolve(id + ".log"), runDir.resolve("node-" + id + ".log"),
                        java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                for (String line : Files.readAllLines(dir.resolve(id + ".log"))) {
                    sessionsLost += line.contains("the task group went on without it") ? 1 : 0;
                    leaseLapses += line.contains("no proof of its membership") ? 1 : 0;
                }
            }
            result.put("sessions_lost", String.valueOf(sessionsLost));
            result.put("lease_lapses", String.valueOf(leaseLapses));
        }
        return result;
    }

    /**
     * The oracle: every card's count read from the node at {@code port} ({@code sql}: card, count) against the
     * events the injector saw accepted; puts accepted, lost, double_counted and client_errors.
     */
    static void oracle(Map<String, String> result, Stats stats, int port, String sql) throws SQLException {
        oracle(result, stats, "127.0.0.1", port, sql);
    }

    static void oracle(Map<String, String> result, Stats stats, String host, int port, String sql)
            throws SQLException {
        Map<String, Long> counted = new HashMap<>();
        try (Connection conn = connect(host, port, 120); Statement st = conn.createStatement();
                ResultSet rs = st.executeQuery(sql)) {
            while (rs.next()) {
                counted.put(rs.getString(1), rs.getLong(2));
            }
        }
        long lost = 0;
        long twice = 0;
        Set<String> cards = new HashSet<>(counted.keySet());
        cards.addAll(stats.accepted.keySet());
        for (String card : cards) {
            long expected = stats.accepted.containsKey(card) ? stats.accepted.get(card).sum() : 0;
            long got = counted.getOrDefault(card, 0L);
            lost += Math.max(0, expected - got);
            twice += Math.max(0, got - expected);
        }
        result.put("accepted", String.valueOf(stats.total.sum()));
        result.put("lost", String.valueOf(lost));
        result.put("double_counted", String.valueOf(twice));
        result.put("client_errors", String.valueOf(stats.clientErrors.get()));
    }

    /** Throughput and latency of the seconds [from, to) of the run. */
    static void phase(Map<String, String> result, String name, OpenLoop.Result r, int from, int to) {
        Histogram h = new Histogram(3_600_000_000_000L, 3);
        long answered = 0;
        int n = 0;
        for (int s = Math.max(0, from); s < Math.min(to, r.seconds().size()); s++) {
            h.add(r.seconds().get(s));
            answered += (long) r.perSecond().get(s)[2];
            n++;
        }
        result.put(name + "_rate", n == 0 ? "-" : String.format(Locale.ROOT, "%.0f", answered / (double) n));
        for (double[] p : new double[][] {{50, 0}, {99, 0}, {99.9, 0}}) {
            String key = name + "_p" + (p[0] == 99.9 ? "999" : String.valueOf((int) p[0])) + "_ms";
            result.put(key, h.getTotalCount() == 0 ? "-" : OpenLoop.fmt(h.getValueAtPercentile(p[0]) / 1e6));
        }
        result.put(name + "_max_ms", h.getTotalCount() == 0 ? "-" : OpenLoop.fmt(h.getMaxValue() / 1e6));
    }

    private void write(OpenLoop.Result r, int killSecond, String victim) throws IOException {
        List<String> labels = new ArrayList<>();
        double[] p99 = new double[r.perSecond().size()];
        double[] p999 = new double[r.perSecond().size()];
        double[] answered = new double[r.perSecond().size()];
        try (PrintWriter w = new PrintWriter(Files.newBufferedWriter(runDir.resolve("per-second.csv")))) {
            w.println("t_s,sent,answered,p50_ms,p99_ms,p999_ms,errors");
            for (int i = 0; i < r.perSecond().size(); i++) {
                double[] row = r.perSecond().get(i);
                w.printf(Locale.ROOT, "%.0f,%.0f,%.0f,%.3f,%.3f,%.3f,%.0f%n", row[0], row[1], row[2], row[3], row[4],
                        row[5], row[6]);
                labels.add(i % 10 == 0 ? String.format(Locale.ROOT, "%.0f", row[0]) : "");
                p99[i] = row[4];
                p999[i] = row[5];
                answered[i] = row[2];
            }
        }
        new SvgChart("cluster: latency per second, kill -9 of " + victim, "time (s)", "latency (ms, due to reply)",
                labels).series("p99", p99).series("p99.9", p999).marker(killSecond, "kill -9 " + victim)
                .write(runDir.resolve("latency-over-time.svg"));
        new SvgChart("cluster: events answered per second", "time (s)", "events/s", labels)
                .series("answered", answered).marker(killSecond, "kill -9 " + victim)
                .write(runDir.resolve("throughput-over-time.svg"));
    }

    /** The partitions each live node leads, per coilgun.tasks. */
    static Map<String, Set<Integer>> leaders(ClusterProcesses c, List<String> ids) throws SQLException {
        String live = ids.stream().filter(c::alive).findFirst().orElseThrow();
        Map<String, Set<Integer>> led = new HashMap<>();
        try (Connection conn = connect(c.host(live), c.port(live), 30); Statement st = conn.createStatement();
                ResultSet rs = st.executeQuery("SELECT node, kafka_partition FROM coilgun.tasks "
                        + "WHERE stream_name = 'payments' AND node IS NOT NULL")) {
            while (rs.next()) {
                led.computeIfAbsent(rs.getString(1), k -> new HashSet<>()).add(rs.getInt(2));
            }
        }
        return led;
    }

    static Connection connect(int port, int timeoutS) throws SQLException {
        return connect("127.0.0.1", port, timeoutS);
    }

    static Connection connect(String host, int port, int timeoutS) throws SQLException {
        return DriverManager.getConnection("jdbc:postgresql://" + host + ":" + port + "/coilgun?user=bench"
                + "&connectTimeout=10&socketTimeout=" + timeoutS + "&tcpKeepAlive=true");
    }

    /** What the senders saw: accepted events per card, answers per partition, retryable errors. */
    static final class Stats {
        final Map<String, LongAdder> accepted = new ConcurrentHashMap<>();
        final LongAdder total = new LongAdder();
        final AtomicLong clientErrors = new AtomicLong();
        final int partitions;
        /** Per partition: (first attempt ms, answer ms) of each answered event, for the failover time. */
        final List<long[]> answers = java.util.Collections.synchronizedList(new ArrayList<>());
        /** Per card, the ids answered as accepted, when kept (chaos: its verdict names events); else null. */
        final Map<String, java.util.Queue<Long>> answeredIds;

        Stats(int partitions) {
            this(partitions, false);
        }

        Stats(int partitions, boolean keepIds) {
            this.partitions = partitions;
            this.answeredIds = keepIds ? new ConcurrentHashMap<>() : null;
        }

        void answered(Payment p, long firstAttempt) {
            answered(p, firstAttempt, -1);
        }

        /** @param node the index of the node that answered it, -1 unknown */
        void answered(Payment p, long firstAttempt, int node) {
            accepted.computeIfAbsent(p.card(), k -> new LongAdder()).increment();
            total.increment();
            if (answeredIds != null) {
                answeredIds.computeIfAbsent(p.card(), k -> new java.util.concurrent.ConcurrentLinkedQueue<>())
                        .add(p.id());
            }
            int partition = EventPublisher.partition(GroupKeys.encodeOne(p.card()), partitions);
            answers.add(new long[] {partition, firstAttempt, System.currentTimeMillis(), node});
        }

        /** The first answer of an event of {@code partitions}, first sent after {@code since}; -1 if none. */
        long firstAnswerAfter(long since, Set<Integer> partitions) {
            long first = Long.MAX_VALUE;
            synchronized (answers) {
                for (long[] a : answers) {
                    if (partitions.contains((int) a[0]) && a[1] >= since) {
                        first = Math.min(first, a[2]);
                    }
                }
            }
            return first == Long.MAX_VALUE ? since - 1 : first;
        }
    }

    /**
     * Sends one payment through a node, as a careful client does: on an error it retries the same event (same id)
     * on the next node until it is answered or {@code timeoutS} passed.
     */
    static final class ClusterSender implements Sender {
        private final ClusterProcesses cluster;
        private final List<String> nodes;
        private final int timeoutS;
        private final Stats stats;
        private int node;
        private Connection conn;
        private PreparedStatement insert;

        ClusterSender(ClusterProcesses cluster, List<String> nodes, int node, int timeoutS, Stats stats) {
            this.cluster = cluster;
            this.nodes = nodes;
            this.node = node;
            this.timeoutS = timeoutS;
            this.stats = stats;
        }

        @Override
        public void send(Payment p) throws Exception {
            long first = System.currentTimeMillis();
            long deadline = first + timeoutS * 1000L;
            while (true) {
                try {
                    if (conn == null) {
                        conn = connect(cluster.host(nodes.get(node)), cluster.port(nodes.get(node)), timeoutS);
                        insert = conn.prepareStatement("INSERT INTO payments VALUES (?, ?, ?, ?, ?) RETURNING *");
                    }
                    insert.setLong(1, p.id());
                    insert.setObject(2, LocalDateTime.ofEpochSecond(Math.floorDiv(p.timeMicros(), 1_000_000),
                            (int) Math.floorMod(p.timeMicros(), 1_000_000) * 1000, ZoneOffset.UTC));
                    insert.setString(3, p.card());
                    insert.setString(4, p.merchant());
                    insert.setDouble(5, p.amount());
                    try (ResultSet rs = insert.executeQuery()) {
                        if (!rs.next()) {
                            throw new SQLException("no RETURNING row for event " + p.id());
                        }
                    }
                    stats.answered(p, first, node);
                    return;
                } catch (SQLException e) {
                    stats.clientErrors.incrementAndGet();
                    if (System.currentTimeMillis() > deadline) {
                        throw e;
                    }
                    if (conn == null || !conn.isValid(2)) {
                        close();
                        node = (node + 1) % nodes.size(); // its node is gone: the next one
                    }
                    Thread.sleep(50);
                }
            }
        }

        @Override
        public void close() {
            try {
                if (conn != null) {
                    conn.close();
                }
            } catch (SQLException e) {
                // closing anyway
            }
            conn = null;
            insert = null;
        }
    }
}
