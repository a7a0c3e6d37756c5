package io.coilgun.tests;

import io.coilgun.planner.oracle.Aggregation;
import io.coilgun.planner.oracle.SpecOracle;
import io.coilgun.planner.oracle.Window;
import io.coilgun.planner.oracle.WindowEvents;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * ClusterIT's streams with {@code late_events = 'reject'} and {@code 'clamp'} (issue 58): each partitioned by card
 * and merchant (so a decider judges every event), with two copies of each task, fed by a client of its own while the
 * cluster's nodes are killed (kill -9 of the node leading each one's decider), frozen and stopped. One in five events
 * is two hours behind the stream time (the lateness is one hour): rejected (22008) or clamped to the stream time
 * minus the lateness. Each client sends its events one at a time and retries a failed statement with the same id
 * until it is answered, so the brute force of docs/sql.md ({@link SpecOracle}) knows every decision and every value:
 * every RETURNING row is checked against it (a card's COUNT and SUM over 90 minutes, which hold the clamped events at
 * their final time and not at their own, its COUNT over 30 minutes, which holds neither, and a merchant's over 90
 * minutes), and at the end every live node's SELECT of each metric, at each group's task's stream time.
 */
final class LateEventsUnderFailover {
    static final String[] POLICIES = {"reject", "clamp"};
    /** The tasks the streams add: each a decider and 2 partitions of card and of merchant. */
    static final int TASKS = POLICIES.length * (1 + 2 + 2);
    static final long T0 = Timestamp.valueOf("2026-11-25 00:00:00").getTime();
    static final long HOUR_US = 3_600_000_000L;
    static final long LATENESS_US = HOUR_US;
    static final int CARDS = 8;
    /** Statements per second per client (one in flight). */
    static final int RATE = 15;

    /** An event as accepted, at its final time (microseconds), with its keys and amount. */
    record Event(long id, long time, String card, String merchant, long amount) {
    }

    /** One stream, its client and its oracle. */
    final class Late {
        final String policy;
        final String stream;
        final SpecOracle<Event> card90 = new SpecOracle<>(new Window(Window.Kind.SLIDING, 90 * 60_000_000L, 0),
                Event::time, Event::card);
        final SpecOracle<Event> card30 = new SpecOracle<>(new Window(Window.Kind.SLIDING, 30 * 60_000_000L, 0),
                Event::time, Event::card);
        final SpecOracle<Event> merchant90 = new SpecOracle<>(new Window(Window.Kind.SLIDING, 90 * 60_000_000L, 0),
                Event::time, Event::merchant);
        final AtomicLong accepted = new AtomicLong();
        /** Late events: rejected (reject) or clamped (clamp). */
        final AtomicLong late = new AtomicLong();
        final AtomicLong lastAnswer = new AtomicLong();
        final AtomicLong errors = new AtomicLong();
        /** The nodes that were killed while leading this stream's decider. */
        final List<String> deciderKills = Collections.synchronizedList(new ArrayList<>());
        Thread thread;

        Late(String policy) {
            this.policy = policy;
            this.stream = "late_" + policy;
        }

        String metric(String name) {
            return policy + "_" + name;
        }
    }

    private final ClusterProcesses cluster;
    private final AtomicBoolean running;
    private final List<String> mismatches;
    private final Map<String, Late> streams = new LinkedHashMap<>();

    LateEventsUnderFailover(ClusterProcesses cluster, AtomicBoolean running, List<String> mismatches) {
        this.cluster = cluster;
        this.running = running;
        this.mismatches = mismatches;
        for (String p : POLICIES) {
            streams.put(p, new Late(p));
        }
    }

