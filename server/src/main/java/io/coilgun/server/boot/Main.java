package io.coilgun.server.boot;

import io.coilgun.server.CoilgunNode;
import io.coilgun.server.config.ConfigFile;
import io.coilgun.server.config.NodeConfig;
import io.coilgun.server.config.SecurityConfig;
import io.coilgun.server.config.StartupException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine;

/** {@code coilgun start [options]}: runs one node until Ctrl-C. */
@Command(name = "coilgun", mixinStandardHelpOptions = true, version = "coilgun 0.1.0",
        description = "Exact per-event aggregations over long sliding windows, over Kafka, speaking pgwire.",
        subcommands = {Main.Start.class, StatusCommand.class, KafkaCommand.class, KafkaCommand.Broker.class,
                ClassDataSharing.Command.class})
public final class Main {

    public static void main(String[] args) {
        System.exit(run(args));
    }

    /** Runs the command line and returns the exit code (0 after a clean stop, 1 when start-up failed). */
    public static int run(String... args) {
        return run(System.out, args);
    }

    /**
     * As {@link #run(String...)}, with what {@code status} prints going to {@code out}: a test's own stream, since
     * System.out is the whole JVM's (other nodes log there).
     */
    public static int run(PrintStream out, String... args) {
        CommandLine cl = new CommandLine(new Main());
        ((StatusCommand) cl.getSubcommands().get("status").getCommand()).printingTo(out);
        try {
            CommandLine start = cl.getSubcommands().get("start");
            start.setDefaultValueProvider(ConfigFile.defaults(configPath(args), start.getCommandSpec()));
        } catch (StartupException e) {
            System.err.println("coilgun: " + e.getMessage());
            return 1;
        }
        return cl.execute(args);
    }

    /**
     * The node configuration {@code coilgun start <startArgs>} runs with: the flags, then the config file's
     * settings for those not given, then the defaults.
     */
    public static NodeConfig parse(String... startArgs) {
        Start start = new Start();
        CommandLine cl = new CommandLine(start);
        cl.setDefaultValueProvider(ConfigFile.defaults(configPath(startArgs), cl.getCommandSpec()));
        cl.parseArgs(startArgs);
        return start.config();
    }

