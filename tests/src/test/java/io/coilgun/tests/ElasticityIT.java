package io.coilgun.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Elasticity for real (a KRaft broker and nodes as processes): peer recovery, nodes joining and draining under load,
 * replicas added online, a rolling restart. A task's history that Kafka no longer holds (its records deleted, as
 * retention shorter than the window would) is copied from the node that has it and goes on exactly; where no copy
 * survives anywhere, the task says so and stops, loudly, instead of starting an empty window.
 */
@OwnProcesses
class ElasticityIT {
    static final int CARDS = 40;
    static final String TOPIC = "coilgun.stream.pay.card";
    static final long T0 = Timestamp.valueOf("2026-11-25 00:00:00").getTime();

    @TempDir
    Path dir;

    final Map<String, long[]> expected = new HashMap<>(); // card -> {count, sum}
    long nextId;

    @Test
    void aJoiningNodeCopiesWhatKafkaNoLongerHolds() throws Exception {
        try (ClusterProcesses c = new ClusterProcesses(dir, 1)) {
            c.startNode("n1");
            try (Connection conn = connect(c.port("n1")); Statement st = conn.createStatement()) {
                st.execute("CREATE STREAM pay (id BIGINT, ts TIMESTAMP, card VARCHAR, amount DOUBLE) WITH (event_id = "
                        + "'id', partition_by = 'card', partitions = 4, lateness = '1 hour')");
                st.execute("CREATE METRIC m AS SELECT SUM(amount) AS total, COUNT(*) AS n FROM pay GROUP BY card "
                        + "OVER SLIDING 30 DAYS");
                insert(conn, 3000);
            }
            deleteHistory(c.bootstrap()); // Kafka keeps none of those events now: only n1 has them

            // n2 joins under a steady load on n1: the tasks it takes are warmed up there first (a copy from n1,
            // then Kafka) and only then move, so no statement fails and none waits long
            Load load = new Load(c.port("n1"), 50);
            load.start();
            c.startNode("n2");
            awaitRunningOn(c, List.of("n1", "n2"));
            Thread.sleep(2000);
            load.stop();
            System.out.println("ElasticityIT: during n2's join " + load.summary());
            assertEquals(List.of(), load.failures, "no statement failed while n2 joined");
            assertTrue(load.done > 100, "the load ran: " + load.summary());
            assertTrue(c.log("n2").contains("copied from node n1"), "n2 copied its tasks from n1:\n"
                    + ClusterProcesses.tail(c.log("n2")));
            for (String n : List.of("n1", "n2")) {
                checkAll(c.port(n), n + " after n2 joined");
            }
            try (Connection conn = connect(c.port("n2"))) {
                insert(conn, 1000); // every RETURNING row exact: the copies go on as the originals would
            }
            checkAll(c.port("n1"), "n1 after more events");

            // Kafka loses the history again, and n2 stops (SIGTERM): it drains first, its tasks warmed up on n1
            // (copied from n2) before it leaves, so nothing is lost
            deleteHistory(c.bootstrap());
            c.stop("n2");
            assertTrue(c.log("n2").contains("drained in"), "n2 drained:\n" + ClusterProcesses.tail(c.log("n2")));
            awaitRunningOn(c, List.of("n1"));
            checkAll(c.port("n1"), "n1 after n2 left");

            // Kafka loses the history again; a third node joins and copies from n1; then n1 dies: the tasks only n1
            // had cannot go on anywhere, and say so
            try (Connection conn = connect(c.port("n1"))) {
                insert(conn, 500);
            }
            deleteHistory(c.bootstrap());
            c.startNode("n3");
            awaitRunningOn(c, List.of("n1", "n3"));
            checkAll(c.port("n3"), "n3 after it joined");
            // more events, and Kafka loses them too: a copy n3 may still keep of a task it warmed up but did not take
            // (the assignment settling) ends before what Kafka keeps now, so only n1 can go on with n1's tasks
            try (Connection conn = connect(c.port("n3")); Statement st = conn.createStatement()) {
                long deadline = System.currentTimeMillis() + 60_000;
                while (count(st, "SELECT count(*) FROM coilgun.tasks WHERE replicas <> ''") > 0
                        && System.currentTimeMillis() < deadline) {
                    Thread.sleep(500); // a warm-up replica still placed: the assignment has not settled yet
                }
                insert(conn, 200);
            }
            deleteHistory(c.bootstrap());
            c.kill("n1");
            try (Connection conn = connect(c.port("n3")); Statement st = conn.createStatement()) {
                long deadline = System.currentTimeMillis() + 60_000;
                Map<String, String> states = Map.of();
                while (System.currentTimeMillis() < deadline) {
                    states = states(st);
                    if (states.values().stream().filter(s -> s.startsWith("failed")).count() == 2
                            && states.values().stream().filter(s -> s.startsWith("running")).count() == 2) {
                        break;
                    }
                    Thread.sleep(500);
                }
                assertEquals(2, states.values().stream().filter(s -> s.startsWith("failed") && s.contains("history is "
                        + "lost")).count(), "the tasks only n1 had say their history is lost: " + states);
                assertEquals(2, states.values().stream().filter(s -> s.startsWith("running")).count(), "" + states);
            }
        }
    }