    /** Creates the streams and their metrics through the node at {@code port}. */
    void create(int port) throws SQLException {
        try (Connection conn = ClusterIT.connect(port); Statement st = conn.createStatement()) {
            for (Late l : streams.values()) {
                st.execute("CREATE STREAM " + l.stream + " (id BIGINT, ts TIMESTAMP, card VARCHAR, merchant VARCHAR, "
                        + "amount DOUBLE) WITH (event_id = 'id', partition_by = 'card, merchant', partitions = 2, "
                        + "replicas = 2, lateness = '1 hour', late_events = '" + l.policy + "', "
                        + "dedup_horizon = '1 day')"); // a clamped event sits at the lateness: its retry, a duplicate
                st.execute("CREATE METRIC " + l.metric("c90") + " AS SELECT COUNT(*) AS n, SUM(amount) AS total FROM "
                        + l.stream + " GROUP BY card OVER SLIDING 90 MINUTES");
                st.execute("CREATE METRIC " + l.metric("c30") + " AS SELECT COUNT(*) AS n FROM " + l.stream
                        + " GROUP BY card OVER SLIDING 30 MINUTES");
                st.execute("CREATE METRIC " + l.metric("m90") + " AS SELECT COUNT(*) AS n, SUM(amount) AS total FROM "
                        + l.stream + " GROUP BY merchant OVER SLIDING 90 MINUTES");
            }
        }
    }

    /** Starts each stream's client. */
    void start() {
        for (Late l : streams.values()) {
            l.thread = new Thread(() -> {
                try {
                    client(l);
                } catch (Throwable e) {
                    mismatches.add(l.stream + ": its client died: " + e);
                    running.set(false);
                }
            }, "late-client-" + l.policy);
            l.thread.start();
        }
    }

    /** Waits for the clients (once {@code running} is false). */
    void join() throws InterruptedException {
        for (Late l : streams.values()) {
            l.thread.join(120_000);
        }
    }

    /** The node leading each stream's decider now (policy to node; absent while none does). */
    Map<String, String> deciders() throws SQLException {
        String live = cluster.nodeIds().stream().filter(cluster::alive).findFirst().orElseThrow();
        Map<String, String> led = new HashMap<>();
        try (Connection conn = ClusterIT.connect(cluster.port(live)); Statement st = conn.createStatement();
                ResultSet rs = st.executeQuery("SELECT stream_name, node FROM coilgun.tasks WHERE task LIKE '%decide%' "
                        + "AND node IS NOT NULL AND stream_name LIKE 'late_%'")) {
            while (rs.next()) {
                led.put(rs.getString(1).substring("late_".length()), rs.getString(2));
            }
        }
        return led;
    }

    /** Notes that {@code node} was killed (kill -9) while leading the deciders in {@code led}. */
    void killed(String node, Map<String, String> led) {
        led.forEach((policy, n) -> {
            if (n.equals(node)) {
                streams.get(policy).deciderKills.add(node);
            }
        });
    }

    /** The node leading most of the deciders whose node was not killed yet, per {@code led}; null if none. */
    String nextVictim(Map<String, String> led) {
        Map<String, Integer> pending = new HashMap<>();
        deciderNotKilled().stream().map(led::get).filter(java.util.Objects::nonNull)
                .forEach(n -> pending.merge(n, 1, Integer::sum));
        return pending.entrySet().stream().max(Map.Entry.comparingByValue()).map(Map.Entry::getKey).orElse(null);
    }

    /** The policies whose decider's node was not killed yet. */
    List<String> deciderNotKilled() {
        return streams.values().stream().filter(l -> l.deciderKills.isEmpty()).map(l -> l.policy).toList();
    }

    /** Waits (up to 90 s) until every stream answered a statement sent after {@code since}. */
    void awaitAnsweredAfter(long since) throws InterruptedException {
        long deadline = System.currentTimeMillis() + 90_000;
        while (running.get() && streams.values().stream().anyMatch(l -> l.lastAnswer.get() <= since)) {
            if (System.currentTimeMillis() > deadline) {
                throw new AssertionError("a late-events stream answered nothing within 90 s of " + since + "; "
                        + "mismatches " + mismatches);
            }
            Thread.sleep(50);
        }
    }

