package io.coilgun.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntPredicate;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Network partitions and broker loss, for real: three brokers in a network namespace of their own and two nodes, each
 * in its own, joined by a bridge ({@link PrivateNetwork}); clients send payments from the host, each card by one
 * client in order, so every RETURNING row has one exact expected value. Under that load:
 * <ol>
 *   <li>the node leading most tasks loses its link (cut off from everyone) for a while: the others' cards answer
 *       again within about a second and a half (the group's session, its replicas take over), its clients' statements
 *       time out and go elsewhere; back, it rejoins as a replica and catches up;</li>
 *   <li>a node is cut off from the brokers only, its clients still reaching it: they get a clear error soon
 *       ({@code 08006}, this node cannot reach Kafka), not a hang, and retry elsewhere;</li>
 *   <li>a node is cut off from one peer only: Kafka still joins them, nothing fails over, every card answers;</li>
 *   <li>one broker of three is killed (SIGKILL) and started again: writes go on once Kafka fenced it;</li>
 *   <li>two brokers of three are killed: writes fail with {@code 08006}, each node reads its state from its own
 *       copies, and when one broker returns every card answers again.</li>
 * </ol>
 * Then the oracle: every RETURNING row exact, every node reads every card's exact state (nothing lost, nothing
 * counted twice). Needs root (namespaces); elsewhere it is skipped.
 */
@Tag("integration")
@Timeout(600)
@OwnProcesses
class PartitionIT {
    static final int CLIENTS = 6;
    /** Two nodes (each holds a copy of every task: reads answer on both while Kafka is gone); three brokers. */
    static final List<String> NODES = List.of("n1", "n2");
    static final int CARDS_PER_CLIENT = 4;
    static final int RATE = 40; // per client, events/s
    static final long T0 = 1_700_000_000_000L;

    @TempDir
    Path dir;

    ClusterProcesses cluster;
    final Map<String, long[]> expected = new ConcurrentHashMap<>(); // card -> {count, sum}
    final AtomicLong ids = new AtomicLong();
    final AtomicBoolean running = new AtomicBoolean(true);
    final List<String> mismatches = Collections.synchronizedList(new ArrayList<>());
    /** Errors clients saw: time (ms), node, SQLSTATE, message. */
    final List<Object[]> errors = Collections.synchronizedList(new ArrayList<>());
    /** Answers: time (ms), card (client * CARDS_PER_CLIENT + k), when the statement was first sent (ms). */
    final List<long[]> answered = Collections.synchronizedList(new ArrayList<>());
    final String[] clientNodes = new String[CLIENTS];