    /** The value of {@code --config} among the arguments, or null. */
    private static Path configPath(String... args) {
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--config") && i + 1 < args.length) {
                return Path.of(args[i + 1]);
            }
            if (args[i].startsWith("--config=")) {
                return Path.of(args[i].substring("--config=".length()));
            }
        }
        return null;
    }

    /**
     * {@code coilgun start}. Each option is declared once, here: a config file ({@code --config}, Java properties)
     * gives any of them by its long name without the dashes ({@code data-dir = /var/lib/coilgun}), as picocli's
     * default provider ({@link ConfigFile#defaults}); flags win over the file, the file over the defaults below.
     */
    @Command(name = "start", mixinStandardHelpOptions = true,
            description = "Start a node: pgwire front end, processor units and (unless --kafka) an embedded Kafka broker.")
    static final class Start implements Callable<Integer> {
        @Option(names = "--config", description = "Config file (Java properties with these options' names, and "
                + "user.<name> = <password or SCRAM-SHA-256 verifier> lines).")
        Path config;

        @Option(names = "--host", defaultValue = NodeConfig.DEFAULT_HOST,
                description = "Address pgwire binds (default ${DEFAULT-VALUE}).")
        String host;

        @Option(names = {"-p", "--port"}, defaultValue = "5433", description = "pgwire port (default ${DEFAULT-VALUE}).")
        int port;

        @Option(names = {"-D", "--data-dir"}, defaultValue = "data",
                description = "Data directory (default ./${DEFAULT-VALUE}).")
        Path dataDir;

        @Option(names = "--kafka", description = "host:port of an external Kafka (default: embedded broker).")
        String kafka;

        @Option(names = "--kafka-config", description = "Kafka client settings for every producer, consumer and "
                + "admin client of the node (Java properties: security.protocol, sasl.mechanism, sasl.jaas.config, "
                + "ssl.truststore.location, ...), for a secured external Kafka (--kafka).")
        Path kafkaConfig;

        @Option(names = "--kafka-port", defaultValue = "0",
                description = "Embedded broker's port (default: any free port).")
        int kafkaPort;

        @Option(names = "--kafka-connect-timeout-ms", defaultValue = "15000",
                description = "How long to wait for Kafka at start (default ${DEFAULT-VALUE}).")
        long kafkaConnectTimeoutMs;

        @Option(names = "--node-id", defaultValue = "node-1",
                description = "Node id, names this node's reply topic (default ${DEFAULT-VALUE}).")
        String nodeId;

        @Option(names = "--processor-units", description = "Processor threads (default: cores).")
        Integer units;

        @Option(names = "--chunk-cache-chunks", defaultValue = "" + NodeConfig.DEFAULT_CHUNK_CACHE_CHUNKS,
                description = "Decoded reservoir chunks cached per processor unit, at most (default ${DEFAULT-VALUE}).")
        int cacheChunks;

        @Option(names = "--chunk-cache-mb", defaultValue = "" + NodeConfig.DEFAULT_CHUNK_CACHE_MB,
                description = "... and at most this many MiB of them (default ${DEFAULT-VALUE}).")
        long cacheMb;

        @Option(names = "--cluster-secret-file", description = "File holding the cluster's shared secret (the same "
                + "on every node, 16 characters or more): peers prove it to copy tasks from this node, and a snapshot "
                + "this node copies must be signed with it.")
        Path clusterSecretFile;

        @Option(names = "--tls-ca", description = "PEM file of the CA that signed the nodes' certificates: a peer's "
                + "snapshot server (HTTPS with its --tls-cert) is trusted when its certificate is signed by it (or "
                + "by one of the JDK's CAs).")
        Path tlsCa;

        @Option(names = "--peer-port", defaultValue = "0", description = "Port of the snapshot server that peers copy "
                + "tasks from, on --host (default 0: any free port; peers learn it through Kafka).")
        int peerPort;

        @Option(names = "--recovery-mb-per-second", defaultValue = "" + NodeConfig.DEFAULT_RECOVERY_MB_PER_SECOND,
                description = "Rate at which the node sends task data to peers, all copies together, MiB/s (default "
                + "${DEFAULT-VALUE}; 0: no limit; fractions allowed, e.g. 0.5).")
        double recoveryMbPerSecond;

        @Option(names = "--replica-restore-delay", defaultValue = "" + NodeConfig.DEFAULT_REPLICA_RESTORE_SECONDS,
                description = "Seconds the copies of a node that left the cluster or drains are awaited back (a "
                + "restart) before other nodes build new replicas in their place (default ${DEFAULT-VALUE}; 0: at "
                + "once). The group's leading node's setting applies.")
        double replicaRestoreSeconds;

        @Option(names = "--auth", description = "pgwire authentication: trust, scram or password; users come from the "
                + "config file (user.<name> = <password or SCRAM-SHA-256 verifier>). Default: trust when --host is a "
                + "loopback address; on any other address it must be given.")
        String auth;

        @Option(names = "--tls-cert", description = "PEM certificate chain: SSLRequest is answered with TLS "
                + "(needs --tls-key).")
        Path tlsCert;

        @Option(names = "--tls-key", description = "PEM private key (unencrypted) of --tls-cert.")
        Path tlsKey;

        @Option(names = "--http-port", description = "Port of the HTTP listener for operators on --host: /metrics "
                + "(Prometheus), the status page /, /health, /ready (default: the pgwire port + 1000; 0: any free "
                + "port; -1: none).")
        Integer httpPort;

        @Option(names = "--max-inflight-events", defaultValue = "" + NodeConfig.DEFAULT_MAX_INFLIGHT_EVENTS,
                description = "Events the node has published and not yet answered, at most: past it statements wait "
                + "for room (5 s), then fail with 53000 (default ${DEFAULT-VALUE}).")
        int maxInflightEvents;

        static final int DEFAULT_WARM_UP_S = 30;

        @Option(names = "--warm-up", description = "Seconds at most of the training run before the node says ready: "
                + "synthetic payments through its own pgwire port, ingest, Kafka, engine and replies, until the JIT "
                + "has compiled them (default 30 with the embedded broker, 0 with --kafka: a cluster's copies warm "
                + "as replicas; 0: none). Needs trust authentication.")
        Integer warmUp;

        @Option(names = "--log-format", defaultValue = "kv", description = "Log lines as kv (key=value, default) "
                + "or json (one object per line).")
        String logFormat;

        /**
         * {@code --auth}, or trust when none is given and pgwire listens on a loopback address only: a node that
         * listens beyond this machine does not accept anyone without being told to.
         */
        String auth() {
            if (auth != null) {
                return auth;
            }
            boolean loopback;
            try {
                loopback = java.net.InetAddress.getByName(host).isLoopbackAddress();
            } catch (java.net.UnknownHostException e) {
                loopback = false;
            }
            if (!loopback) {
                throw new StartupException("pgwire would listen on " + host + ", beyond this machine: say how clients "
                        + "log in, with --auth scram (users in the config file: user.<name> = <password>) or --auth "
                        + "trust (anyone, without a password)");
            }
            return "trust";
        }

        /** The node configuration the options say. */
        NodeConfig config() {
            int processorUnits = units != null ? units : Math.max(1, Runtime.getRuntime().availableProcessors());
            return new NodeConfig(host, port, dataDir, kafka, kafkaPort, nodeId, processorUnits,
                    kafkaConnectTimeoutMs, cacheChunks, cacheMb)
                    .withSecurity(new SecurityConfig(auth(), ConfigFile.users(config), tlsCert, tlsKey)
                            .withPeers(clusterSecretFile, tlsCa))
                    .withPeerRecovery(peerPort, recoveryMbPerSecond)
                    .withReplicaRestore(replicaRestoreSeconds)
                    .withHttpPort(httpPort == null ? NodeConfig.HTTP_PORT_DEFAULT
                            : httpPort < 0 ? NodeConfig.HTTP_OFF : httpPort)
                    .withMaxInflightEvents(maxInflightEvents);
        }

        @Override
        public Integer call() {
            if (!logFormat.equals("kv") && !logFormat.equals("json")) {
                System.err.println("coilgun: --log-format is kv or json, not " + logFormat);
                return 2;
            }
            // read by logback.xml when the first logger is made, which is after this line
            System.setProperty("coilgun.log.format", logFormat);
            try {
                NodeConfig c = config();
                KafkaClientSettings.apply(kafkaConfig, c);
                Thread.setDefaultUncaughtExceptionHandler(Start::threadDied);
                CoilgunNode node = CoilgunNode.start(c, ProgressBar.printingTo(System.out));
                warmUp(node, c);
                CountDownLatch stopped = new CountDownLatch(1);
                Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                    System.out.println("coilgun: stopping");
                    node.close();
                    System.out.println("coilgun: stopped");
                    stopped.countDown();
                }, "coilgun-shutdown"));
                System.out.println("coilgun: ready. pgwire on " + c.host() + ":" + node.port() + ", data in "
                        + c.dataDir().toAbsolutePath() + ", Kafka " + node.kafkaDescription());
                System.out.println("Connect with:  " + connectHint(c, node.port()));
                if (node.httpPort() > 0) {
                    System.out.println("Status page:   " + node.httpScheme() + "://" + c.host() + ":" + node.httpPort()
                            + "/  (metrics: /metrics)");
                }
                System.out.println("Stop with Ctrl-C.");
                System.out.flush();
                stopped.await();
                return 0;
            } catch (StartupException e) {
                System.err.println("coilgun: " + e.getMessage());
                return 1;
            } catch (InterruptedException e) {
                return 0;
            }
        }

        /**
         * The training run ({@link WarmUp}) unless --warm-up says none; a failed one is logged and the node goes
         * on cold (it serves as before, only slower in its first seconds).
         */
        private void warmUp(CoilgunNode node, NodeConfig c) {
            int seconds = warmUp != null ? warmUp : c.embeddedKafka() ? DEFAULT_WARM_UP_S : 0;
            if (seconds <= 0) {
                return;
            }
            if (!"trust".equalsIgnoreCase(c.security().auth())) {
                System.out.println("coilgun: no warm-up (it needs trust authentication); the first seconds run "
                        + "cold");
                return;
            }
            String host = c.host().equals("0.0.0.0") || c.host().equals("::") ? "127.0.0.1" : c.host();
            System.out.println("coilgun: warming up (a training run of at most " + seconds + " s)");
            node.warming(true);
            try {
                WarmUp.Result r = WarmUp.run(host, node.port(), c.nodeId(), seconds);
                System.out.printf(java.util.Locale.ROOT, "coilgun: warmed up in %.1f s (%d events%s)%n",
                        r.millis() / 1000.0, r.events(), r.settled() ? "" : "; the compiler was still busy");
            } catch (java.sql.SQLException | RuntimeException e) {
                LoggerFactory.getLogger(Main.class).warn("the warm-up failed; the node goes on cold", e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                node.warming(false);
            }
        }

        /**
         * No thread dies silently. The node's own loops catch what they can go on from (a task's failure, a poll that
         * failed); what reaches here is logged, and an error of the JVM itself (out of memory, an internal error)
         * ends the process at once with status 70, loudly, rather than leave a node that accepts connections and
         * answers nothing. The data is safe: everything accepted is in Kafka and the checkpoints.
         */
        private static void threadDied(Thread thread, Throwable error) {
            LoggerFactory.getLogger(Main.class).error("thread {} died", thread.getName(), error);
            if (error instanceof VirtualMachineError && !(error instanceof StackOverflowError)) {
                System.err.println("coilgun: fatal error in thread " + thread.getName() + ": " + error
                        + "; stopping the node");
                System.err.flush();
                Runtime.getRuntime().halt(70);
            }
        }

        /** The psql command line for this node: a configured user and sslmode=require when TLS is on. */
        private static String connectHint(NodeConfig c, int port) {
            String user = c.security().users().keySet().stream().sorted().findFirst().orElse("coilgun");
            String hint = "psql -h " + c.host() + " -p " + port + " -U " + user + " coilgun";
            return c.security().tlsCert() == null ? hint
                    : "psql \"host=" + c.host() + " port=" + port + " user=" + user + " dbname=coilgun sslmode=require\"";
        }
    }
}
