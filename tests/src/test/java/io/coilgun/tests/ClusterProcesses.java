package io.coilgun.tests;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A Coilgun cluster on this machine, every part a process of its own: a KRaft Kafka cluster ({@code coilgun kafka
 * --brokers 3}, one JVM per broker) and nodes ({@code coilgun start --kafka ...}) that tests kill with SIGKILL,
 * stop with SIGTERM and start again on the same data. Node output goes to {@code <dir>/<node>.log}.
 */
public final class ClusterProcesses implements AutoCloseable {
    private static final String KAFKA = "kafka";
    private final Path dir;
    /** The private network the processes run in, or null: all on 127.0.0.1. */
    private final PrivateNetwork net;
    private final String kafkaHost;
    private final int kafkaPort;
    private final int brokerCount;
    /** Brokers started again by {@link #startBroker} (no longer children of the launcher). */
    private final Map<Integer, Process> restartedBrokers = new LinkedHashMap<>();
    private final List<String> jit;
    private Process kafka;
    /** More options of the brokers ({@code coilgun kafka}, and each {@code kafka-broker} started again). */
    private final List<String> kafkaOptions;
    private final Map<String, Process> nodes = new LinkedHashMap<>();
    private final Map<String, Integer> ports = new LinkedHashMap<>();

    /**
     * A cluster for a test: its brokers and nodes compile with C1 only ({@code -XX:TieredStopAtLevel=1}) and collect
     * with the serial collector. Seven JVMs share this project's 2 cores in a cluster test: C2's compiler threads were
     * a large part of their CPU (ClusterIT took 193 s instead of 244 s), and G1's concurrent work a tenth of the rest
     * (ClusterIT alone: 276 s of CPU with G1, 247 s serial). A test checks what the cluster answers, not how fast.
     */
    public ClusterProcesses(Path dir, int brokers) throws Exception {
        this(dir, brokers, false);
    }

    /** @param benchmark its processes compile as scripts/coilgun's do (C2, behind live work): what a user runs */
    public ClusterProcesses(Path dir, int brokers, boolean benchmark) throws Exception {
        this(dir, brokers, benchmark, null);
    }

    /**
     * A cluster on a {@link PrivateNetwork}: the brokers in one namespace, each node in its own, each on an address
     * of its own (fixed ports: nothing else binds there).
     */
    ClusterProcesses(Path dir, int brokers, PrivateNetwork net) throws Exception {
        this(dir, brokers, false, net);
    }

    /** A cluster on a {@link PrivateNetwork} (null: on 127.0.0.1), its processes compiling as a user's if benchmark. */
    public ClusterProcesses(Path dir, int brokers, boolean benchmark, PrivateNetwork net) throws Exception {
        this(dir, brokers, benchmark, net, List.of());
    }

    /** A cluster whose brokers take more options of {@code coilgun kafka} (e.g. {@code --scram-users}). */
    public ClusterProcesses(Path dir, int brokers, List<String> kafkaOptions) throws Exception {
        this(dir, brokers, false, null, kafkaOptions);
    }

    private ClusterProcesses(Path dir, int brokers, boolean benchmark, PrivateNetwork net, List<String> kafkaOptions)
            throws Exception {
        this.dir = dir;
        this.kafkaOptions = List.copyOf(kafkaOptions);
        this.net = net;
        this.brokerCount = brokers;
        Files.createDirectories(dir);
        this.kafkaHost = net == null ? "127.0.0.1" : net.add(KAFKA);
        this.kafkaPort = net == null ? freeBasePort() : 19092;
        List<String> asUsers = new ArrayList<>(NodeJvm.JIT_BEHIND_LIVE_WORK);
        asUsers.addAll(NodeJvm.HUGE_PAGES);
        this.jit = benchmark ? asUsers : List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC");
        if (benchmark) {
            NodeJvm.awaitSharing(); // a benchmark's processes start as users' do, with the archive
        }
        List<String> kafkaJvm = new ArrayList<>(List.of("-Xmx384m"));
        kafkaJvm.addAll(jit); // coilgun kafka passes its -XX options to its brokers
        List<String> args = new ArrayList<>(List.of("kafka", "--brokers", String.valueOf(brokers), "--port",
                String.valueOf(kafkaPort), "--host", kafkaHost, "--data-dir", dir.resolve("kafka").toString()));
        args.addAll(this.kafkaOptions);
        kafka = java(net == null ? null : KAFKA, kafkaJvm, args.toArray(String[]::new))
                .redirectErrorStream(true).redirectOutput(dir.resolve("kafka.log").toFile()).start();
        for (int id = 1; id <= brokers; id++) {
            awaitLine(dir.resolve("kafka").resolve("broker-" + id + ".log"), "ready on", 120_000);
        }
    }

