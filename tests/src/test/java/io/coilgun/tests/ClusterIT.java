package io.coilgun.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.postgresql.core.BaseConnection;
import org.postgresql.core.QueryExecutorBase;

/**
 * The cluster for real: a 3-broker KRaft Kafka and 3 Coilgun nodes, each a process, running the paper's topology: a
 * stream partitioned by card, merchant and device (its decider and three partitioner topics) with a metric on each.
 * The stream is created partitioned by card alone and given 20,000 events; merchant is added under load (ALTER STREAM
 * … ADD PARTITION BY: the stream gains its decider, the card tasks hand it their history while every node's
 * statements wait; the node leading the new decider is killed with SIGKILL meanwhile, and restarts), then device
 * (filled from the decider's history); each one's metric is filled from the whole history.
 * DDL on one node; clients on every node insert at a steady rate (each card, merchant and device by one client, in
 * order, so every RETURNING row has one exact expected value: the key's count and sum so far); a failed statement is
 * retried with the same event id until it is accepted; one in 30 is two hours late (`late_events = 'drop'`, lateness
 * one hour) and must be dropped by every partitioning. Then a node is killed with SIGKILL (the one leading most of the
 * late-events deciders below, else the one leading the most tasks), restarts, then one is stopped with SIGTERM. Every
 * answered RETURNING row must be exact, and at the end each card's, merchant's and device's count and sum must be
 * exactly its accepted events: nothing lost, nothing counted twice, every partitioning the same events. Beside it,
 * from before that kill on, two streams with {@code late_events = 'reject'} and {@code 'clamp'} ({@link
 * LateEventsUnderFailover}) take late events under the same faults, and the node leading each one's decider is killed
 * with SIGKILL (the kill above when it leads it, one more otherwise: at most one more): every RETURNING row as the
 * brute force says for the decision, every node's final state too.
 */
@OwnProcesses
class ClusterIT {
    static final int CARDS = 48;
    /** Events copied in before the clients start: the history the card tasks hand their new decider. */
    static final int HISTORY = 10_000;
    static final int CLIENTS = 6;
    /** How long a node stands still (SIGSTOP): past its session (1 s), so the group fails it over. */
    static final long FREEZE_MS = 3_000;
    /** Events per second per client (6 clients: 240/s). */
    static final int RATE = 40;
    static final long T0 = Timestamp.valueOf("2026-11-25 00:00:00").getTime();
    /** The stream's tasks: its decider and 4 partitions of each of its 3 partitioner topics. */
    static final int TASKS = 1 + 3 * 4;
    /** The partitioners and their metrics' names. */
    static final String[][] KEYS = {{"card", "m"}, {"merchant", "mm"}, {"device", "md"}};

    @TempDir
    Path dir;

    final ClusterProcesses[] cluster = new ClusterProcesses[1];
    final Map<String, long[]> expected = new ConcurrentHashMap<>(); // card, merchant or device -> {count, sum}
    final AtomicLong ids = new AtomicLong();
    final AtomicBoolean running = new AtomicBoolean(true);
    final List<String> mismatches = Collections.synchronizedList(new ArrayList<>());
    /** Errors clients saw: time (ms), node, message. */
    final List<Object[]> errors = Collections.synchronizedList(new ArrayList<>());
    /** Completed inserts: completion time (ms), card. */
    final List<long[]> answered = Collections.synchronizedList(new ArrayList<>());
    final AtomicLong accepted = new AtomicLong();
    /** Events sent late on purpose (beyond the lateness), each answered as dropped. */
    final AtomicLong dropped = new AtomicLong();
    /** Per card: m_n - m2_n, the same on every answer once m2 started. */
    final Map<String, Long> m2Delta = new ConcurrentHashMap<>();
    final AtomicLong m2Checked = new AtomicLong();
    /**
     * How many partitioners' metrics run (m; mm on merchant, md on device, both added under load): their RETURNING
     * values are checked from then on.
     */
    final AtomicInteger liveKeys = new AtomicInteger(1);
    /** The node each client sends to now. */
    final String[] clientNodes = new String[CLIENTS];
    /** Raised to send every client back to its own node (client % 3) at its next statement. */
    final AtomicInteger spread = new AtomicInteger();
    /** The tasks of the cluster: the stream's, and from their creation on the late-events streams' too. */
    volatile int tasks = TASKS;