    /** One stream's client: its events in order, each retried until answered, each answer checked. */
    private void client(Late l) throws Exception {
        Random random = new Random(l.policy.hashCode());
        List<String> nodes = List.of("n1", "n2", "n3");
        int node = l.policy.equals("reject") ? 0 : 1;
        Connection conn = null;
        long next = System.currentTimeMillis();
        for (long id = 1; running.get(); id++) {
            String card = "lc-" + random.nextInt(CARDS);
            String merchant = "lm-" + random.nextInt(3);
            long amount = 1 + random.nextInt(100);
            boolean sentLate = id > 20 && random.nextInt(5) == 0; // the stream has a stream time by then
            long sentTime = (T0 + id * 100) * 1000 - (sentLate ? 2 * HOUR_US : 0);
            boolean late = l.card90.late(sentTime, LATENESS_US);
            if (late != sentLate) {
                mismatches.add(l.stream + " id " + id + ": the oracle judged it late=" + late);
            }
            // the decision the stream must report: rejected (22008) or accepted, at its time or clamped
            boolean rejected = late && l.policy.equals("reject");
            long finalTime = late ? l.card90.streamTime() - LATENESS_US : sentTime;
            long deadline = System.currentTimeMillis() + 90_000;
            boolean retried = false;
            while (true) {
                try {
                    if (conn == null) {
                        conn = ClusterIT.connect(cluster.port(nodes.get(node)));
                    }
                    Object[] row = insert(conn, l, id, sentTime, card, merchant, amount);
                    if (rejected) {
                        mismatches.add(l.stream + " id " + id + ": a late event was applied: " + List.of(row));
                    } else {
                        Event e = new Event(id, finalTime, card, merchant, amount);
                        WindowEvents<Event> c90 = l.card90.accept(e);
                        WindowEvents<Event> c30 = l.card30.accept(e);
                        WindowEvents<Event> m90 = l.merchant90.accept(e);
                        if (row[0] == null && retried) {
                            // a duplicate: an earlier attempt was applied, its answer lost
                            if (row[1] != null || row[2] != null || row[3] != null || row[4] != null) {
                                mismatches.add(l.stream + " id " + id + ": a duplicate's row has values "
                                        + List.of(row));
                            }
                        } else {
                            Object[] expected = {c90.count(), sum(c90), c30.count(), m90.count(), sum(m90)};
                            for (int i = 0; i < row.length; i++) {
                                if (row[i] == null || ((Number) row[i]).longValue() != (Long) expected[i]) {
                                    mismatches.add(l.stream + " id " + id + (late ? " (clamped)" : "") + ": got "
                                            + java.util.Arrays.toString(row) + ", expected "
                                            + java.util.Arrays.toString(expected));
                                    break;
                                }
                            }
                        }
                        l.accepted.incrementAndGet();
                    }
                    l.late.addAndGet(late ? 1 : 0);
                    l.lastAnswer.set(System.currentTimeMillis());
                    break;
                } catch (SQLException ex) {
                    if (rejected && "22008".equals(ex.getSQLState())) {
                        l.late.incrementAndGet();
                        l.lastAnswer.set(System.currentTimeMillis());
                        break;
                    }
                    l.errors.incrementAndGet();
                    retried = true;
                    if (ClusterIT.isUserError(ex) || System.currentTimeMillis() > deadline) {
                        mismatches.add(l.stream + " id " + id + (late ? " (late)" : "") + " never answered as "
                                + (rejected ? "rejected" : "accepted") + ": " + ex.getSQLState() + " "
                                + ex.getMessage());
                        running.set(false);
                        return;
                    }
                    try {
                        if (conn != null && !conn.isValid(2)) {
                            conn.close();
                            conn = null;
                            node = (node + 1) % nodes.size(); // its node is gone: another one
                        }
                        Thread.sleep(100);
                    } catch (SQLException ignored) {
                        conn = null;
                        node = (node + 1) % nodes.size();
                    }
                }
            }
            next += 1000 / RATE;
            Thread.sleep(Math.max(0, next - System.currentTimeMillis()));
        }
        if (conn != null) {
            conn.close();
        }
    }