    public String bootstrap() {
        return kafkaHost + ":" + kafkaPort;
    }

    /** The address node {@code id} listens on (pgwire, HTTP). */
    public String host(String id) {
        return net == null ? "127.0.0.1" : net.address(id);
    }

    /** Starts (or restarts, on its data) node {@code id} and waits for its ready line. */
    public void startNode(String id) throws Exception {
        startNode(id, new String[0]);
    }

    /** JVM options for the nodes started from now on, after the tests' own (-Xmx512m). */
    private final List<String> nodeJvm = new ArrayList<>();
    /** Options of {@code coilgun start} for every node started from now on, unless its own options name them. */
    private final List<String> nodeOptions = new ArrayList<>();

    /** Gives every node started from now on these options ({@code --flag value} pairs) of {@code coilgun start}. */
    public ClusterProcesses nodeOptions(List<String> options) {
        nodeOptions.addAll(options);
        return this;
    }

    public ClusterProcesses nodeJvm(String... options) {
        nodeJvm.addAll(List.of(options));
        return this;
    }

    /** Starts node {@code id} with more options of {@code coilgun start}. */
    public void startNode(String id, String... options) throws Exception {
        boolean known = ports.containsKey(id);
        try {
            launch(id, options).awaitReady();
        } catch (AssertionError e) {
            if (!known) { // a node that never started is no node of the cluster (its log stays)
                ports.remove(id);
                nodes.remove(id);
            }
            throw e;
        }
    }

    /**
     * Starts nodes {@code ids} at the same time, as an operator's scripts may, and waits for each one's ready line
     * (they join the group together: one rebalance rather than one per node).
     */
    public void startNodes(String... ids) throws Exception {
        List<Launched> launched = new ArrayList<>();
        for (String id : ids) {
            launched.add(launch(id));
        }
        for (Launched l : launched) {
            l.awaitReady();
        }
    }

    /** A node process started, its log read from {@code from} on for its ready line. */
    private record Launched(String id, Process process, Path log, long from) {
        void awaitReady() throws Exception {
            long deadline = System.currentTimeMillis() + 120_000;
            while (true) {
                String text = Files.exists(log) ? Files.readString(log).substring((int) from) : "";
                int ready = text.lastIndexOf("coilgun: ready");
                if (ready >= 0 && text.lastIndexOf("Stop with Ctrl-C") > ready) {
                    return;
                }
                if (!process.isAlive() || System.currentTimeMillis() > deadline) {
                    process.destroyForcibly();
                    throw new AssertionError("node " + id + " did not start:\n" + tail(text));
                }
                Thread.sleep(100);
            }
        }
    }

    private Launched launch(String id, String... options) throws Exception {
        if (net != null && !ports.containsKey(id)) {
            net.add(id);
        }
        int port = ports.computeIfAbsent(id, k -> net == null ? freePort() : 5433);
        Path log = dir.resolve(id + ".log");
        long from = Files.exists(log) ? Files.readString(log).length() : 0; // a restart appends to its log
        List<String> args = new java.util.ArrayList<>(List.of("start", "--kafka", bootstrap(), "--node-id", id,
                "--port", String.valueOf(port), "--data-dir", dir.resolve(id).toString(), "--processor-units", "2"));
        if (!List.of(options).contains("--http-port")) {
            args.addAll(List.of("--http-port", "0")); // pgwire + 1000 may be another process's free port here
        }
        if (net != null) {
            args.addAll(List.of("--host", net.address(id)));
            if (!List.of(options).contains("--auth")) {
                args.addAll(List.of("--auth", "trust")); // beyond loopback the node asks to be told
            }
        }
        for (int i = 0; i + 1 < nodeOptions.size(); i += 2) {
            if (!List.of(options).contains(nodeOptions.get(i))) {
                args.addAll(List.of(nodeOptions.get(i), nodeOptions.get(i + 1)));
            }
        }
        args.addAll(List.of(options));
        // test faults armed, as in the test JVM: an event can make a task fail or a backfill slow (TestFaults)
        List<String> jvm = new ArrayList<>(List.of("-Xmx512m", "-Dcoilgun.testFaults=true"));
        jvm.addAll(jit);
        jvm.addAll(nodeJvm); // a bench's heap, say (the last -Xmx wins)
        String extra = System.getenv("COILGUN_IT_NODE_JVM"); // e.g. a flight recording, to profile a test's nodes
        if (extra != null && !extra.isBlank()) {
            for (String option : extra.trim().split("\\s+")) {
                jvm.add(option.replace("{node}", id + "-" + System.currentTimeMillis()));
            }
        }
        Process p = java(net == null ? null : id, jvm, args.toArray(String[]::new))
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        nodes.put(id, p);
        return new Launched(id, p, log, from);
    }