    @Test
    void killedAndStoppedNodesLoseAndDoubleCountNothing() throws Exception {
        long t0 = System.nanoTime();
        SecuredKafka secured = SecuredKafka.make(dir.resolve("secured"));
        try (ClusterProcesses c = new ClusterProcesses(dir, 3, secured.brokerOptions())) {
            phase(t0, "3 brokers up, requiring SASL/SCRAM over TLS");
            cluster[0] = c;
            c.nodeOptions(secured.nodeOptions());
            c.startNodes("n1", "n2", "n3");
            try (Connection conn = connect(c.port("n1")); Statement st = conn.createStatement()) {
                // merchant and device are added later, under load (ALTER STREAM … ADD PARTITION BY)
                st.execute("CREATE STREAM pay (id BIGINT, ts TIMESTAMP, card VARCHAR, merchant VARCHAR, device "
                        + "VARCHAR, amount DOUBLE) WITH (event_id = 'id', partition_by = 'card', "
                        + "partitions = 4, replicas = 2, lateness = '1 hour', late_events = 'drop', "
                        + "backfill_horizon = '1 day')");
                st.execute("CREATE METRIC m AS SELECT SUM(amount) AS total, COUNT(*) AS n FROM pay GROUP BY card "
                        + "OVER SLIDING 30 DAYS");
            }
            phase(t0, "3 nodes up, the stream and the metric made");
            // three checks that touch nothing of each other's, at once: each mostly waits for the cluster
            inParallel(() -> {
                sessionsOfEveryNodeSeenAndCanceledFromAnyNode(c.port("n1"), c.port("n2"));
                phase(t0, "n2's session listed and canceled from n1");
            }, () -> {
                aReadOnlyRoleOnEveryNode(c);
                phase(t0, "a read-only role checked on every node");
            }, () -> {
                secured.readmeExampleWithASink(c.port("n2"), c.bootstrap());
                secured.wrongCredentialsRefusedAndNoPasswordLogged(c, "n9");
                phase(t0, "the README's example and a sink on the secured Kafka; a wrong password refused");
            });
            for (String n : List.of("n2", "n3")) {
                try (Connection conn = connect(c.port(n)); Statement st = conn.createStatement()) {
                    assertEquals(3, count(st, "SELECT count(*) FROM coilgun.nodes"), n + " sees three nodes");
                    assertEquals(1, count(st, "SELECT count(*) FROM coilgun.metrics WHERE name = 'm'"),
                            n + " has the metric as soon as CREATE METRIC returned");
                }
            }
            for (int i = 0; i < CARDS; i++) {
                expected.put(card(i), new long[2]);
                expected.put(merchant(i), new long[2]);
            }
            for (int t = 0; t < CLIENTS; t++) {
                for (int d = 0; d < 3; d++) {
                    expected.put(device(t, d), new long[2]);
                }
            }
            copyHistory(c.port("n1"));
            phase(t0, HISTORY + " events copied in before the clients start");
            List<Thread> clients = new ArrayList<>();
            for (int t = 0; t < CLIENTS; t++) {
                int client = t;
                Thread th = new Thread(() -> {
                    try {
                        client(client);
                    } catch (Throwable e) { // a client that dies fails the test at once, with why
                        mismatches.add("client " + client + " died: " + e);
                        running.set(false);
                    }
                }, "client-" + t);
                th.start();
                clients.add(th);
            }
            phase(t0, "the clients started");
            awaitEveryCardAnsweredAfter(0);
            phase(t0, "every card answered once");
            String first = addMerchantKillingTheNewDecider(c);
            phase(t0, "merchant added (the stream has its decider; " + first + " killed meanwhile, back)");
            addDeviceAndTheMetrics(c, first);
            phase(t0, "device added, merchant and device filled, their metrics filled from history");
            awaitSettled(c, null); // the young cluster's moves are over: nothing fails over meanwhile
            phase(t0, "settled");
            subscriptionSeesEveryNodesTasks(c.port("n2"));
            phase(t0, "subscription checked");
            everyNodeServesItsOwnTasksMetrics(c);
            phase(t0, "every node's metrics checked");
            // a metric created while events flow starts at the same offset on every copy of a task (its start
            // marker): after each failover below the promoted replica's m2 goes on exactly where the active's was
            try (Connection conn = connect(c.port("n3")); Statement st = conn.createStatement()) {
                st.execute("CREATE METRIC m2 AS SELECT COUNT(*) AS n FROM pay GROUP BY card OVER SLIDING 30 DAYS");
            }

            phase(t0, "m2 made");

            // the late-events streams (reject, clamp) and their clients, under load from here on
            LateEventsUnderFailover late = new LateEventsUnderFailover(c, running, mismatches);
            late.create(c.port("n2"));
            tasks = TASKS + LateEventsUnderFailover.TASKS;
            late.start();
            awaitSettled(c, null);
            late.awaitAnsweredAfter(System.currentTimeMillis());
            phase(t0, "the late-events streams made, their clients started, settled");

            // the node leading most of the late-events deciders, so that this kill counts for them (one more kill
            // at most, when the two lead on two nodes), else the node leading the most tasks
            Map<String, String> deciders = late.deciders();
            String leadingDeciders = late.nextVictim(deciders);
            String second = leadingDeciders != null && !leadingDeciders.equals(first) ? leadingDeciders
                    : leadingMost(c, first);
            // a SUBSCRIBE on another node, open across the kill: the dead node's tasks' events come on from the
            // replicas that take over, none missed, none repeated
            String watcher = c.nodeIds().stream().filter(n -> !n.equals(second)).findFirst().orElseThrow();
            HeldSubscription held = new HeldSubscription(c.port(watcher));
            held.awaitEveryCardSince(0);
            long kill2 = System.currentTimeMillis();
            c.kill(second);
            late.killed(second, deciders);
            long failover2 = awaitEveryCardAnsweredAfter(kill2);
            late.awaitAnsweredAfter(kill2);
            System.out.printf("ClusterIT: killed %s at %s after %s rejoined; every card answered again after %d ms%n",
                    second, java.time.Instant.ofEpochMilli(kill2), first, failover2);
            held.awaitEveryCardSince(kill2);
            held.close();
            held.assertEveryCardOnceInOrder(kill2);
            c.startNode(second);
            phase(t0, second + " up again");
            awaitSettled(c, second);
            phase(t0, "settled");
            // the late-events deciders that node did not lead: kill -9 of their node under load, too
            while (!late.deciderNotKilled().isEmpty() && running.get()) {
                Map<String, String> led = late.deciders();
                String victim = late.nextVictim(led);
                assertTrue(victim != null, "a node leads each late-events decider: " + led);
                long kill = System.currentTimeMillis();
                c.kill(victim);
                late.killed(victim, led);
                awaitEveryCardAnsweredAfter(kill);
                late.awaitAnsweredAfter(kill);
                c.startNode(victim);
                awaitSettled(c, victim);
                phase(t0, victim + " (leading a late-events decider) killed, up again, settled");
            }

            // a false failover: a node stands still (SIGSTOP) past its session, as in a long GC pause; its tasks
            // fail over to their replicas while it cannot know, and when it goes on its lease has run out, so it
            // answers nothing as their active before it learns it is one no more (every RETURNING row stays exact)
            String frozen = leadingMost(c, null);
            spread.incrementAndGet(); // each client back to its own node (the kills moved them)
            awaitEveryCardAnsweredAfter(System.currentTimeMillis());
            int waitedBefore = occurrences(c.log(frozen), LEASE_RAN_OUT);
            long freeze = System.currentTimeMillis();
            Thread freezer = new Thread(() -> {
                try {
                    c.freeze(frozen, FREEZE_MS);
                } catch (Exception e) {
                    mismatches.add("freezing " + frozen + " failed: " + e);
                }
            });
            freezer.start();
            long failover3 = awaitEveryCardAnsweredAfter(freeze, client -> !frozen.equals(clientNodes[client]));
            freezer.join();
            System.out.printf("ClusterIT: froze %s for %d ms at %s; the other nodes' clients had every card answered "
                    + "again after %d ms%n", frozen, FREEZE_MS, java.time.Instant.ofEpochMilli(freeze), failover3);
            awaitEveryCardAnsweredAfter(System.currentTimeMillis());
            awaitSettled(c, frozen);
            phase(t0, frozen + " went on after " + FREEZE_MS + " ms (" + (occurrences(c.log(frozen), LEASE_RAN_OUT)
                    > waitedBefore ? "its lease had run out: its active tasks' records waited" : "no records for its "
                    + "active tasks before it learnt it lost them") + "), settled");

            String third = leadingMost(c, null);
            int errorsBefore = errors.size();
            long stop = System.currentTimeMillis();
            c.stop(third);
            long moved = awaitEveryCardAnsweredAfter(System.currentTimeMillis());
            Thread.sleep(3_000);
            List<Object[]> stopErrors;
            synchronized (errors) {
                stopErrors = errors.subList(errorsBefore, errors.size()).stream()
                        .filter(e -> !third.equals(e[1])).toList();
            }
            System.out.printf("ClusterIT: stopped %s with SIGTERM in %d ms; every card answered after %d ms%n", third,
                    System.currentTimeMillis() - stop, moved);

            running.set(false);
            for (Thread th : clients) {
                th.join(120_000);
            }
            late.join();
            phase(t0, "clients stopped");
            assertEquals(List.of(), mismatches, "every RETURNING row is exact");
            late.assertFinalState();
            assertEquals(List.of(), mismatches, "the late-events streams' final state on every node");
            assertEquals(List.of(), stopErrors.stream().map(e -> e[1] + ": " + e[2]).toList(),
                    "a graceful stop gives the clients of the other nodes no error");

            // the final state, read through each key's task: one more event per card counts all before it once
            String live = c.nodeIds().stream().filter(c::alive).findFirst().orElseThrow();
            long total = 0;
            try (Connection conn = connect(c.port(live))) {
                for (int i = 0; i < CARDS; i++) {
                    String[] keys = {card(i), merchant(i), device(i % CLIENTS, i % 3)};
                    total += expected.get(keys[0])[0];
                    long id = ids.incrementAndGet();
                    Object[] row = insert(conn, id, T0 + id, keys, 1.0);
                    for (int k = 0; k < KEYS.length; k++) {
                        long[] e = expected.get(keys[k]);
                        e[0]++;
                        e[1]++;
                        assertEquals(e[0], ((Number) row[2 * k + 1]).longValue(), keys[k] + ": count of accepted "
                                + "events");
                        assertEquals(e[1], ((Number) row[2 * k]).doubleValue(), 0.0, keys[k] + ": sum of accepted "
                                + "amounts");
                    }
                }
            }
            assertEquals(accepted.get(), total);
            // every live node reads every task's state, wherever it runs: all groups, and each by a point read (the
            // nodes at once)
            long finalTotal = total;
            List<Check> reads = new ArrayList<>();
            for (String n : c.nodeIds().stream().filter(c::alive).toList()) {
                reads.add(() -> everyGroupReadOn(c, n, finalTotal));
            }
            inParallel(reads.toArray(Check[]::new));
            phase(t0, "every node read every group");
            System.out.printf("ClusterIT: %d events accepted, 0 lost, 0 counted twice; %d dropped as late by every "
                    + "partitioning; %d client errors (retried)%n", total, dropped.get(), errors.size());
            assertTrue(dropped.get() > 10, "late events were sent: " + dropped.get());
            // each client has one statement in flight: its rate is bound by the latency of an event's four tasks
            // and their replicas on one 2-core machine with 3 brokers and 3 nodes (about 50 events/s in all)
            assertTrue(total > 2_000, "a steady load ran: " + total);
            assertEquals(CARDS, m2Delta.size(), "m2 was checked on every card");
            System.out.printf("ClusterIT: m2 (created under load) agreed with m on %d answers across the failovers%n",
                    m2Checked.get());
        }
    }

