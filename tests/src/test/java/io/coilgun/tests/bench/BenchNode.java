package io.coilgun.tests.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A Coilgun node in a child JVM, the way {@code scripts/coilgun start} runs it (embedded broker, data under one
 * directory), so that its heap and resident memory are its own and not the injector's.
 */
final class BenchNode implements AutoCloseable {
    private final Process process;
    private final Path dataDir;
    private final int port;
    private final int kafkaPort;

    private BenchNode(Process process, Path dataDir, int port, int kafkaPort) {
        this.process = process;
        this.dataDir = dataDir;
        this.port = port;
        this.kafkaPort = kafkaPort;
    }

    /**
     * Starts a node on fresh ports with data under {@code dataDir}; its output goes to {@code log}. Waits until it
     * is ready (at most two minutes) or fails with its last output.
     */
    static BenchNode start(Path root, Path dataDir, String heap, String jvmOptions, String nodeArgs, Path log)
            throws IOException, InterruptedException {
        int port = freePort();
        int kafkaPort = freePort();
        String cp = root.resolve("server/target/classes") + ":" + Files.readString(
                root.resolve("server/target/classpath.txt")).trim();
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx" + heap, "-XX:+UseG1GC"));
        cmd.addAll(io.coilgun.tests.NodeJvm.JIT_BEHIND_LIVE_WORK); // as scripts/coilgun runs a node
        cmd.addAll(io.coilgun.tests.NodeJvm.HUGE_PAGES);
        for (String opt : jvmOptions.trim().split("\\s+")) {
            if (!opt.isEmpty()) {
                cmd.add(opt);
            }
        }
        cmd.addAll(List.of("-cp", cp, "io.coilgun.server.boot.Main", "start", "--port", String.valueOf(port),
                "--kafka-port", String.valueOf(kafkaPort), "--data-dir", dataDir.toString(), "--http-port", "0"));
        for (String arg : nodeArgs.trim().split("\\s+")) {
            if (!arg.isEmpty()) {
                cmd.add(arg); // more options of coilgun start, e.g. --warm-up 0
            }
        }
        Files.createDirectories(log.getParent());
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        CountDownLatch ready = new CountDownLatch(1);
        PrintWriter out = new PrintWriter(Files.newBufferedWriter(log, StandardCharsets.UTF_8), true);
        Thread pump = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = r.readLine()) != null; ) {
                    out.println(line);
                    if (line.startsWith("coilgun: ready")) {
                        ready.countDown();
                    }
                }
            } catch (IOException e) {
                // the process ended
            } finally {
                out.close();
            }
        }, "bench-node-output");
        pump.setDaemon(true);
        pump.start();
        if (!ready.await(120, TimeUnit.SECONDS) || !p.isAlive()) {
            p.destroyForcibly();
            throw new IllegalStateException("the node did not start; its output is in " + log);
        }
        return new BenchNode(p, dataDir, port, kafkaPort);
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    int port() {
        return port;
    }

    String kafkaBootstrap() {
        return "127.0.0.1:" + kafkaPort;
    }

    long pid() {
        return process.pid();
    }

    boolean alive() {
        return process.isAlive();
    }

    /** A pgjdbc connection with the driver's defaults (a statement not answered in {@code timeoutS} fails). */
    Connection connect(int timeoutS) throws SQLException {
        return connect(timeoutS, false);
    }

    /** Like {@link #connect(int)}; {@code simple} selects the simple query protocol. */
    Connection connect(int timeoutS, boolean simple) throws SQLException {
        return DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + port + "/coilgun?user=bench"
                + (simple ? "&preferQueryMode=simple" : "") + "&connectTimeout=10&socketTimeout=" + timeoutS);
    }

    /** Heap used after a full GC (jcmd GC.run, then GC.heap_info), in MiB, or -1 if jcmd could not tell. */
    double heapAfterGcMb() {
        try {
            jcmd("GC.run");
            Matcher m = Pattern.compile("used (\\d+)K").matcher(jcmd("GC.heap_info"));
            return m.find() ? Long.parseLong(m.group(1)) / 1024.0 : -1;
        } catch (IOException | InterruptedException e) {
            return -1;
        }
    }

    private String jcmd(String command) throws IOException, InterruptedException {
        return jcmd(pid(), command);
    }

    /** What {@code jcmd <pid> <command…>} prints. */
    static String jcmd(long pid, String... command) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
                String.valueOf(pid)));
        cmd.addAll(List.of(command));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor(60, TimeUnit.SECONDS);
        return out;
    }

    /** The node's resident set (VmRSS) in MiB, or -1. */
    double rssMb() {
        return rssMb(pid());
    }

    static double rssMb(long pid) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc", String.valueOf(pid), "status"))) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", "")) / 1024.0;
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux, or gone
        }
        return -1;
    }

    /**
     * The node's proportional set size (Pss of {@code smaps_rollup}) in MiB, or -1: its memory with each page counted
     * once. ZGC maps the heap three times, and VmRSS counts each mapping's pages.
     */
    double pssMb() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc", String.valueOf(pid()), "smaps_rollup"))) {
                if (line.startsWith("Pss:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", "")) / 1024.0;
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux, or gone
        }
        return -1;
    }

    /** Bytes of the event reservoirs' files on disk, in MiB. */
    double reservoirMb() {
        try (var files = Files.walk(dataDir)) {
            return files.filter(p -> p.toString().contains("/reservoir/") && Files.isRegularFile(p))
                    .mapToLong(p -> p.toFile().length()).sum() / 1048576.0;
        } catch (IOException | UncheckedIOException e) {
            return -1;
        }
    }

    /** Stops the node cleanly (SIGTERM, as Ctrl-C), killing it if it takes more than 30 s. */
    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
