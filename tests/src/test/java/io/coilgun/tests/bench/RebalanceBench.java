package io.coilgun.tests.bench;

import io.coilgun.tests.ClusterProcesses;
import java.io.IOException;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.common.TopicPartition;
import org.postgresql.PGConnection;

/**
 * {@code scripts/bench rebalance}: {@code --nodes} Coilgun nodes over {@code --brokers} KRaft brokers, each a process;
 * a stream of {@code --partitions} tasks with {@code --replicas} copies and a 365-day SUM+COUNT metric per card;
 * {@code --history} events of the last 30 days loaded with COPY, then Kafka's records of the stream deleted, as a
 * retention shorter than the window would: the history is only in the nodes' reservoirs and state stores. Under an
 * open-loop load of {@code --rate} events/s on the first nodes, a new node joins at {@code --join-at} s into the
 * measured part. Reports the task data, the time until the new node leads its share with every task running
 * ({@code join_s}), the bytes copied to it against the least its share needs ({@code bytes_moved},
 * {@code bytes_min}), the latency of the rest of the cluster before, during and after the move, and the oracle
 * (each card's count read back against the events accepted, history included).
 */
final class RebalanceBench {
    private static final String TOPIC = "coilgun.stream.payments.card_id";
    private static final DateTimeFormatter TS = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSSSSS")
            .withZone(ZoneOffset.UTC);
    /** Processor units per node (ClusterProcesses starts every node with 2). */
    private static final int UNITS = 2;
    private static final Pattern COPIED = Pattern.compile(
            "task=(\\S+) copied from node (\\S+) at offset \\d+: (\\d+) bytes \\((\\d+) reused\\)");

    private final BenchOptions o;
    private final Path runDir;

    RebalanceBench(BenchOptions o, Path runDir) {
        this.o = o;
        this.runDir = runDir;
    }