    /**
     * Node {@code n} reads every task's state, wherever it runs: every card's count and total as {@link #expected}
     * has them, by a scan and by a point read each, and the merchants' and devices' counts, which add up to
     * {@code total} plus one event per card.
     */
    private void everyGroupReadOn(ClusterProcesses c, String n, long total) throws Exception {
        try (Connection conn = connect(c.port(n)); Statement st = conn.createStatement()) {

            Map<String, long[]> read = new HashMap<>();
            try (ResultSet rs = st.executeQuery("SELECT * FROM m")) {
                while (rs.next()) {
                    read.put(rs.getString("card"), new long[] {rs.getLong("n"), (long) rs.getDouble("total")});
                }
            }
            assertEquals(CARDS, read.size(), n + ": SELECT * FROM m has every card");
            for (int i = 0; i < CARDS; i++) {
                long[] e = expected.get(card(i));
                assertEquals(e[0], read.get(card(i))[0], n + " " + card(i) + ": n");
                assertEquals(e[1], read.get(card(i))[1], n + " " + card(i) + ": total");
                try (ResultSet rs = st.executeQuery("SELECT n FROM m WHERE card = '" + card(i) + "'")) {
                    assertTrue(rs.next(), n + ": point read of " + card(i));
                    assertEquals(e[0], rs.getLong(1), n + ": point read of " + card(i));
                }
            }
            // every partitioning counted the same events: the merchants' and devices' counts, each exact
            for (String[] k : new String[][] {KEYS[1], KEYS[2]}) {
                try (ResultSet rs = st.executeQuery("SELECT " + k[0] + ", n, total FROM " + k[1])) {
                    long sum = 0;
                    while (rs.next()) {
                        long[] e = expected.get(rs.getString(1));
                        assertEquals(e[0], rs.getLong(2), n + " " + rs.getString(1) + ": n");
                        assertEquals(e[1], (long) rs.getDouble(3), n + " " + rs.getString(1) + ": total");
                        sum += rs.getLong(2);
                    }
                    assertEquals(total + CARDS, sum, n + ": the count over every " + k[0]);
                }
            }
            assertEquals(CARDS, count(st, "SELECT count(DISTINCT card) FROM pay"),
                    n + ": SELECT over the stream reads every task");
        }
    }

    /**
     * Scraping a cluster (issue 19): each node's /metrics has the series of the tasks it holds and no other; each
     * copy of each task is on one node, each task's active on one; every node's status lists the three nodes and
     * every task.
     */
    private void everyNodeServesItsOwnTasksMetrics(ClusterProcesses c) throws Exception {
        java.util.Map<String, Integer> copies = new java.util.TreeMap<>();
        double actives = 0;
        for (String n : List.of("n1", "n2", "n3")) {
            String base = "http://127.0.0.1:" + c.httpPort(n);
            com.fasterxml.jackson.databind.JsonNode s = new com.fasterxml.jackson.databind.ObjectMapper()
                    .readTree(ObservabilityIT.get(base + "/status.json", null).body());
            assertEquals(3, s.path("nodes").size(), n + ": " + s);
            assertEquals(TASKS, s.path("tasks").size(), n + ": " + s);
            java.util.Set<String> held = new java.util.TreeSet<>();
            s.path("local_tasks").forEach(t -> held.add(t.path("task").asText()));
            String metrics = ObservabilityIT.get(base + "/metrics", null).body();
            java.util.Set<String> served = new java.util.TreeSet<>();
            java.util.regex.Matcher t = java.util.regex.Pattern.compile("task=\"([^\"]+)\"").matcher(metrics);
            while (t.find()) {
                served.add(t.group(1));
            }
            // a task moving at this moment may be in one and not the other: they agree but for it
            java.util.Set<String> diff = new java.util.TreeSet<>(held);
            diff.removeAll(served);
            assertTrue(diff.size() <= 1, n + " holds " + held + " but serves the series of " + served);
            assertTrue(metrics.contains("node=\"" + n + "\""), n);
            held.forEach(id -> copies.merge(id, 1, Integer::sum));
            actives += ObservabilityIT.sum(metrics, "coilgun_task_active");
        }
        assertEquals(TASKS, copies.size(), "every task is held somewhere: " + copies);
        assertEquals(TASKS, actives, 1, "each task is active on one node");
    }