    public int port(String id) {
        return ports.get(id);
    }

    public List<String> nodeIds() {
        return new ArrayList<>(ports.keySet());
    }

    /** The process ids of the broker launcher and its children, the brokers (for /proc readings in benchmarks). */
    public List<Long> brokerPids() {
        List<Long> pids = new ArrayList<>(List.of(kafka.pid()));
        kafka.descendants().forEach(h -> pids.add(h.pid()));
        return pids;
    }

    /**
     * SIGKILL of broker {@code id} (1-based, a child of {@code coilgun kafka}, or one {@link #startBroker} started
     * again).
     */
    public void killBroker(int id) throws Exception {
        // its pid, from the last ready line of its log (a restarted broker appends its own)
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("ready on \\S+ \\(pid (\\d+)\\)")
                .matcher(Files.readString(dir.resolve("kafka").resolve("broker-" + id + ".log")));
        long pid = -1;
        while (m.find()) {
            pid = Long.parseLong(m.group(1));
        }
        ProcessHandle broker = ProcessHandle.of(pid).orElseThrow(() -> new AssertionError("no broker " + id));
        broker.destroyForcibly();
        broker.onExit().join();
    }

    /** Starts broker {@code id} again on its data (after {@link #killBroker}) and waits until it is ready. */
    public void startBroker(int id) throws Exception {
        Path log = dir.resolve("kafka").resolve("broker-" + id + ".log");
        long from = Files.exists(log) ? Files.size(log) : 0;
        String clusterId = Files.readString(dir.resolve("kafka").resolve("cluster-id")).trim();
        List<String> jvm = new ArrayList<>(List.of("-Xmx384m"));
        jvm.addAll(jit);
        List<String> args = new ArrayList<>(List.of("kafka-broker", "--id", String.valueOf(id), "--brokers",
                String.valueOf(brokerCount), "--port", String.valueOf(kafkaPort), "--host", kafkaHost, "--data-dir",
                dir.resolve("kafka").resolve("broker-" + id).toString(), "--cluster-id", clusterId));
        args.addAll(kafkaOptions); // --scram-users and --broker-user are the broker's own options too
        Process p = java(net == null ? null : KAFKA, jvm, args.toArray(String[]::new))
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        restartedBrokers.put(id, p);
        long deadline = System.currentTimeMillis() + 120_000;
        while (!(Files.size(log) > from && Files.readString(log).substring((int) from).contains("ready on"))) {
            if (!p.isAlive() || System.currentTimeMillis() > deadline) {
                throw new AssertionError("broker " + id + " did not start again:\n" + tail(Files.readString(log)));
            }
            Thread.sleep(100);
        }
    }

    /** The operating system's process id of node {@code id} (for /proc readings in benchmarks). */
    public long pid(String id) {
        return nodes.get(id).pid();
    }

    public boolean alive(String id) {
        Process p = nodes.get(id);
        return p != null && p.isAlive();
    }

    /** SIGKILL: no shutdown hook, no checkpoint, no leaving the group. */
    public void kill(String id) throws InterruptedException {
        Process p = nodes.get(id);
        p.destroyForcibly();
        p.waitFor(30, TimeUnit.SECONDS);
    }

    /**
     * SIGSTOP, then SIGCONT after {@code millis}: the whole JVM stands still, as in a long GC pause or on a starved
     * CPU, and goes on where it was.
     */
    public void freeze(String id, long millis) throws Exception {
        signal(id, "STOP");
        try {
            Thread.sleep(millis);
        } finally {
            signal(id, "CONT");
        }
    }

