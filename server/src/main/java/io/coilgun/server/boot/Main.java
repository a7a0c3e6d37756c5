package io.coilgun.server.boot;

import io.coilgun.server.CoilgunNode;
import io.coilgun.server.config.ConfigFile;
import io.coilgun.server.config.NodeConfig;
import io.coilgun.server.config.SecurityConfig;
import io.coilgun.server.config.StartupException;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code coilgun start [options]}: runs one node until Ctrl-C. */
@Command(name = "coilgun", mixinStandardHelpOptions = true, version = "coilgun 0.1.0",
        description = "Exact per-event aggregations over long sliding windows, over Kafka, speaking pgwire.",
        subcommands = {Main.Start.class})
public final class Main {

    public static void main(String[] args) {
        System.exit(run(args));
    }

    /** Runs the command line and returns the exit code (0 after a clean stop, 1 when start-up failed). */
    public static int run(String... args) {
        return new CommandLine(new Main()).execute(args);
    }

    @Command(name = "start", mixinStandardHelpOptions = true,
            description = "Start a node: pgwire front end, processor units and (unless --kafka) an embedded Kafka broker.")
    static final class Start implements Callable<Integer> {
        @Option(names = "--config", description = "Config file (Java properties with these options' names).")
        Path config;

        @Option(names = "--host", description = "Address pgwire binds (default 127.0.0.1).")
        String host;

        @Option(names = {"-p", "--port"}, description = "pgwire port (default 5433).")
        Integer port;

        @Option(names = {"-D", "--data-dir"}, description = "Data directory (default ./data).")
        Path dataDir;

        @Option(names = "--kafka", description = "host:port of an external Kafka (default: embedded broker).")
        String kafka;

        @Option(names = "--kafka-port", description = "Embedded broker's port (default: any free port).")
        Integer kafkaPort;

        @Option(names = "--node-id", description = "Node id, names this node's reply topic (default node-1).")
        String nodeId;

        @Option(names = "--processor-units", description = "Processor threads (default: cores).")
        Integer units;

        @Option(names = "--chunk-cache-chunks",
                description = "Decoded reservoir chunks cached per processor unit, at most (default 256).")
        Integer cacheChunks;

        @Option(names = "--chunk-cache-mb", description = "... and at most this many MiB of them (default 64).")
        Long cacheMb;

        @Option(names = "--auth", description = "pgwire authentication: trust (default), scram or password; users "
                + "come from the config file (user.<name> = <password or SCRAM-SHA-256 verifier>).")
        String auth;

        @Option(names = "--tls-cert", description = "PEM certificate chain: SSLRequest is answered with TLS "
                + "(needs --tls-key).")
        Path tlsCert;

        @Option(names = "--tls-key", description = "PEM private key (unencrypted) of --tls-cert.")
        Path tlsKey;

        @Override
        public Integer call() {
            NodeConfig c = NodeConfig.defaults();
            try {
                if (config != null) {
                    c = ConfigFile.read(config, c);
                }
                c = new NodeConfig(host != null ? host : c.host(), port != null ? port : c.port(),
                        dataDir != null ? dataDir : c.dataDir(), kafka != null ? kafka : c.kafka(),
                        kafkaPort != null ? kafkaPort : c.kafkaPort(), nodeId != null ? nodeId : c.nodeId(),
                        units != null ? units : c.processorUnits(), c.kafkaConnectTimeoutMs(),
                        cacheChunks != null ? cacheChunks : c.chunkCacheChunks(),
                        cacheMb != null ? cacheMb : c.chunkCacheMb())
                        .withSecurity(new SecurityConfig(auth != null ? auth : c.security().auth(),
                                c.security().users(), tlsCert != null ? tlsCert : c.security().tlsCert(),
                                tlsKey != null ? tlsKey : c.security().tlsKey()));
                Thread.setDefaultUncaughtExceptionHandler(Start::threadDied);
                CoilgunNode node = CoilgunNode.start(c);
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