    /**
     * A SUBSCRIBE on one node sees the events of every task, led by any node, each card's in order with no gap or
     * repeat (nothing fails over meanwhile).
     */
    private void subscriptionSeesEveryNodesTasks(int port) throws Exception {
        Map<String, List<Long>> seen = new HashMap<>();
        try (Connection reader = connect(port)) {
            reader.setAutoCommit(false);
            Statement subscribe = reader.createStatement();
            subscribe.setFetchSize(1);
            try (ResultSet rs = subscribe.executeQuery("SUBSCRIBE m")) {
                // 4 s of rows at least, and on until every card was seen: a client whose INSERTs wait while a task
                // moves (the cluster is young) may not send a card's event in the first 4 s (CI saw 47 of 48)
                long begin = System.currentTimeMillis();
                while ((System.currentTimeMillis() < begin + 4_000
                        || seen.size() < CARDS && System.currentTimeMillis() < begin + 30_000) && rs.next()) {
                    seen.computeIfAbsent(rs.getString("card"), k -> new ArrayList<>()).add(rs.getLong("m_n"));
                }
            }
            subscribe.cancel();
        } catch (SQLException e) {
            // the connection closes under the open SUBSCRIBE: its end, not a failure
            if (seen.isEmpty()) {
                throw e;
            }
        }
        assertEquals(CARDS, seen.size(), "the subscription sees every card's task: " + seen.keySet());
        for (var e : seen.entrySet()) {
            List<Long> counts = e.getValue();
            for (int i = 1; i < counts.size(); i++) {
                assertEquals(counts.get(i - 1) + 1, counts.get(i), e.getKey() + ": in order, no gap: " + counts);
            }
        }
        System.out.printf("ClusterIT: a SUBSCRIBE saw %d events of all %d cards%n",
                seen.values().stream().mapToInt(List::size).sum(), CARDS);
    }

    /** A SUBSCRIBE m held open on one node while something happens: the counts it saw, per card, in order. */
    private static final class HeldSubscription implements AutoCloseable {
        private final Map<String, List<long[]>> seen = new ConcurrentHashMap<>();
        private final Thread reader;
        private final CountDownLatch started = new CountDownLatch(1);
        private volatile boolean stop;
        private volatile Statement statement;
        private volatile Throwable failed;

        HeldSubscription(int port) throws InterruptedException {
            reader = new Thread(() -> {
                try (Connection conn = connect(port)) {
                    conn.setAutoCommit(false);
                    statement = conn.createStatement();
                    statement.setFetchSize(1);
                    try (ResultSet rs = statement.executeQuery("SUBSCRIBE m")) {
                        started.countDown();
                        while (!stop && rs.next()) {
                            seen.computeIfAbsent(rs.getString("card"), k -> Collections.synchronizedList(
                                    new ArrayList<>())).add(new long[] {rs.getLong("m_n"), System.currentTimeMillis()});
                        }
                    }
                } catch (Throwable t) {
                    if (!stop) {
                        failed = t;
                    }
                } finally {
                    started.countDown();
                }
            }, "held-subscription");
            reader.start();
            assertTrue(started.await(30, TimeUnit.SECONDS), "the SUBSCRIBE started");
        }

        /** Waits (up to 30 s) until the subscription saw an event of every card at or after {@code since}. */
        void awaitEveryCardSince(long since) throws InterruptedException {
            long deadline = System.currentTimeMillis() + 30_000;
            while (System.currentTimeMillis() < deadline && failed == null && seen.values().stream()
                    .filter(rows -> seenSince(rows, since)).count() < CARDS) {
                Thread.sleep(50);
            }
        }

        /** Whether a card's last row came at or after {@code since} (its list is put in the map before its row). */
        private static boolean seenSince(List<long[]> rows, long since) {
            synchronized (rows) {
                return !rows.isEmpty() && rows.get(rows.size() - 1)[1] >= since;
            }
        }

        @Override
        public void close() throws Exception {
            stop = true;
            reader.join(5_000);
            if (reader.isAlive() && statement != null) {
                statement.cancel();
                reader.join(10_000);
            }
        }

        /** Each card's counts went up by one per row: no event missed or repeated; most cards seen on both sides. */
        void assertEveryCardOnceInOrder(long at) {
            assertEquals(null, failed, "the subscription ran");
            int across = 0;
            for (var e : seen.entrySet()) {
                List<long[]> rows = List.copyOf(e.getValue());
                for (int i = 1; i < rows.size(); i++) {
                    assertEquals(rows.get(i - 1)[0] + 1, rows.get(i)[0], e.getKey() + ": in order, no gap, no repeat "
                            + "across the failover: " + rows.stream().map(r -> r[0]).toList());
                }
                if (rows.get(0)[1] < at && rows.get(rows.size() - 1)[1] > at) {
                    across++;
                }
            }
            assertTrue(across > CARDS * 3 / 4, "a subscription saw most cards before and after the kill: " + across);
            System.out.printf("ClusterIT: a SUBSCRIBE open across the kill saw %d events of %d cards, none missed "
                    + "or repeated%n", seen.values().stream().mapToInt(List::size).sum(), seen.size());
        }
    }

    static String card(int i) {
        return String.format("card-%03d", i);
    }

    /** The merchant of card {@code i}: two per client, so each merchant's events come from one client, in order. */
    static String merchant(int i) {
        return "merchant-" + i % CLIENTS + "-" + i / CLIENTS % 2;
    }

    /** A device of client {@code client}: three each. */
    static String device(int client, int d) {
        return "device-" + client + "-" + d;
    }