    @Test
    void partitionedNodesStopAnsweringAndRejoinLosingNothing() throws Exception {
        assumeTrue(PrivateNetwork.available(), "network namespaces need root and iproute2");
        try (PrivateNetwork net = new PrivateNetwork(); ClusterProcesses c = new ClusterProcesses(dir, 3, net)) {
            cluster = c;
            c.startNodes(NODES.toArray(String[]::new));
            try (Connection conn = connect("n1"); Statement st = conn.createStatement()) {
                st.execute("CREATE STREAM pay (id BIGINT, ts TIMESTAMP, card VARCHAR, amount DOUBLE) WITH ("
                        + "event_id = 'id', partition_by = 'card', partitions = 6, replicas = 2)");
                st.execute("CREATE METRIC m AS SELECT SUM(amount) AS total, COUNT(*) AS n FROM pay GROUP BY card "
                        + "OVER SLIDING 30 DAYS");
            }
            List<Thread> clients = new ArrayList<>();
            for (int t = 0; t < CLIENTS; t++) {
                for (int k = 0; k < CARDS_PER_CLIENT; k++) {
                    expected.put(card(t, k), new long[2]);
                }
                int client = t;
                Thread th = new Thread(() -> client(client), "client-" + t);
                th.start();
                clients.add(th);
            }
            awaitAnsweredAfter(0, t -> true);
            awaitSettled(c);

            // 1. cut off from everyone
            String isolated = leadingMost(c);
            long cut = System.currentTimeMillis();
            net.isolate(isolated);
            long others = awaitAnsweredAfter(cut, t -> !isolated.equals(home(t)));
            System.out.printf("PartitionIT: %s cut off from everyone; the other nodes' clients answered again after "
                    + "%d ms%n", isolated, others);
            Thread.sleep(2_000);
            net.reconnect(isolated);
            awaitAnsweredAfter(System.currentTimeMillis(), t -> true);
            awaitSettled(c);
            System.out.printf("PartitionIT: %s back: it rejoined, settled%n", isolated);

            // 2. cut off from the brokers only: its clients still reach it
            String frontEnd = leadingMost(c);
            int errorsBefore = errors.size();
            long cutAt = System.currentTimeMillis();
            net.cut(frontEnd, "kafka");
            awaitAnsweredAfter(cutAt, t -> true); // its clients moved after a clear error
            long firstError = -1;
            List<String> seen = new ArrayList<>();
            synchronized (errors) {
                for (Object[] e : errors.subList(errorsBefore, errors.size())) {
                    if (frontEnd.equals(e[1])) {
                        firstError = firstError < 0 ? (long) e[0] - cutAt : firstError;
                        seen.add(e[2] + " " + e[3]);
                    }
                }
            }
            System.out.printf("PartitionIT: %s cut off from the brokers; its clients' first error after %d ms: %s%n",
                    frontEnd, firstError, seen.isEmpty() ? "none" : seen.get(0));
            assertTrue(!seen.isEmpty() && seen.get(0).startsWith("08006") && seen.get(0).contains("cut off from Kafka"),
                    "a node cut off from Kafka answers its clients 08006 itself (no client-side timeout): " + seen);
            Thread.sleep(1_000);
            net.heal(frontEnd, "kafka");
            awaitSettled(c);

            // 3. cut off from one peer only: Kafka still joins them
            String a = "n1";
            String b = "n2";
            long peerCut = System.currentTimeMillis();
            net.cut(a, b);
            Thread.sleep(3_000);
            long everyone = awaitAnsweredAfter(peerCut + 2_000, t -> true);
            net.heal(a, b);
            System.out.printf("PartitionIT: %s and %s cut off from each other for 3 s: every card answered (the last "
                    + "%d ms after the 2nd second)%n", a, b, everyone);

            // 4. one broker of three killed under load (replication 3, min.insync.replicas 2): writes go on
            long brokerKill = System.currentTimeMillis();
            int errorsBeforeKill = errors.size();
            c.killBroker(2);
            long afterKill = awaitAnsweredAfter(brokerKill, t -> true);
            Thread.sleep(2_000);
            long restart = System.currentTimeMillis();
            c.startBroker(2);
            Thread.sleep(3_000);
            System.out.printf("PartitionIT: broker 2 of 3 killed: every card answered again after %d ms; p99.9 "
                    + "%d ms while it was down, %d ms after it came back; client errors %s%n", afterKill,
                    p999(brokerKill, restart), p999(restart, System.currentTimeMillis()),
                    errorStates(errorsBeforeKill));
            // the group coordinator moves meanwhile (its broker died), but the other brokers answer: not cut off
            List<String> brokerLossErrors = errorStates(errorsBeforeKill);
            assertTrue(brokerLossErrors.stream().noneMatch(e -> e.startsWith("08006")),
                    "one broker of three lost: no node counts itself cut off from Kafka: " + brokerLossErrors);

            // 5. two brokers of three killed: writes fail with a clear error, reads of state go on; one back, all on
            awaitSettled(c);
            int errorsBeforeTwo = errors.size();
            long twoKill = System.currentTimeMillis();
            c.killBroker(2);
            c.killBroker(3);
            Thread.sleep(10_000); // a node that brokers still answer waits 8 s for a group coordinator (KafkaContact)
            List<String> refused = errorStates(errorsBeforeTwo);
            for (String n : NODES) {
                state(n); // each node answers from its own copies (replicas = 2: it has one of every task)
            }
            long back = System.currentTimeMillis();
            c.startBroker(2);
            long resumed = awaitAnsweredAfter(back, t -> true);
            System.out.printf("PartitionIT: brokers 2 and 3 of 3 killed for 10 s: clients got %s; every node read "
                    + "its state meanwhile; broker 2 back: every card answered again after %d ms%n", refused,
                    resumed);
            assertTrue(!refused.isEmpty() && refused.stream().allMatch(e -> e.startsWith("08006")),
                    "with two brokers of three gone, writes fail with 08006: " + refused);
            c.startBroker(3);

            running.set(false);
            for (Thread th : clients) {
                th.join(120_000);
            }
            assertEquals(List.of(), mismatches, "every RETURNING row is exact");
            for (String n : NODES) {
                assertEquals(expectedState(), state(n), n + " reads every card's exact state");
            }
            long accepted = expected.values().stream().mapToLong(v -> v[0]).sum();
            System.out.printf("PartitionIT: %d events accepted, 0 lost, 0 counted twice; %d client errors (retried)%n",
                    accepted, errors.size());
        }
    }