    /**
     * ALTER STREAM … SET (replicas = 2) adds a replica of every task online (copied from the active); then Kafka
     * loses the history and the node leading the most tasks dies: every task goes on, exactly, on its replica.
     */
    @Test
    void replicasAddedOnlineKeepTheHistory() throws Exception {
        try (ClusterProcesses c = new ClusterProcesses(dir, 1)) {
            c.startNodes("n1", "n2");
            try (Connection conn = connect(c.port("n1")); Statement st = conn.createStatement()) {
                st.execute("CREATE STREAM pay (id BIGINT, ts TIMESTAMP, card VARCHAR, amount DOUBLE) WITH (event_id = "
                        + "'id', partition_by = 'card', partitions = 4, lateness = '1 hour')");
                st.execute("CREATE METRIC m AS SELECT SUM(amount) AS total, COUNT(*) AS n FROM pay GROUP BY card "
                        + "OVER SLIDING 30 DAYS");
                insert(conn, 1500);
                st.execute("ALTER STREAM pay SET (replicas = 2)");
                assertEquals(2, count(st, "SELECT replicas FROM coilgun.streams WHERE name = 'pay'"));
                long deadline = System.currentTimeMillis() + 90_000;
                long replicated = 0;
                while (System.currentTimeMillis() < deadline) {
                    replicated = count(st, "SELECT count(*) FROM coilgun.tasks WHERE replicas LIKE '%(running, lag%'");
                    if (replicated == 4) {
                        break;
                    }
                    Thread.sleep(500);
                }
                assertEquals(4, replicated, "every task has a running replica");
                insert(conn, 300);
            }
            deleteHistory(c.bootstrap());
            c.kill("n1");
            awaitRunningOn(c, List.of("n2"));
            checkAll(c.port("n2"), "n2 after n1 died");
            try (Connection conn = connect(c.port("n2"))) {
                insert(conn, 200);
            }
        }
    }