    /** One client: its cards in turn at RATE events/s, on its node, moving to another when its node is gone. */
    private void client(int client) {
        List<String> cards = new ArrayList<>();
        for (int i = client; i < CARDS; i += CLIENTS) {
            cards.add(card(i));
        }
        Random random = new Random(client);
        List<String> nodes = List.of("n1", "n2", "n3");
        int node = client % 3;
        Connection conn = null;
        long next = System.currentTimeMillis();
        int turn = 0;
        int spreadSeen = 0;
        while (running.get()) {
            String card = cards.get(turn++ % cards.size());
            String[] keys = {card, merchant(Integer.parseInt(card.substring(5))), device(client, random.nextInt(3))};
            long id = ids.incrementAndGet();
            double amount = 1 + random.nextInt(100);
            // one in 30 is two hours behind the stream time (its lateness is one): dropped, by every partitioning
            boolean late = turn > 10 && random.nextInt(30) == 0; // the stream has a stream time by then
            long time = T0 + id - (late ? 7_200_000L : 0);
            long deadline = System.currentTimeMillis() + 90_000;
            if (spreadSeen != spread.get()) {
                spreadSeen = spread.get();
                if (node != client % 3 && conn != null) {
                    try {
                        conn.close();
                    } catch (SQLException ignored) {
                        // reconnecting anyway
                    }
                    conn = null;
                }
                node = client % 3;
            }
            while (true) {
                String on = nodes.get(node);
                clientNodes[client] = on;
                try {
                    if (conn == null) {
                        conn = connect(cluster[0].port(on));
                    }
                    int checked = liveKeys.get(); // the metrics that ran when the statement was sent
                    Object[] row = insert(conn, id, time, keys, amount);
                    if (late) {
                        for (Object value : row) {
                            if (value != null) {
                                mismatches.add(card + " id " + id + ": a late event was applied: " + List.of(row));
                                break;
                            }
                        }
                        dropped.incrementAndGet();
                        answered.add(new long[] {System.currentTimeMillis(), cards.indexOf(card) * CLIENTS + client});
                        break;
                    }
                    if (row[1] != null) { // null: a duplicate of an earlier attempt that was applied
                        for (int k = 0; k < checked; k++) {
                            long[] e = expected.get(keys[k]);
                            if (row[2 * k + 1] == null || ((Number) row[2 * k + 1]).longValue() != e[0] + 1
                                    || ((Number) row[2 * k]).doubleValue() != e[1] + amount) {
                                mismatches.add(keys[k] + " id " + id + ": got n=" + row[2 * k + 1] + " total="
                                        + row[2 * k] + ", expected n=" + (e[0] + 1) + " total=" + (e[1] + amount));
                            }
                        }
                        if (row[6] != null) { // m2 counts the same events from its start: a constant difference
                            long delta = expected.get(card)[0] + 1 - ((Number) row[6]).longValue();
                            m2Checked.incrementAndGet();
                            Long before = m2Delta.putIfAbsent(card, delta);
                            if (before != null && before != delta) {
                                mismatches.add(card + " id " + id + ": m2_n=" + row[6] + " moved against m_n="
                                        + row[1] + " (difference " + delta + ", before " + before + ")");
                            }
                        }
                    }
                    for (String key : keys) {
                        expected.get(key)[0]++;
                        expected.get(key)[1] += (long) amount;
                    }
                    accepted.incrementAndGet();
                    answered.add(new long[] {System.currentTimeMillis(), cards.indexOf(card) * CLIENTS + client});
                    break;
                } catch (SQLException ex) {
                    errors.add(new Object[] {System.currentTimeMillis(), on, ex.getSQLState() + " " + ex.getMessage()});
                    if (isUserError(ex) || System.currentTimeMillis() > deadline) {
                        mismatches.add(card + " id " + id + " never accepted: " + ex.getMessage());
                        running.set(false);
                        return;
                    }
                    try {
                        if (conn != null && !conn.isValid(2)) {
                            conn.close();
                            conn = null;
                            node = (node + 1) % 3; // its node is gone: another one
                        }
                        Thread.sleep(100);
                    } catch (SQLException | InterruptedException ignored) {
                        conn = null;
                        node = (node + 1) % 3;
                    }
                }
            }
            next += 1000 / RATE;
            long wait = next - System.currentTimeMillis();
            if (wait > 0) {
                try {
                    Thread.sleep(wait);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }
        try {
            if (conn != null) {
                conn.close();
            }
        } catch (SQLException ignored) {
            // closing
        }
    }

    /**
     * Inserts one event of {@code keys} (card, merchant, device); its metric values {m's total, m's n, mm's total,
     * mm's n, md's total, md's n, m2's n}, null when it was a duplicate (NOTICE).
     */
    static Object[] insert(Connection conn, long id, long time, String[] keys, double amount) throws SQLException {
        try (PreparedStatement ps = conn.prepareStatement(
                "INSERT INTO pay VALUES (?, ?, ?, ?, ?, ?) RETURNING *")) {
            ps.setLong(1, id);
            ps.setTimestamp(2, new Timestamp(time));
            for (int k = 0; k < keys.length; k++) {
                ps.setString(3 + k, keys[k]);
            }
            ps.setDouble(6, amount);
            try (ResultSet rs = ps.executeQuery()) {
                assertTrue(rs.next(), "INSERT ... RETURNING answers one row");
                boolean m2 = false;
                for (int c = 1; c <= rs.getMetaData().getColumnCount(); c++) {
                    m2 |= rs.getMetaData().getColumnName(c).equals("m2_n");
                }
                Set<String> columns = new HashSet<>();
                for (int c = 1; c <= rs.getMetaData().getColumnCount(); c++) {
                    columns.add(rs.getMetaData().getColumnName(c));
                }
                Object[] row = new Object[7];
                for (int k = 0; k < KEYS.length; k++) {
                    if (columns.contains(KEYS[k][1] + "_n")) {
                        row[2 * k] = rs.getObject(KEYS[k][1] + "_total");
                        row[2 * k + 1] = rs.getObject(KEYS[k][1] + "_n");
                    }
                }
                row[6] = m2 ? rs.getObject("m2_n") : null;
                return row;
            }
        }
    }

    /**
     * The history the card tasks hold when the stream gains its decider: {@link #HISTORY} events of the clients' keys,
     * ending ten minutes before the clients' first (in order, well within the lateness), copied in through one node.
     */
    private void copyHistory(int port) throws Exception {
        Random random = new Random(99);
        StringBuilder data = new StringBuilder();
        for (int i = 0; i < HISTORY; i++) {
            int card = random.nextInt(CARDS);
            String[] keys = {card(card), merchant(card), device(card % CLIENTS, random.nextInt(3))};
            long id = ids.incrementAndGet();
            int amount = 1 + random.nextInt(100);
            Timestamp time = new Timestamp(T0 - 1_800_000 + i * 60L);
            data.append(id).append('\t').append(time).append('\t').append(String.join("\t", keys)).append('\t')
                    .append(amount).append('\n');
            for (String key : keys) {
                expected.get(key)[0]++;
                expected.get(key)[1] += amount;
            }
        }
        try (Connection conn = connect(port)) {
            long copied = conn.unwrap(org.postgresql.PGConnection.class).getCopyAPI().copyIn("COPY pay FROM STDIN",
                    new java.io.StringReader(data.toString()));
            assertEquals(HISTORY, copied);
        }
        accepted.addAndGet(HISTORY);
    }

    /**
     * ALTER STREAM … ADD PARTITION BY merchant while the clients insert: the stream gains its decider, whose leading
     * node is killed (SIGKILL) as soon as it has one, while the card tasks hand it their history (its replica takes
     * the merge over; the dead node's cut markers are written for it if it had not); the node comes back, and mm is
     * filled from the whole history. Returns the node killed.
     */
    private String addMerchantKillingTheNewDecider(ClusterProcesses c) throws Exception {
        CompletableFuture<Void> alter = CompletableFuture.runAsync(() -> {
            try (Connection conn = connect(c.port("n1")); Statement st = conn.createStatement()) {
                st.execute("ALTER STREAM pay ADD PARTITION BY merchant WITH (partitions = 4)");
            } catch (SQLException e) {
                errors.add(new Object[] {System.currentTimeMillis(), "n1", "ALTER: " + e.getMessage()});
            }
        });
        String victim = null;
        long deadline = System.currentTimeMillis() + 60_000;
        while (victim == null) {
            assertTrue(System.currentTimeMillis() < deadline, "the new decider is led by no node after 60 s");
            try (Connection conn = connect(c.port("n2")); Statement st = conn.createStatement();
                    ResultSet rs = st.executeQuery("SELECT node FROM coilgun.tasks WHERE task LIKE '%decide%' AND "
                            + "node IS NOT NULL")) {
                victim = rs.next() ? rs.getString(1) : null;
            }
            Thread.sleep(victim == null ? 20 : 0);
        }
        long kill = System.currentTimeMillis();
        c.kill(victim);
        alter.get(180, TimeUnit.SECONDS);
        System.out.printf("ClusterIT: killed %s (leading the new decider) while the stream gained it; the ALTER "
                + "answered %d ms after%n", victim, System.currentTimeMillis() - kill);
        c.startNode(victim);
        return victim;
    }

    /**
     * ALTER STREAM … ADD PARTITION BY device while the clients insert (the stream has its decider now), then, once
     * the decider filled merchant and device and the young tasks have their places (a decider moved soon after a
     * partitioner went live fills it again, its metrics NULL meanwhile), mm and md are created filled from the whole
     * history ({@code backfill = 'all'}); from the moment they run (and their replicas filled them too), every
     * RETURNING row must carry their exact values, through the kills below.
     */
    private void addDeviceAndTheMetrics(ClusterProcesses c, String restarted) throws Exception {
        String live = "n1".equals(restarted) ? "n2" : "n1";
        try (Connection conn = connect(c.port(live)); Statement st = conn.createStatement()) {
            st.execute("ALTER STREAM pay ADD PARTITION BY device WITH (partitions = 4)");
            awaitSettled(c, restarted);
            for (int k = 1; k < KEYS.length; k++) {
                AddPartitionerIT.createOnceFilled(st, "CREATE METRIC " + KEYS[k][1] + " AS SELECT SUM(amount) AS "
                        + "total, COUNT(*) AS n FROM pay GROUP BY " + KEYS[k][0] + " OVER SLIDING 30 DAYS WITH "
                        + "(backfill = 'all')");
            }
            for (int k = 1; k < KEYS.length; k++) {
                AddPartitionerIT.awaitRunning(st, KEYS[k][1]);
            }
            awaitReplicasFilled(st);
        }
        liveKeys.set(KEYS.length);
    }

    /**
     * Waits until no replica fills a metric from history any more (each copy fills its own): one promoted by a kill
     * below before it is done would answer NULL for it (docs/operations.md), which the exact RETURNING rows here
     * do not allow.
     */
    private static void awaitReplicasFilled(Statement st) throws Exception {
        long deadline = System.currentTimeMillis() + 120_000;
        while (count(st, "SELECT count(*) FROM coilgun.tasks WHERE replicas LIKE '%filling%'") > 0) {
            assertTrue(System.currentTimeMillis() < deadline, "replicas still filling after 120 s");
            Thread.sleep(200);
        }
    }

    /** What a unit logs when its lease ran out ({@code GroupLease}). */
    static final String LEASE_RAN_OUT = "no proof of its membership";

    private static int occurrences(String text, String what) {
        int n = 0;
        for (int i = text.indexOf(what); i >= 0; i = text.indexOf(what, i + 1)) {
            n++;
        }
        return n;
    }

    /** Waits until every card had an insert answered after {@code since}; how long after it the last one came. */
    private long awaitEveryCardAnsweredAfter(long since) throws InterruptedException {
        return awaitEveryCardAnsweredAfter(since, client -> true);
    }

    /** The same, for the cards of the clients {@code counted} (by number). */
    private long awaitEveryCardAnsweredAfter(long since, java.util.function.IntPredicate counted)
            throws InterruptedException {
        long deadline = System.currentTimeMillis() + 90_000;
        int cards = 0;
        for (int card = 0; card < CARDS; card++) {
            cards += counted.test(card % CLIENTS) ? 1 : 0;
        }
        while (System.currentTimeMillis() < deadline && running.get()) {
            Map<Long, Long> firstAfter = new HashMap<>();
            synchronized (answered) {
                for (long[] a : answered) {
                    if (a[0] > since && counted.test((int) (a[1] % CLIENTS))) {
                        firstAfter.merge(a[1], a[0], Math::min);
                    }
                }
            }
            if (firstAfter.size() == cards) {
                return firstAfter.values().stream().mapToLong(t -> t - since).max().orElse(0);
            }
            Thread.sleep(100);
        }
        throw new AssertionError("not every card was answered within 90 s of " + since + "; mismatches " + mismatches
                + "; last errors " + errors.subList(Math.max(0, errors.size() - 5), errors.size()).stream()
                        .map(e -> e[1] + ": " + e[2]).toList());
    }

    /** A check of the cluster that may throw. */
    @FunctionalInterface
    interface Check {
        void run() throws Exception;
    }

    /** Runs the checks at once, each on a thread of its own, and fails with the first that failed (after all end). */
    static void inParallel(Check... checks) throws Exception {
        List<CompletableFuture<Void>> running = new ArrayList<>();
        for (Check check : checks) {
            running.add(CompletableFuture.runAsync(() -> {
                try {
                    check.run();
                } catch (Exception e) {
                    throw new java.util.concurrent.CompletionException(e);
                }
            }, r -> new Thread(r, "ClusterIT-check").start()));
        }
        Throwable first = null;
        for (CompletableFuture<Void> f : running) {
            try {
                f.get(5, TimeUnit.MINUTES);
            } catch (java.util.concurrent.ExecutionException e) {
                Throwable cause = e.getCause() instanceof java.util.concurrent.CompletionException ce
                        && ce.getCause() != null ? ce.getCause() : e.getCause();
                if (first == null) {
                    first = cause;
                } else {
                    first.addSuppressed(cause);
                }
            }
        }
        if (first instanceof Exception e) {
            throw e;
        } else if (first instanceof Error e) {
            throw e;
        }
    }

    /** Where the test's time goes (it is the longest of the suite): the seconds since {@code t0}. */
    private void phase(long t0, String what) {
        System.out.printf(java.util.Locale.ROOT, "ClusterIT: +%.1f s (id %d) %s%n", (System.nanoTime() - t0) / 1e9,
                ids.get(), what);
    }

    /** The live node (other than {@code except}) leading the most tasks, per coilgun.tasks. */
    /**
     * Whether a statement failed for what it is (not supported, invalid, a bad value, a constraint), so that sending
     * it again cannot help; any other failure (a node gone, a timeout, a failover) a client retries with the same id.
     */
    static boolean isUserError(SQLException ex) {
        String state = ex.getSQLState() == null ? "" : ex.getSQLState();
        return state.startsWith("0A") || state.startsWith("42") || state.startsWith("22") || state.startsWith("23");
    }

    private static String leadingMost(ClusterProcesses c, String except) throws SQLException {
        String live = c.nodeIds().stream().filter(c::alive).findFirst().orElseThrow();
        try (Connection conn = connect(c.port(live)); Statement st = conn.createStatement();
                ResultSet rs = st.executeQuery("SELECT node, count(*) AS n FROM coilgun.tasks WHERE node IS NOT NULL "
                        + "GROUP BY node ORDER BY n DESC, node")) {
            while (rs.next()) {
                String node = rs.getString(1);
                if (!node.equals(except) && c.alive(node)) {
                    return node;
                }
            }
        }
        throw new AssertionError("no live node leads a task");
    }

    /**
     * Waits until the cluster settled (up to 30 s, then the test goes on as it is): every task running with its
     * replica running and within 100 events (2.5 s of a task's load), in two readings a second apart (the nodes'
     * statuses are a second old at most), and the node that {@code restarted} (when not null) holding copies again.
     * The next kill then meets a cluster at rest, not one in the middle of moves (the test slept 10 s for that).
     */
    private void awaitSettled(ClusterProcesses c, String restarted) throws Exception {
        awaitSettled(c, restarted, tasks);
    }

    private static final java.util.regex.Pattern COPY = java.util.regex.Pattern.compile("[\\w-]+/unit-\\d+");
    private static final java.util.regex.Pattern WARM = java.util.regex.Pattern.compile("\\(running, lag (\\d+) events");

    /**
     * Whether every copy of a task ({@code coilgun.tasks.replicas}) runs within 100 events of its partition's end
     * and fills no metric: a kill or a stop may then promote any of them without a metric answering NULL (a copy
     * still behind, or filling, re-fills a backfilled metric when promoted; docs/operations.md).
     */
    static boolean everyCopyWarm(String replicas) {
        long copies = COPY.matcher(replicas).results().count();
        long warm = WARM.matcher(replicas).results().filter(m -> Long.parseLong(m.group(1)) <= 100).count();
        return copies > 0 && warm == copies;
    }

    /** {@link #awaitSettled(ClusterProcesses, String)} with {@code expected} tasks in all. */
    private static void awaitSettled(ClusterProcesses c, String restarted, int expected) throws Exception {
        long deadline = System.currentTimeMillis() + 30_000;
        int calm = 0;
        String last = "";
        while (System.currentTimeMillis() < deadline && calm < 2) {
            String live = c.nodeIds().stream().filter(c::alive).filter(n -> !n.equals(restarted)).findFirst()
                    .orElseThrow();
            boolean settled = false;
            try (Connection conn = connect(c.port(live)); Statement st = conn.createStatement();
                    ResultSet rs = st.executeQuery("SELECT task, state, node, replicas FROM coilgun.tasks")) {
                int tasks = 0;
                int ready = 0;
                boolean holds = restarted == null;
                StringBuilder seen = new StringBuilder();
                while (rs.next()) {
                    tasks++;
                    String replicas = rs.getString(4) == null ? "" : rs.getString(4);
                    if ("running".equals(rs.getString(2)) && everyCopyWarm(replicas)) {
                        ready++;
                    }
                    holds |= restarted != null && (restarted.equals(rs.getString(3))
                            || replicas.contains(restarted + "/"));
                    seen.append(rs.getString(1)).append(": ").append(rs.getString(2)).append(" on ")
                            .append(rs.getString(3)).append(", ").append(replicas).append("; ");
                }
                settled = tasks == expected && ready == expected && holds;
                last = seen.toString();
            } catch (SQLException e) {
                // a node busy with a rebalance: look again
            }
            calm = settled ? calm + 1 : 0;
            Thread.sleep(calm == 1 ? 1000 : 250);
        }
        if (calm < 2) {
            System.out.println("ClusterIT: not settled after 30 s, going on: " + last);
        }
    }

    /**
     * Roles are the cluster's (issue 42): a role created and granted SELECT on one node reads the metric on every
     * node and can INSERT, DROP or ALTER nothing anywhere (42501, nothing changed); a REVOKE on one node holds on
     * another as soon as it returned, and so does the GRANT again.
     */
    private static void aReadOnlyRoleOnEveryNode(ClusterProcesses c) throws Exception {
        try (Connection conn = connect(c.port("n1")); Statement st = conn.createStatement()) {
            st.execute("CREATE ROLE viewer LOGIN");
            st.execute("GRANT SELECT ON m TO viewer");
        }
        for (String n : List.of("n1", "n2", "n3")) {
            try (Connection conn = connectAs(c.port(n), "viewer"); Statement st = conn.createStatement()) {
                count(st, "SELECT count(*) FROM m");
                for (String refused : List.of("INSERT INTO pay VALUES (1, TIMESTAMP '2026-01-01 00:00:00', 'c', "
                        + "'m', 'd', 1.0)", "DROP METRIC m", "ALTER STREAM pay ADD COLUMN note VARCHAR",
                        "CREATE METRIC mine AS SELECT COUNT(*) AS n FROM pay GROUP BY card OVER SLIDING 1 DAY",
                        "SELECT count(*) FROM pay")) {
                    SQLException e = org.junit.jupiter.api.Assertions.assertThrows(SQLException.class,
                            () -> st.execute(refused), n + ": " + refused);
                    assertEquals("42501", e.getSQLState(), n + ": " + refused + ": " + e.getMessage());
                }
            }
            try (Connection conn = connect(c.port(n)); Statement st = conn.createStatement()) {
                assertEquals(1, count(st, "SELECT count(*) FROM coilgun.metrics WHERE name = 'm'"),
                        n + ": nothing changed");
                assertEquals(0, count(st, "SELECT count(*) FROM coilgun.metrics WHERE name = 'mine'"));
            }
        }
        try (Connection conn = connect(c.port("n2")); Statement st = conn.createStatement()) {
            st.execute("REVOKE SELECT ON m FROM viewer");
            assertEquals(1, count(st, "SELECT count(*) FROM coilgun.metrics WHERE name = 'm'"));
        }
        try (Connection conn = connectAs(c.port("n3"), "viewer"); Statement st = conn.createStatement()) {
            SQLException e = org.junit.jupiter.api.Assertions.assertThrows(SQLException.class,
                    () -> count(st, "SELECT count(*) FROM m"));
            assertEquals("42501", e.getSQLState(), "n3 enforces the REVOKE made on n2 once it returned");
        }
        try (Connection conn = connect(c.port("n3")); Statement st = conn.createStatement()) {
            st.execute("GRANT SELECT ON m TO viewer");
        }
        try (Connection conn = connectAs(c.port("n1"), "viewer"); Statement st = conn.createStatement()) {
            count(st, "SELECT count(*) FROM m");
        }
    }

    static Connection connectAs(int port, String user) throws SQLException {
        return DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + port + "/coilgun?user=" + user
                + "&connectTimeout=10&socketTimeout=60");
    }

    /**
     * pg_stat_activity lists every node's sessions (its node column says where), and pg_cancel_backend cancels a
     * session on another node (issue 40).
     */
    static void sessionsOfEveryNodeSeenAndCanceledFromAnyNode(int port1, int port2) throws Exception {
        try (Connection on1 = connect(port1); Connection on2 = connect(port2); Statement st1 = on1.createStatement();
                Statement st2 = on2.createStatement()) {
            st2.execute("SET application_name = 'sleeper on n2'");
            int pid2 = (int) count(st2, "SELECT pg_backend_pid()");
            int pid1 = (int) count(st1, "SELECT pg_backend_pid()");
            assertTrue(pid1 >> 20 != pid2 >> 20, "each node gives pids from a slot of its own: " + pid1 + ", " + pid2);
            try (ResultSet rs = st1.executeQuery("SELECT node, application_name FROM pg_stat_activity WHERE pid = "
                    + pid2)) {
                assertTrue(rs.next(), "n2's session is listed on n1");
                assertEquals("n2", rs.getString(1));
                assertEquals("sleeper on n2", rs.getString(2));
            }
            CompletableFuture<SQLException> sleep = sleep(st2);
            boolean canceled = false;
            for (long deadline = System.nanoTime() + 10_000_000_000L; !canceled && System.nanoTime() < deadline; ) {
                awaitActive(st1, pid2); // a cancel between statements cancels nothing
                canceled = count(st1, "SELECT CASE WHEN pg_cancel_backend(" + pid2 + ") THEN 1 ELSE 0 END") == 1;
            }
            assertTrue(canceled, "pg_cancel_backend on n1 found n2's session");
            SQLException e = sleep.get(10, TimeUnit.SECONDS);
            assertEquals("57014", e == null ? null : e.getSQLState());
            // a CancelRequest for n2's session sent to n1, as a load balancer in front of the nodes may: n1 hands
            // it on, n2 checks its secret
            byte[] secret = cancelKey(on2);
            sleep = sleep(st2);
            try (Connection balanced = connect(port1)) {
                QueryExecutorBase via = (QueryExecutorBase) ((BaseConnection) balanced).getQueryExecutor();
                via.setBackendKeyData(pid2, secret);
                awaitActive(st1, pid2);
                via.sendQueryCancel();
            }
            e = sleep.get(10, TimeUnit.SECONDS);
            assertEquals("57014", e == null ? null : e.getSQLState(), "a CancelRequest through n1");
        }
    }

    /** {@code SELECT pg_sleep(30)} on {@code st}, run meanwhile: its error, or null. */
    private static CompletableFuture<SQLException> sleep(Statement st) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                st.execute("SELECT pg_sleep(30)");
                return null;
            } catch (SQLException e) {
                return e;
            }
        });
    }

    /** Until the session {@code pid} runs a statement, as pg_stat_activity on {@code st}'s node shows it. */
    private static void awaitActive(Statement st, int pid) throws Exception {
        for (long deadline = System.nanoTime() + 10_000_000_000L; System.nanoTime() < deadline; ) {
            Thread.sleep(200);
            try (ResultSet rs = st.executeQuery("SELECT state FROM pg_stat_activity WHERE pid = " + pid)) {
                if (rs.next() && rs.getString(1).equals("active")) {
                    return;
                }
            }
        }
    }

    /** The secret key of a pgjdbc connection's BackendKeyData (pgjdbc keeps it to itself). */
    private static byte[] cancelKey(Connection c) throws Exception {
        java.lang.reflect.Field key = QueryExecutorBase.class.getDeclaredField("cancelKey");
        key.setAccessible(true);
        return (byte[]) key.get(((BaseConnection) c).getQueryExecutor());
    }

    static long count(Statement st, String sql) throws SQLException {
        try (ResultSet rs = st.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    static Connection connect(int port) throws SQLException {
        return DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + port
                + "/coilgun?user=tester&connectTimeout=10&socketTimeout=60&tcpKeepAlive=true");
    }
}