    private void signal(String id, String signal) throws Exception {
        Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid(id))).inheritIO().start();
        if (kill.waitFor() != 0) {
            throw new AssertionError("kill -" + signal + " of node " + id + " failed");
        }
    }

    /** SIGTERM: the node stops cleanly (its units leave the group, its tasks move at once). */
    public void stop(String id) throws InterruptedException {
        Process p = nodes.get(id);
        p.destroy();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("node " + id + " did not stop within 60 s");
        }
    }

    /** The port of node {@code id}'s HTTP listener, from the status page line its (latest) start printed. */
    public int httpPort(String id) throws IOException {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("Status page: +https?://[^:]+:(\\d+)/")
                .matcher(log(id));
        int port = -1;
        while (m.find()) {
            port = Integer.parseInt(m.group(1));
        }
        if (port < 0) {
            throw new AssertionError("node " + id + " printed no status page address");
        }
        return port;
    }

    /** Node {@code id}'s log file (its standard output). */
    public Path logFile(String id) {
        return dir.resolve(id + ".log");
    }

    public String log(String id) throws IOException {
        return Files.readString(dir.resolve(id + ".log"));
    }

    /** A JVM of the project, in member {@code member}'s namespace of the private network (null: none). */
    private ProcessBuilder java(String member, List<String> jvm, String... args) {
        List<String> command = NodeJvm.command(jvm, args);
        return new ProcessBuilder(member == null ? command : net.inside(member, command));
    }

    private static void awaitLine(Path log, String text, long timeoutMs) throws Exception {
        long deadline = System.currentTimeMillis() + timeoutMs;
        while (!(Files.exists(log) && Files.readString(log).contains(text))) {
            if (System.currentTimeMillis() > deadline) {
                throw new AssertionError(log + " never said \"" + text + "\":\n"
                        + (Files.exists(log) ? tail(Files.readString(log)) : "(no log)"));
            }
            Thread.sleep(100);
        }
    }

    static String tail(String text) {
        return text.length() <= 6000 ? text : text.substring(text.length() - 6000);
    }

    /** A free port for a node's pgwire, below the ephemeral range and the brokers' (see {@link #freeBasePort}). */
    static int freePort() {
        for (int attempt = 0; attempt < 100; attempt++) {
            int port = 10_000 + (int) (Math.random() * 10_000);
            if (free(port)) {
                return port;
            }
        }
        throw new IllegalStateException("no free port for a node");
    }

    /**
     * A port p with p, p+1, p+2 and p+100.. p+102 free (the brokers' client and controller ports), outside the
     * ephemeral range: a port free when checked could otherwise be taken by a client socket before its broker binds
     * it (seen in CI: the third broker's controller port).
     */
    private static int freeBasePort() {
        for (int attempt = 0; attempt < 50; attempt++) {
            // below Linux's ephemeral range (32768 and up): the brokers' own outgoing connections never take them
            int base = 20_000 + (int) (Math.random() * 12_000);
            if (free(base) && free(base + 1) && free(base + 2) && free(base + 100) && free(base + 101)
                    && free(base + 102)) {
                return base;
            }
        }
        throw new IllegalStateException("no free port range for the brokers");
    }

    private static boolean free(int port) {
        try (ServerSocket s = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * Keeps the processes' logs (nodes, brokers; not the RocksDB and Kafka data files also named *.log) under
     * {@code target/cluster-logs/<yyyyMMdd-HHmmss>}, when it closed (the test directory is deleted; one each).
     */
    private void keepLogs() {
        try {
            Path keep = Path.of("target", "cluster-logs", java.time.LocalDateTime.now().format(
                    java.time.format.DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
            Files.createDirectories(keep);
            try (var files = Files.walk(dir, 2)) {
                for (Path f : files.filter(f -> f.toString().endsWith(".log") && (f.getParent().equals(dir)
                        || f.getParent().equals(dir.resolve("kafka")))).toList()) {
                    Files.copy(f, keep.resolve(f.getFileName()), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                }
            }
        } catch (IOException e) {
            // best effort
        }
    }

    @Override
    public void close() {
        for (Process p : nodes.values()) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
        }
        restartedBrokers.values().forEach(Process::destroyForcibly);
        if (kafka != null) {
            // killed, not stopped: a graceful stop of the brokers took seconds of every cluster test, for nothing kept
            List<ProcessHandle> brokers = kafka.descendants().toList();
            brokers.forEach(ProcessHandle::destroyForcibly);
            kafka.destroyForcibly();
            for (ProcessHandle b : brokers) {
                try {
                    b.onExit().get(20, TimeUnit.SECONDS);
                } catch (Exception e) {
                    // gone or going: the directory is the test's own
                }
            }
        }
        keepLogs();
    }
}