    /**
     * A rolling restart of a 3-node cluster (replicas = 2) under steady load: each node in turn drains (SIGTERM) and
     * restarts, its tasks handed over and back replica first, the load moved off it first. No statement fails, every
     * RETURNING row is exact, and at the end every card's count and sum are its events'.
     */
    @Test
    void aRollingRestartUnderLoadLosesNothing() throws Exception {
        try (ClusterProcesses c = new ClusterProcesses(dir, 1)) {
            List<String> nodes = List.of("n1", "n2", "n3");
            c.startNodes(nodes.toArray(String[]::new));
            try (Connection conn = connect(c.port("n1")); Statement st = conn.createStatement()) {
                st.execute("CREATE STREAM pay (id BIGINT, ts TIMESTAMP, card VARCHAR, amount DOUBLE) WITH (event_id = "
                        + "'id', partition_by = 'card', partitions = 4, replicas = 2, lateness = '1 hour')");
                st.execute("CREATE METRIC m AS SELECT SUM(amount) AS total, COUNT(*) AS n FROM pay GROUP BY card "
                        + "OVER SLIDING 30 DAYS");
                insert(conn, 500);
            }
            awaitAllRunning(c, "n1");
            Load load = new Load(c.port("n1"), 40);
            load.start();
            for (String n : nodes) {
                String other = nodes.get((nodes.indexOf(n) + 1) % nodes.size());
                load.moveTo(c.port(other));
                Thread.sleep(500);
                load.mark("stop " + n);
                c.stop(n);
                assertTrue(c.log(n).contains("drained in"), n + " drained");
                load.mark("start " + n);
                c.startNode(n);
                load.mark(n + " up");
                awaitAllRunning(c, n);
                load.mark("all running");
            }
            Thread.sleep(2000);
            load.stop();
            System.out.println("ElasticityIT: during the rolling restart " + load.summary());
            assertEquals(List.of(), load.failures, "no statement failed during the rolling restart");
            assertTrue(load.done > 200, load.summary());
            for (String n : nodes) {
                checkAll(c.port(n), n + " after the rolling restart");
            }
        }
    }

    /**
     * The node a joining node copies a task from dies (kill -9) in the middle of the copy, slowed down by the sources'
     * rate limit: the copy goes on from the other node holding the task, and every task runs exactly. The nodes copy
     * over HTTPS (a self-signed certificate for 127.0.0.1, each node trusting it with --tls-ca) and prove the cluster
     * secret (issue 42); a node started with another secret is refused by its peers.
     */
    @Test
    void aCopyWhoseSourceDiesGoesOnFromAnotherPeer() throws Exception {
        try (ClusterProcesses c = new ClusterProcesses(dir, 1)) {
            String slow = "0.02"; // MiB/s: a task's copy takes seconds
            String[] secured = peerTls(dir.resolve("tls"), "the-secret-of-this-test-cluster");
            c.startNode("n1", with(secured, "--recovery-mb-per-second", slow));
            c.startNode("n2", with(secured, "--recovery-mb-per-second", slow));
            assertTrue(c.log("n1").contains("peer snapshot server on https://"), "n1 serves its snapshots over TLS");
            try (Connection conn = connect(c.port("n1")); Statement st = conn.createStatement()) {
                st.execute("CREATE STREAM pay (id BIGINT, ts TIMESTAMP, card VARCHAR, amount DOUBLE) WITH (event_id = "
                        + "'id', partition_by = 'card', partitions = 4, replicas = 2, lateness = '1 hour')");
                st.execute("CREATE METRIC m AS SELECT SUM(amount) AS total, COUNT(*) AS n FROM pay GROUP BY card "
                        + "OVER SLIDING 30 DAYS");
                insert(conn, 2000);
            }
            awaitAllRunning(c, "n1");
            deleteHistory(c.bootstrap()); // n1 and n2 hold the only copies
            c.startNode("n3", secured);
            String source = null;
            long deadline = System.currentTimeMillis() + 60_000;
            while (source == null && System.currentTimeMillis() < deadline) {
                java.util.regex.Matcher m = java.util.regex.Pattern.compile("copied from a peer before it runs here "
                        + "as .*; peers \\[(n[12])").matcher(c.log("n3"));
                if (m.find()) {
                    source = m.group(1);
                }
                Thread.sleep(50);
            }
            assertTrue(source != null, "n3 copies a task:\n" + ClusterProcesses.tail(c.log("n3")));
            Thread.sleep(1000); // some of its files are over
            c.kill(source);
            String survivor = source.equals("n1") ? "n2" : "n1";
            awaitRunningOn(c, List.of(survivor, "n3"));
            String log = c.log("n3");
            assertTrue(log.contains("copy from node " + source + " failed"), "the copy from " + source + " failed:\n"
                    + ClusterProcesses.tail(log));
            assertTrue(log.contains("copied from node " + survivor), "then went on from " + survivor + ":\n"
                    + ClusterProcesses.tail(log));
            for (String n : List.of(survivor, "n3")) {
                checkAll(c.port(n), n + " after " + source + " died mid-copy");
            }
            try (Connection conn = connect(c.port("n3"))) {
                insert(conn, 300); // every RETURNING row exact
            }
            checkAll(c.port(survivor), survivor + " after more events");
            // a peer proving another secret gets nothing from n3's snapshot server
            java.util.regex.Matcher server = java.util.regex.Pattern.compile("peer snapshot server on (https://\\S+)")
                    .matcher(c.log("n3"));
            assertTrue(server.find(), "n3 serves snapshots over TLS");
            javax.net.ssl.SSLContext trusting = javax.net.ssl.SSLContext.getInstance("TLS");
            java.security.KeyStore trusted = java.security.KeyStore.getInstance("PKCS12");
            trusted.load(null, null);
            try (var in = Files.newInputStream(dir.resolve("tls").resolve("node.crt"))) {
                trusted.setCertificateEntry("node", java.security.cert.CertificateFactory.getInstance("X.509")
                        .generateCertificate(in));
            }
            javax.net.ssl.TrustManagerFactory tm = javax.net.ssl.TrustManagerFactory.getInstance("PKIX");
            tm.init(trusted);
            trusting.init(null, tm.getTrustManagers(), null);
            java.net.http.HttpResponse<String> refused = java.net.http.HttpClient.newBuilder().sslContext(trusting)
                    .build().send(java.net.http.HttpRequest.newBuilder(java.net.URI.create(server.group(1)
                            + "/peer/snapshots?task=coilgun.stream.pay.card-0")).header("X-Coilgun-Peer-Proof",
                            System.currentTimeMillis() + ".00.not-an-hmac-of-the-secret").POST(
                            java.net.http.HttpRequest.BodyPublishers.noBody()).build(),
                            java.net.http.HttpResponse.BodyHandlers.ofString());
            assertEquals(401, refused.statusCode(), refused.body());
            assertTrue(c.log("n3").contains("does not prove the cluster secret"), "n3 logs the refusal");
        }
    }

