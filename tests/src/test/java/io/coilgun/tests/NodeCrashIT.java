package io.coilgun.tests;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * kill -9 of a whole node: a child JVM runs {@code coilgun start} (embedded KRaft broker, RocksDB, pgwire); events
 * go in through pgjdbc and every RETURNING row is checked against the oracle; the node is killed with SIGKILL
 * between two INSERTs, twice, and restarted on the same data directory. Every event it had answered stays
 * counted exactly once: the results of the events after each restart are still exact.
 */
@Tag("integration")
@Timeout(600)
@SecondNodeLane // one node of its own process, its embedded broker inside: light beside the clusters
class NodeCrashIT {
    @TempDir
    Path dir;

    @Test
    void killedNodeRestartsExact() throws Exception {
        long seed = Long.getLong("coilgun.seed", System.nanoTime());
        System.out.println("NodeCrashIT seed=" + seed);
        WindowOracle oracle = new WindowOracle(WindowOracle.Kind.SLIDING, WalkingSkeletonIT.FIVE_MINUTES, 0);
        WalkingSkeletonIT.Generator gen = new WalkingSkeletonIT.Generator(new Random(seed), 200,
                LocalDateTime.of(2026, 2, 1, 0, 0).toEpochSecond(ZoneOffset.UTC) * 1_000_000L, 400_000);
        int port = freePort();
        Process node = start(port, 0);
        try {
            try (Connection c = connect(port); Statement s = c.createStatement()) {
                s.execute(WalkingSkeletonIT.CREATE_STREAM);
                s.execute(WalkingSkeletonIT.CREATE_METRIC);
                WalkingSkeletonIT.sendAndCheck(s, gen, oracle, 1_500);
            }
            for (int crash = 0; crash < 2; crash++) {
                node.destroyForcibly(); // SIGKILL: no shutdown hook, no checkpoint, no broker shutdown
                assertTrue(node.waitFor(30, TimeUnit.SECONDS));
                // the first restart trains its hot path before it says ready, beside the user's stream: its own
                // stream comes and goes, the user's state is untouched
                node = start(port, crash == 0 ? 2 : 0);
                try (Connection c = connect(port); Statement s = c.createStatement()) {
                    List<String> streams = new java.util.ArrayList<>();
                    try (var rs = s.executeQuery("SELECT name FROM coilgun.streams")) {
                        while (rs.next()) {
                            streams.add(rs.getString(1));
                        }
                    }
                    assertTrue(streams.equals(List.of("payments")), "only the user's stream is left: " + streams);
                    WalkingSkeletonIT.sendAndCheck(s, gen, oracle, 1_000);
                }
            }
        } finally {
            node.destroyForcibly();
            node.waitFor(30, TimeUnit.SECONDS);
        }
    }

    /**
     * Starts {@code coilgun start} in a child JVM, with a training run of {@code warmUpSeconds} (0: none), and waits
     * for its ready line.
     */
    Process start(int port, int warmUpSeconds) throws Exception {
        return start(dir.resolve("data"), "-Xmx768m", port, warmUpSeconds);
    }

    /**
     * {@code coilgun start} in a child JVM of {@code heap} on {@code data}, as {@link #start(int, int)}, with more
     * {@code options} of the command.
     */
    static Process start(Path data, String heap, int port, int warmUpSeconds, String... options) throws Exception {
        List<String> args = new java.util.ArrayList<>(List.of("start", "--warm-up", String.valueOf(warmUpSeconds),
                "--port", String.valueOf(port), "--data-dir", data.toString(), "--processor-units", "2"));
        args.addAll(List.of(options));
        Process p = new ProcessBuilder(NodeJvm.command(List.of(heap, "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"),
                args.toArray(String[]::new))).redirectErrorStream(true).start();
        BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        long deadline = System.currentTimeMillis() + 120_000;
        String line;
        StringBuilder seen = new StringBuilder();
        while (System.currentTimeMillis() < deadline && (line = out.readLine()) != null) {
            seen.append(line).append('\n');
            if (line.startsWith("coilgun: ready")) {
                assertTrue(warmUpSeconds == 0 || seen.toString().contains("coilgun: warmed up in"),
                        "the node trained before it said ready:\n" + seen);
                Thread drain = new Thread(() -> {
                    try {
                        while (out.readLine() != null) {
                            // keep the child's output pipe from filling up
                        }
                    } catch (java.io.IOException e) {
                        // the child is gone
                    }
                }, "node-output");
                drain.setDaemon(true);
                drain.start();
                return p;
            }
        }
        boolean alive = p.isAlive();
        p.destroyForcibly();
        throw new AssertionError("the node did not start (alive=" + alive + (alive ? "" : ", exit " + p.waitFor())
                + ", after " + (System.currentTimeMillis() - deadline + 120_000) + " ms):\n" + seen);
    }

    static Connection connect(int port) throws Exception {
        return DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + port
                + "/coilgun?preferQueryMode=simple&user=tester&connectTimeout=10&socketTimeout=60");
    }

    /**
     * A port below the ephemeral range, free now: the node binds it again at each restart, and a port of the
     * ephemeral range could meanwhile be taken by a client socket.
     */
    static int freePort() {
        return ClusterProcesses.freePort();
    }
}