    private void client(int client) {
        Random random = new Random(client);
        int node = client % NODES.size();
        Connection conn = null;
        long next = System.currentTimeMillis();
        int turn = 0;
        while (running.get()) {
            int k = turn++ % CARDS_PER_CLIENT;
            String card = card(client, k);
            long id = ids.incrementAndGet();
            long sent = System.currentTimeMillis();
            double amount = 1 + random.nextInt(100);
            long deadline = System.currentTimeMillis() + 90_000;
            while (true) {
                String on = "n" + (node + 1);
                clientNodes[client] = on;
                try {
                    if (conn == null) {
                        conn = connect(on);
                    }
                    Object[] row = insert(conn, id, card, amount);
                    long[] e = expected.get(card);
                    if (row[1] != null) { // null: a duplicate of an earlier attempt that was applied
                        if (((Number) row[1]).longValue() != e[0] + 1
                                || ((Number) row[0]).doubleValue() != e[1] + amount) {
                            mismatches.add(card + " id " + id + ": got n=" + row[1] + " total=" + row[0]
                                    + ", expected n=" + (e[0] + 1) + " total=" + (e[1] + amount));
                        }
                    }
                    e[0]++;
                    e[1] += (long) amount;
                    answered.add(new long[] {System.currentTimeMillis(), client * CARDS_PER_CLIENT + k, sent});
                    break;
                } catch (SQLException ex) {
                    String state = ex.getSQLState() == null ? "" : ex.getSQLState();
                    errors.add(new Object[] {System.currentTimeMillis(), on, state, ex.getMessage()});
                    if (state.startsWith("42") || state.startsWith("22") || System.currentTimeMillis() > deadline) {
                        mismatches.add(card + " id " + id + " never accepted: " + state + " " + ex.getMessage());
                        running.set(false);
                        return;
                    }
                    close(conn);
                    conn = null;
                    node = (node + 1) % NODES.size(); // retried, same id, on the next node
                    sleep(100);
                }
            }
            if (node != client % NODES.size() && turn % 40 == 0) { // back home now and then, once it answers again
                close(conn);
                conn = null;
                node = client % NODES.size();
            }
            next += 1000 / RATE;
            sleep(next - System.currentTimeMillis());
        }
        close(conn);
    }

    /** The node a client sends to now. */
    private String home(int client) {
        return clientNodes[client];
    }

    private static String card(int client, int k) {
        return "card-" + client + "-" + k;
    }

    private Object[] insert(Connection conn, long id, String card, double amount) throws SQLException {
        try (PreparedStatement ps = conn.prepareStatement("INSERT INTO pay VALUES (?, ?, ?, ?) RETURNING *")) {
            ps.setLong(1, id);
            ps.setTimestamp(2, new Timestamp(T0 + id));
            ps.setString(3, card);
            ps.setDouble(4, amount);
            try (ResultSet rs = ps.executeQuery()) {
                assertTrue(rs.next(), "INSERT ... RETURNING answers one row");
                return new Object[] {rs.getObject("m_total"), rs.getObject("m_n")};
            }
        }
    }

    private Map<String, List<Long>> expectedState() {
        Map<String, List<Long>> out = new HashMap<>();
        expected.forEach((card, v) -> out.put(card, List.of(v[0], v[1])));
        return out;
    }

    private Map<String, List<Long>> state(String node) throws SQLException {
        Map<String, List<Long>> out = new HashMap<>();
        try (Connection conn = connect(node); Statement st = conn.createStatement();
                ResultSet rs = st.executeQuery("SELECT card, n, total FROM m")) {
            while (rs.next()) {
                out.put(rs.getString(1), List.of(rs.getLong(2), (long) rs.getDouble(3)));
            }
        }
        return out;
    }