    /**
     * The options of a node whose peers copy over TLS with the cluster secret {@code secret}: a self-signed
     * certificate for 127.0.0.1 (keytool) as its --tls-cert and --tls-ca.
     */
    static String[] peerTls(Path dir, String secret) throws Exception {
        Path cert = dir.resolve("node.crt");
        Path key = dir.resolve("node.key");
        Path secretFile = dir.resolve("cluster-secret");
        if (!Files.exists(cert)) {
            TestCertificates.make(dir, "store-pass-5").pem(dir);
            Files.writeString(secretFile, secret + "\n");
        }
        return new String[] {"--tls-cert", cert.toString(), "--tls-key", key.toString(), "--tls-ca", cert.toString(),
            "--cluster-secret-file", secretFile.toString()};
    }

    static String[] with(String[] options, String... more) {
        String[] all = java.util.Arrays.copyOf(options, options.length + more.length);
        System.arraycopy(more, 0, all, options.length, more.length);
        return all;
    }

    static long count(Statement st, String sql) throws SQLException {
        try (ResultSet rs = st.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /**
     * Inserts at a steady rate on one connection, every RETURNING row checked, until stopped. Statements slower than
     * the SLO are listed with when they were sent.
     */
    final class Load implements Runnable {
        final int port;
        /** A connection to another node, open and used once, that the load moves to before its next statement. */
        volatile Connection moveTo;
        final long periodNanos;
        final long startedNanos = System.nanoTime();
        final List<String> slow = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
        final Thread thread = new Thread(this, "load");
        volatile boolean running = true;
        final List<String> failures = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
        final org.HdrHistogram.Histogram latency = new org.HdrHistogram.Histogram(60_000_000_000L, 3);
        int done;

        Load(int port, int perSecond) {
            this.port = port;
            this.periodNanos = 1_000_000_000L / perSecond;
        }

        void start() {
            thread.start();
        }

        /** Notes a step of the test among the slow statements, to see what they follow. */
        void mark(String step) {
            slow.add(String.format("+%.2fs [%s]", (System.nanoTime() - startedNanos) / 1e9, step));
        }

        /** Moves the load to the node at {@code port}, as a client's pool would: its connection opened beforehand. */
        void moveTo(int port) throws SQLException {
            Connection conn = connect(port);
            try (Statement st = conn.createStatement()) {
                st.execute("SELECT count(*) FROM coilgun.tasks");
            }
            moveTo = conn;
        }

        void stop() throws InterruptedException {
            running = false;
            thread.join(60_000);
        }

        @Override
        public void run() {
            Connection conn = null;
            try {
                conn = connect(port);
                long next = System.nanoTime();
                while (running) {
                    long intended = next; // latency from when it should have been sent: no coordinated omission
                    Connection moved = moveTo;
                    if (moved != null) {
                        moveTo = null;
                        conn.close();
                        conn = moved;
                    }
                    try {
                        insert(conn, 1);
                        done++;
                    } catch (SQLException | AssertionError e) {
                        failures.add(e.toString());
                    }
                    long took = Math.max(0, System.nanoTime() - intended);
                    latency.recordValue(took);
                    if (took > 50_000_000L && slow.size() < 80) {
                        slow.add(String.format("+%.2fs %.0fms", (intended - startedNanos) / 1e9, took / 1e6));
                    }
                    next += periodNanos;
                    long sleep = next - System.nanoTime();
                    if (sleep > 0) {
                        Thread.sleep(sleep / 1_000_000, (int) (sleep % 1_000_000));
                    }
                }
            } catch (SQLException | InterruptedException e) {
                failures.add(e.toString());
            } finally {
                try {
                    if (conn != null) {
                        conn.close();
                    }
                } catch (SQLException ignored) {
                    // the test is over
                }
            }
        }

        String summary() {
            return String.format("%d inserts, %d failed; latency p50 %.1f ms, p99 %.1f ms, p99.9 %.1f ms, max %.1f ms;"
                    + " over 50 ms: %s", done, failures.size(), latency.getValueAtPercentile(50) / 1e6,
                    latency.getValueAtPercentile(99) / 1e6, latency.getValueAtPercentile(99.9) / 1e6,
                    latency.getMaxValue() / 1e6, slow);
        }
    }

    /** Rows per INSERT statement of {@link #insert}. */
    static final int ROWS_PER_INSERT = 50;

    /**
     * Inserts {@code n} events over the cards, {@link #ROWS_PER_INSERT} rows to a statement, each row's RETURNING
     * values checked against its own expected count and sum (the card's events up to and including it).
     */
    synchronized void insert(Connection conn, int n) throws SQLException {
        for (int done = 0; done < n; done += ROWS_PER_INSERT) {
            int rows = Math.min(ROWS_PER_INSERT, n - done);
            StringBuilder sql = new StringBuilder("INSERT INTO pay VALUES ");
            for (int r = 0; r < rows; r++) {
                sql.append(r == 0 ? "(?, ?, ?, ?)" : ", (?, ?, ?, ?)");
            }
            Map<Long, long[]> expectedById = new HashMap<>();
            try (PreparedStatement ps = conn.prepareStatement(sql.append(" RETURNING *").toString())) {
                for (int r = 0; r < rows; r++) {
                    long id = ++nextId;
                    String card = "c" + (id % CARDS);
                    long amount = id % 97;
                    ps.setLong(4 * r + 1, id);
                    ps.setTimestamp(4 * r + 2, new Timestamp(T0 + id * 100));
                    ps.setString(4 * r + 3, card);
                    ps.setDouble(4 * r + 4, amount);
                    long[] e = expected.computeIfAbsent(card, k -> new long[2]);
                    e[0]++;
                    e[1] += amount;
                    expectedById.put(id, new long[] {e[0], e[1]});
                }
                try (ResultSet rs = ps.executeQuery()) {
                    int returned = 0;
                    while (rs.next()) {
                        long id = rs.getLong("id");
                        long[] e = expectedById.get(id);
                        assertTrue(e != null, "a RETURNING row of event " + id + ", one of this statement's");
                        assertEquals(e[0], rs.getLong("m_n"), "count at event " + id);
                        assertEquals(e[1], rs.getDouble("m_total"), 1e-9, "sum at event " + id);
                        returned++;
                    }
                    assertEquals(rows, returned, "a RETURNING row per inserted row");
                }
            }
        }
    }

    /** Every card's count and sum, read on the node at {@code port}, are exactly its events'. */
    void checkAll(int port, String when) throws SQLException {
        try (Connection conn = connect(port); Statement st = conn.createStatement();
                ResultSet rs = st.executeQuery("SELECT card, n, total FROM m")) {
            Map<String, long[]> got = new HashMap<>();
            while (rs.next()) {
                got.put(rs.getString(1), new long[] {rs.getLong(2), (long) rs.getDouble(3)});
            }
            assertEquals(expected.keySet(), got.keySet(), when);
            for (var e : expected.entrySet()) {
                assertEquals(e.getValue()[0], got.get(e.getKey())[0], when + ": count of " + e.getKey());
                assertEquals(e.getValue()[1], got.get(e.getKey())[1], when + ": sum of " + e.getKey());
            }
        }
    }

    /** Deletes every record of the stream's topic, as retention would: Kafka keeps the offsets, not the events. */
    static void deleteHistory(String bootstrap) throws Exception {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        try (Admin admin = Admin.create(p)) {
            Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
            for (int i = 0; i < 4; i++) {
                latest.put(new TopicPartition(TOPIC, i), OffsetSpec.latest());
            }
            Map<TopicPartition, RecordsToDelete> delete = admin.listOffsets(latest).all().get().entrySet().stream()
                    .collect(Collectors.toMap(Map.Entry::getKey,
                            e -> RecordsToDelete.beforeOffset(e.getValue().offset())));
            admin.deleteRecords(delete).all().get();
        }
    }

    /** Waits until every task runs, on exactly these nodes. */
    static void awaitRunningOn(ClusterProcesses c, List<String> nodes) throws Exception {
        long deadline = System.currentTimeMillis() + 90_000;
        Map<String, String> states = Map.of();
        while (System.currentTimeMillis() < deadline) {
            try (Connection conn = connect(c.port(nodes.get(0))); Statement st = conn.createStatement()) {
                Map<String, String> now = states(st);
                states = now;
                boolean running = now.size() == 4 && now.values().stream().allMatch(s -> s.startsWith("running"));
                boolean spread = nodes.stream().allMatch(n -> now.values().stream().anyMatch(s -> s.endsWith(" " + n)))
                        && now.values().stream().allMatch(s -> nodes.stream().anyMatch(n -> s.endsWith(" " + n)));
                if (running && spread) {
                    return;
                }
            } catch (SQLException e) {
                // the node is busy with the rebalance: try again
            }
            Thread.sleep(500);
        }
        throw new AssertionError("tasks not running on " + nodes + ": " + states);
    }

    /** Waits until every task runs (anywhere), as node {@code on} sees it. */
    static void awaitAllRunning(ClusterProcesses c, String on) throws Exception {
        long deadline = System.currentTimeMillis() + 90_000;
        Map<String, String> states = Map.of();
        while (System.currentTimeMillis() < deadline) {
            try (Connection conn = connect(c.port(on)); Statement st = conn.createStatement()) {
                states = states(st);
                if (states.size() == 4 && states.values().stream().allMatch(s -> s.startsWith("running"))) {
                    return;
                }
            } catch (SQLException e) {
                // the node is busy with a rebalance: try again
            }
            Thread.sleep(500);
        }
        throw new AssertionError("tasks not all running: " + states);
    }

    /** Each task's "state [error] node". */
    static Map<String, String> states(Statement st) throws SQLException {
        Map<String, String> states = new HashMap<>();
        try (ResultSet rs = st.executeQuery("SELECT task, state, error, node FROM coilgun.tasks")) {
            while (rs.next()) {
                states.put(rs.getString(1), rs.getString(2) + (rs.getString(3) == null ? "" : " " + rs.getString(3))
                        + " " + rs.getString(4));
            }
        }
        return states;
    }

    static Connection connect(int port) throws SQLException {
        return DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + port
                + "/coilgun?user=tester&connectTimeout=10&socketTimeout=60");
    }
}