    private static long sum(WindowEvents<Event> w) {
        Object s = w.aggregate(Aggregation.SUM, e -> e.amount());
        return s == null ? 0 : ((Number) s).longValue();
    }

    /** The event's RETURNING values: card's 90-minute n and total, its 30-minute n, merchant's n and total. */
    private static Object[] insert(Connection conn, Late l, long id, long timeMicros, String card, String merchant,
            long amount) throws SQLException {
        try (PreparedStatement ps = conn.prepareStatement("INSERT INTO " + l.stream + " VALUES (?, ?, ?, ?, ?) "
                + "RETURNING *")) {
            ps.setLong(1, id);
            ps.setTimestamp(2, new Timestamp(timeMicros / 1000));
            ps.setString(3, card);
            ps.setString(4, merchant);
            ps.setDouble(5, amount);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    throw new AssertionError(l.stream + " id " + id + ": INSERT … RETURNING answered no row");
                }
                return new Object[] {rs.getObject(l.metric("c90") + "_n"), rs.getObject(l.metric("c90") + "_total"),
                    rs.getObject(l.metric("c30") + "_n"), rs.getObject(l.metric("m90") + "_n"),
                    rs.getObject(l.metric("m90") + "_total")};
            }
        }
    }

    /**
     * The final state, read on every live node: each metric's every group at its task's stream time, as the brute
     * force says (nothing accepted lost, nothing counted twice, every partitioning the same events); the decider of
     * each stream was killed under load, and each stream met late events.
     */
    void assertFinalState() throws SQLException {
        for (Late l : streams.values()) {
            if (l.deciderKills.isEmpty() || l.late.get() < 5 || l.accepted.get() < 50) {
                mismatches.add(l.stream + ": decider's node killed " + l.deciderKills + ", " + l.late.get()
                        + " late events, " + l.accepted.get() + " accepted: too little was tried");
            }
        }
        for (String n : cluster.nodeIds().stream().filter(cluster::alive).toList()) {
            try (Connection conn = ClusterIT.connect(cluster.port(n)); Statement st = conn.createStatement()) {
                for (Late l : streams.values()) {
                    finalState(st, n, l, "c90", "card", l.card90, true);
                    finalState(st, n, l, "c30", "card", l.card30, false);
                    finalState(st, n, l, "m90", "merchant", l.merchant90, true);
                }
            }
        }
        for (Late l : streams.values()) {
            System.out.printf("ClusterIT: %s: %d events accepted, %d late ones %s, decider's node killed: %s; "
                    + "%d client errors (retried)%n", l.stream, l.accepted.get(), l.late.get(),
                    l.policy.equals("reject") ? "rejected" : "clamped", l.deciderKills, l.errors.get());
        }
    }

    private void finalState(Statement st, String node, Late l, String metric, String key, SpecOracle<Event> oracle,
            boolean total) throws SQLException {
        Map<String, long[]> read = new HashMap<>();
        try (ResultSet rs = st.executeQuery("SELECT " + key + ", n, " + (total ? "total" : "0") + ", stream_time FROM "
                + l.metric(metric))) {
            while (rs.next()) {
                read.put(rs.getString(1), new long[] {rs.getLong(2), (long) rs.getDouble(3),
                    rs.getTimestamp(4).getTime() * 1000});
            }
        }
        if (!read.keySet().equals(oracle.groups())) {
            mismatches.add(node + " " + l.metric(metric) + ": groups " + read.keySet() + ", expected "
                    + oracle.groups());
            return;
        }
        for (var e : read.entrySet()) {
            WindowEvents<Event> w = oracle.at(e.getKey(), e.getValue()[2]);
            if (e.getValue()[0] != w.count() || total && e.getValue()[1] != sum(w)) {
                mismatches.add(node + " " + l.metric(metric) + " " + e.getKey() + ": n=" + e.getValue()[0] + " total="
                        + e.getValue()[1] + ", expected n=" + w.count() + " total=" + sum(w));
            }
        }
    }
}