    Map<String, String> run(Function<Long, PaymentSource> source) throws Exception {
        int nodes = o.integer("nodes", 3);
        int brokers = o.integer("brokers", 1);
        int partitions = o.integer("partitions", 12);
        int replicas = o.integer("replicas", 1);
        long history = o.integer("history", 1_000_000);
        double rate = o.number("rate", 100);
        double warmup = o.number("warmup", 10);
        double duration = o.number("duration", 60);
        double joinAt = o.number("join-at", 10);
        int connections = o.integer("connections", 4);
        int timeoutS = o.integer("timeout", 60);
        Map<String, String> result = new LinkedHashMap<>();
        Path dir = runDir.resolve("data-rebalance");
        List<String> ids = new ArrayList<>();
        for (int i = 1; i <= nodes; i++) {
            ids.add("n" + i);
        }
        String joiner = "n" + (nodes + 1);
        System.out.println("rebalance: starting " + brokers + " Kafka broker(s) and " + nodes + " nodes (logs in "
                + runDir + ")");
        try (ClusterProcesses c = new ClusterProcesses(dir, brokers, true)) {
            for (String id : ids) {
                c.startNode(id);
            }
            ClusterBench.Stats stats = new ClusterBench.Stats(partitions);
            try (Connection conn = ClusterBench.connect(c.port(ids.get(0)), 600); Statement st = conn.createStatement()) {
                st.execute(String.format(Locale.ROOT, "CREATE STREAM payments (id BIGINT, ts TIMESTAMP, card_id VARCHAR, "
                        + "merchant_id VARCHAR, amount DOUBLE) WITH (event_time = 'ts', event_id = 'id', "
                        + "partition_by = 'card_id', partitions = %d, replicas = %d, lateness = '1 minute')",
                        partitions, replicas));
                st.execute("CREATE METRIC card_365d AS SELECT SUM(amount) AS total, COUNT(*) AS n FROM payments "
                        + "GROUP BY card_id OVER SLIDING INTERVAL '365' DAY");
                preload(conn, history, stats);
            }
            deleteHistory(c.bootstrap(), partitions);
            long dataBytes = 0;
            for (String id : ids) {
                dataBytes += bytes(dir.resolve(id).resolve("tasks"));
            }
            long copies = (long) partitions * Math.min(replicas, nodes);
            long perCopy = dataBytes / copies;
            System.out.printf(Locale.ROOT, "rebalance: %d copies of tasks hold %.1f MB (%.1f MB each); Kafka's "
                    + "records deleted%n", copies, dataBytes / 1e6, perCopy / 1e6);

            List<Sender> senders = new ArrayList<>();
            for (int i = 0; i < connections; i++) {
                senders.add(new ClusterBench.ClusterSender(c, ids, i % nodes, timeoutS, stats));
            }
            Map<Integer, String> leaders = new java.util.concurrent.ConcurrentHashMap<>(); // just before the join
            long[] joinStart = {0};
            long[] joinDone = {0};
            Thread join = new Thread(() -> {
                try {
                    Thread.sleep((long) ((warmup + joinAt) * 1000));
                    leaders.putAll(leaders(c, ids.get(0)));
                    joinStart[0] = System.currentTimeMillis();
                    c.startNode(joiner);
                    System.out.printf(Locale.ROOT, "rebalance: %s started in %.1f s; waiting for its share%n", joiner,
                            (System.currentTimeMillis() - joinStart[0]) / 1e3);
                    int share = partitions / ((nodes + 1) * UNITS) * UNITS; // the new node's units' floor
                    while (true) {
                        if (settled(c, ids.get(0), joiner, partitions, share, replicas)) {
                            joinDone[0] = System.currentTimeMillis();
                            System.out.printf(Locale.ROOT, "rebalance: %s leads its share after %.1f s%n", joiner,
                                    (joinDone[0] - joinStart[0]) / 1e3);
                            return;
                        }
                        Thread.sleep(250);
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } catch (Exception e) {
                    System.out.println("rebalance: the join failed: " + e);
                }
            }, "bench-join");
            join.setDaemon(true);
            long start = System.currentTimeMillis();
            join.start();
            OpenLoop.Result r;
            try {
                r = OpenLoop.run("rebalance", senders, source.apply(history + 1), rate, warmup, duration, timeoutS);
            } finally {
                senders.forEach(Sender::close);
            }
            join.join(120_000);
            join.interrupt();

            int joinSecond = (int) Math.round((joinStart[0] - start) / 1000.0);
            int doneSecond = joinDone[0] == 0 ? r.seconds().size()
                    : (int) Math.ceil((joinDone[0] - start) / 1000.0) + 5;
            int measuredFrom = (int) Math.ceil(warmup);
            ClusterBench.phase(result, "before", r, measuredFrom, joinSecond);
            ClusterBench.phase(result, "during", r, joinSecond, doneSecond);
            ClusterBench.phase(result, "after", r, doneSecond, r.seconds().size());
            result.put("join_s", joinDone[0] == 0 ? "-" : String.format(Locale.ROOT, "%.1f",
                    (joinDone[0] - joinStart[0]) / 1e3));

            long moved = 0;
            long reused = 0;
            int copied = 0;
            Set<String> sources = new java.util.TreeSet<>();
            for (String id : c.nodeIds()) {
                Matcher m = COPIED.matcher(c.log(id));
                while (m.find()) {
                    moved += Long.parseLong(m.group(3)) - Long.parseLong(m.group(4));
                    reused += Long.parseLong(m.group(4));
                    copied++;
                    sources.add(m.group(2));
                }
            }
            // what the nodes that sent copies paid: their own tasks' statements during the join, against the others'
            long duringTo = joinDone[0] == 0 ? Long.MAX_VALUE : joinDone[0] + 5_000;
            Set<Integer> sourceTasks = new java.util.TreeSet<>();
            leaders.forEach((partition, node) -> {
                if (sources.contains(node)) {
                    sourceTasks.add(partition);
                }
            });
            result.put("sources", sources.isEmpty() ? "-" : String.join("+", sources));
            result.put("source_tasks", String.valueOf(sourceTasks.size()));
            taskPhase(result, "during_source", stats, joinStart[0], duringTo, sourceTasks, true);
            taskPhase(result, "during_others", stats, joinStart[0], duringTo, sourceTasks, false);
            int held = held(c, ids.get(0), joiner);
            long share = copies / ((nodes + 1) * UNITS) * UNITS; // the least balance gives the new node's units
            result.put("data_mb", String.format(Locale.ROOT, "%.1f", dataBytes / 1e6));
            result.put("tasks_copied", String.valueOf(copied));
            result.put("bytes_moved", String.valueOf(moved));
            result.put("bytes_reused", String.valueOf(reused));
            // the least: the new node's share of copies, each a snapshot of the size the copies had on average
            long minimum = copied == 0 ? 0 : share * ((moved + reused) / copied);
            result.put("bytes_min", String.valueOf(minimum));
            result.put("moved_vs_min", minimum == 0 ? "-" : String.format(Locale.ROOT, "%.2f",
                    moved / (double) minimum));
            result.put("copies_on_new_node", held + "/" + share);

            slowest(stats, 5);
            ClusterBench.oracle(result, stats, c.port(ids.get(0)), "SELECT card_id, n FROM card_365d");
            result.put("unanswered", String.valueOf(r.errors()));
            result.put("rate", String.format(Locale.ROOT, "%.0f", rate));
            result.put("history", String.valueOf(history));
            result.put("nodes", nodes + "+1");
            result.put("partitions", String.valueOf(partitions));
            result.put("replicas", String.valueOf(replicas));
            for (String id : c.nodeIds()) {
                Files.copy(dir.resolve(id + ".log"), runDir.resolve("node-" + id + ".log"),
                        java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            }
            for (int b = 1; b <= brokers; b++) {
                Path log = dir.resolve("kafka").resolve("broker-" + b + ".log");
                if (Files.exists(log)) {
                    Files.copy(log, runDir.resolve("broker-" + b + ".log"),
                            java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                }
            }
        }
        return result;
    }

    /**
     * Loads {@code history} events spread over the 30 days before an hour ago, in time order, with COPY in batches;
     * each is counted as accepted for the oracle.
     */
    private static void preload(Connection conn, long history, ClusterBench.Stats stats) throws Exception {
        PaymentGenerator gen = new PaymentGenerator(7, 100_000, 10_000, 0, 0, 1);
        long end = System.currentTimeMillis() * 1000 - 3_600_000_000L;
        long span = 30L * 86_400_000_000L;
        long step = Math.max(1, span / Math.max(1, history));
        Map<String, LongAdder> accepted = stats.accepted;
        copyHistory(conn, gen, end - span, step, history, "rebalance",
                p -> accepted.computeIfAbsent(p.card(), k -> new LongAdder()).increment());
    }

    /**
     * COPYs {@code count} generated payments, one every {@code stepMicros} from {@code fromMicros} on, in batches of
     * 50,000, each passed to {@code each} as it is written; prints progress every 10 s. Returns the time after the
     * last one.
     */
    static long copyHistory(Connection conn, PaymentGenerator gen, long fromMicros, long stepMicros, long count,
            String label, java.util.function.Consumer<Payment> each) throws Exception {
        long t = fromMicros;
        long started = System.nanoTime();
        long lastPrint = started;
        var copy = conn.unwrap(PGConnection.class).getCopyAPI();
        for (long done = 0; done < count; ) {
            int batch = (int) Math.min(50_000, count - done);
            StringBuilder rows = new StringBuilder(batch * 64);
            for (int i = 0; i < batch; i++) {
                Payment p = gen.next(t);
                t += stepMicros;
                appendCopyRow(rows, p);
                each.accept(p);
            }
            copy.copyIn("COPY payments FROM STDIN", new StringReader(rows.toString()));
            done += batch;
            if (System.nanoTime() - lastPrint > 10_000_000_000L || done == count) {
                lastPrint = System.nanoTime();
                System.out.printf(Locale.ROOT, "%s: history %d / %d (%.0f events/s)%n", label, done, count,
                        done / ((System.nanoTime() - started) / 1e9));
            }
        }
        return t;
    }

    /** One payment as a line of COPY text (id, ts, card_id, merchant_id, amount). */
    static void appendCopyRow(StringBuilder rows, Payment p) {
        rows.append(p.id()).append('\t').append(TS.format(Instant.ofEpochSecond(0, p.timeMicros() * 1000)))
                .append('\t').append(p.card()).append('\t').append(p.merchant()).append('\t')
                .append(p.amount()).append('\n');
    }

    /** Prints the {@code n} slowest statements: when they were sent, their task, how long they took. */
    private static void slowest(ClusterBench.Stats stats, int n) {
        List<long[]> answers;
        synchronized (stats.answers) {
            answers = new ArrayList<>(stats.answers);
        }
        answers.sort((a, b) -> Long.compare(b[2] - b[1], a[2] - a[1]));
        for (long[] a : answers.subList(0, Math.min(n, answers.size()))) {
            System.out.printf(Locale.ROOT, "rebalance: slow: task %d, sent to n%d at %s, answered after %d ms%n",
                    a[0], a[3] + 1, Instant.ofEpochMilli(a[1]), a[2] - a[1]);
        }
    }

    /** Deletes every record of the stream's topic, as retention would: Kafka keeps the offsets, not the events. */
    private static void deleteHistory(String bootstrap, int partitions) throws Exception {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        try (Admin admin = Admin.create(p)) {
            Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
            for (int i = 0; i < partitions; i++) {
                latest.put(new TopicPartition(TOPIC, i), OffsetSpec.latest());
            }
            Map<TopicPartition, RecordsToDelete> delete = admin.listOffsets(latest).all().get().entrySet().stream()
                    .collect(Collectors.toMap(Map.Entry::getKey,
                            e -> RecordsToDelete.beforeOffset(e.getValue().offset())));
            admin.deleteRecords(delete).all().get();
        }
    }

    /** Whether every task runs, the new node leads at least {@code share} of them, and no warm-up copy is left. */
    private static boolean settled(ClusterProcesses c, String on, String joiner, int partitions, int share,
            int replicas) {
        try (Connection conn = ClusterBench.connect(c.port(on), 30); Statement st = conn.createStatement();
                ResultSet rs = st.executeQuery("SELECT state, node, replicas FROM coilgun.tasks "
                        + "WHERE stream_name = 'payments'")) {
            int tasks = 0;
            int led = 0;
            boolean steady = true;
            while (rs.next()) {
                tasks++;
                steady &= rs.getString(1).startsWith("running");
                led += joiner.equals(rs.getString(2)) ? 1 : 0;
                String copies = rs.getString(3);
                int count = copies == null || copies.isBlank() ? 0 : copies.split("\\),").length;
                steady &= count <= replicas - 1 && (copies == null || !copies.contains("recovering"));
            }
            return tasks == partitions && steady && led >= share;
        } catch (SQLException e) {
            return false;
        }
    }

    /** The node leading each partition now. */
    private static Map<Integer, String> leaders(ClusterProcesses c, String on) {
        Map<Integer, String> leaders = new HashMap<>();
        try (Connection conn = ClusterBench.connect(c.port(on), 30); Statement st = conn.createStatement();
                ResultSet rs = st.executeQuery("SELECT kafka_partition, node FROM coilgun.tasks "
                        + "WHERE stream_name = 'payments'")) {
            while (rs.next()) {
                leaders.put(rs.getInt(1), rs.getString(2));
            }
        } catch (SQLException e) {
            System.out.println("rebalance: the tasks' leaders before the join are unknown: " + e.getMessage());
        }
        return leaders;
    }

    /**
     * p99.9 and max of the statements first sent between {@code from} and {@code to} (ms) whose task is (or, with
     * {@code in} false, is not) one of {@code tasks}; latency from the first attempt to the answer.
     */
    private static void taskPhase(Map<String, String> result, String name, ClusterBench.Stats stats, long from,
            long to, Set<Integer> tasks, boolean in) {
        org.HdrHistogram.Histogram h = new org.HdrHistogram.Histogram(3_600_000_000_000L, 3);
        synchronized (stats.answers) {
            for (long[] a : stats.answers) {
                if (a[1] >= from && a[1] < to && tasks.contains((int) a[0]) == in) {
                    h.recordValue(Math.max(0, a[2] - a[1]) * 1_000_000L);
                }
            }
        }
        boolean none = h.getTotalCount() == 0;
        result.put(name + "_n", String.valueOf(h.getTotalCount()));
        result.put(name + "_p999_ms", none ? "-" : OpenLoop.fmt(h.getValueAtPercentile(99.9) / 1e6));
        result.put(name + "_max_ms", none ? "-" : OpenLoop.fmt(h.getMaxValue() / 1e6));
    }

    /** How many copies (active or replica) the new node holds. */
    private static int held(ClusterProcesses c, String on, String joiner) throws SQLException {
        try (Connection conn = ClusterBench.connect(c.port(on), 30); Statement st = conn.createStatement();
                ResultSet rs = st.executeQuery("SELECT node, replicas FROM coilgun.tasks "
                        + "WHERE stream_name = 'payments'")) {
            int held = 0;
            while (rs.next()) {
                held += joiner.equals(rs.getString(1)) ? 1 : 0;
                String copies = rs.getString(2);
                held += copies != null && copies.contains(joiner + "/") ? 1 : 0;
            }
            return held;
        }
    }

    private static long bytes(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            return 0;
        }
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(Files::isRegularFile).mapToLong(f -> {
                try {
                    return Files.size(f);
                } catch (IOException e) {
                    return 0; // gone meanwhile
                }
            }).sum();
        }
    }
}