    /**
     * Waits until every card of the clients {@code counted} had a statement sent after {@code since} answered;
     * returns how long after {@code since} the last of those answers came.
     */
    private long awaitAnsweredAfter(long since, IntPredicate counted) throws InterruptedException {
        long deadline = System.currentTimeMillis() + 90_000;
        while (System.currentTimeMillis() < deadline && running.get()) {
            Map<Long, Long> first = new HashMap<>();
            int wanted = 0;
            for (int t = 0; t < CLIENTS; t++) {
                wanted += counted.test(t) ? CARDS_PER_CLIENT : 0;
            }
            synchronized (answered) {
                for (long[] a : answered) {
                    if (a[2] >= since && counted.test((int) a[1] / CARDS_PER_CLIENT)) {
                        first.merge(a[1], a[0], Math::min);
                    }
                }
            }
            if (first.size() == wanted) {
                return first.values().stream().mapToLong(t -> t - since).max().orElse(0);
            }
            Thread.sleep(50);
        }
        throw new AssertionError("not every client answered within 90 s of " + since + "; mismatches " + mismatches
                + "; last errors " + errors.subList(Math.max(0, errors.size() - 5), errors.size()).stream()
                        .map(e -> e[1] + ": " + e[2] + " " + e[3]).toList());
    }

    /** p99.9 (ms) of the statements first sent in [from, to), from their first send to their answer. */
    private long p999(long from, long to) {
        List<Long> latencies = new ArrayList<>();
        synchronized (answered) {
            for (long[] a : answered) {
                if (a[2] >= from && a[2] < to) {
                    latencies.add(a[0] - a[2]);
                }
            }
        }
        Collections.sort(latencies);
        return latencies.isEmpty() ? -1 : latencies.get((int) Math.min(latencies.size() - 1,
                Math.ceil(latencies.size() * 0.999) - 1));
    }

    /** The distinct SQLSTATEs and first words of the errors clients saw since error number {@code from}. */
    private List<String> errorStates(int from) {
        java.util.Set<String> out = new java.util.TreeSet<>();
        synchronized (errors) {
            for (Object[] e : errors.subList(from, errors.size())) {
                String message = String.valueOf(e[3]);
                out.add(e[2] + " " + message.substring(0, Math.min(60, message.length())));
            }
        }
        return new ArrayList<>(out);
    }

    /** The node leading the most tasks. */
    private String leadingMost(ClusterProcesses c) throws SQLException {
        try (Connection conn = connect("n1"); Statement st = conn.createStatement();
                ResultSet rs = st.executeQuery("SELECT node, count(*) AS n FROM coilgun.tasks WHERE node IS NOT NULL "
                        + "GROUP BY node ORDER BY n DESC, node")) {
            assertTrue(rs.next(), "some node leads tasks");
            return rs.getString(1);
        }
    }

    /** Waits (up to 30 s) until every task runs with a replica less than 100 events behind, twice in a row. */
    private void awaitSettled(ClusterProcesses c) throws Exception {
        long deadline = System.currentTimeMillis() + 30_000;
        int calm = 0;
        while (System.currentTimeMillis() < deadline && calm < 2) {
            boolean settled = false;
            try (Connection conn = connect("n2"); Statement st = conn.createStatement();
                    ResultSet rs = st.executeQuery("SELECT state, replicas FROM coilgun.tasks")) {
                int tasks = 0;
                int ready = 0;
                while (rs.next()) {
                    tasks++;
                    String replicas = rs.getString(2) == null ? "" : rs.getString(2);
                    java.util.regex.Matcher lag = java.util.regex.Pattern.compile("\\(running, lag (\\d+) events")
                            .matcher(replicas);
                    ready += "running".equals(rs.getString(1)) && lag.find() && Long.parseLong(lag.group(1)) <= 100
                            ? 1 : 0;
                }
                settled = tasks == 6 && ready == 6;
            } catch (SQLException e) {
                // a node busy with a rebalance: look again
            }
            calm = settled ? calm + 1 : 0;
            Thread.sleep(calm == 1 ? 1000 : 250);
        }
    }

    private Connection connect(String node) throws SQLException {
        return DriverManager.getConnection("jdbc:postgresql://" + cluster.host(node) + ":" + cluster.port(node)
                + "/coilgun?user=tester&connectTimeout=5&socketTimeout=10&tcpKeepAlive=true");
    }

    private static void close(Connection conn) {
        if (conn != null) {
            try {
                conn.close();
            } catch (SQLException ignored) {
                // gone
            }
        }
    }

    private static void sleep(long ms) {
        if (ms > 0) {
            try {
                Thread.sleep(ms);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
