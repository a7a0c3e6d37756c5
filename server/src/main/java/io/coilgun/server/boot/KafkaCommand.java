package io.coilgun.server.boot;

import io.coilgun.server.embedded.BrokerSecurity;
import io.coilgun.server.embedded.EmbeddedKafka;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.apache.kafka.common.Uuid;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code coilgun kafka}: a real KRaft cluster of several brokers on 127.0.0.1, each a process of its own (so one can
 * be killed), for running a Coilgun cluster on one machine. Production points {@code --kafka} at its own Kafka.
 */
@Command(name = "kafka", mixinStandardHelpOptions = true,
        description = "Run a KRaft Kafka cluster of --brokers processes on --host (bootstrap --host:--port).")
final class KafkaCommand implements Callable<Integer> {
    @Option(names = "--brokers", defaultValue = "3", description = "Brokers (default ${DEFAULT-VALUE}).")
    int brokers;

    @Option(names = {"-D", "--data-dir"}, defaultValue = "kafka",
            description = "Where the brokers keep their logs (default ./${DEFAULT-VALUE}).")
    Path dataDir;

    @Option(names = {"-p", "--port"}, defaultValue = "9092", description = "Client port of the first broker; broker "
            + "n listens on port + n - 1, its controller on port + 100 + n - 1 (default ${DEFAULT-VALUE}).")
    int port;

    @Option(names = "--heap-mb", defaultValue = "512", description = "Heap of each broker (default ${DEFAULT-VALUE}).")
    int heapMb;

    @Option(names = "--host", defaultValue = "127.0.0.1", description = "The address every broker listens on and "
            + "advertises (default ${DEFAULT-VALUE}; tests give a private address in a network namespace).")
    String host;

    @Option(names = "--scram-users", description = "Clients authenticate with SASL/SCRAM-SHA-256 as one of the users "
            + "of this file (Java properties: name = password), read when the brokers' storage is first formatted; "
            + "nodes then need --kafka-config with security.protocol=SASL_PLAINTEXT, sasl.mechanism=SCRAM-SHA-256 "
            + "and sasl.jaas.config (default: none, PLAINTEXT).")
    Path scramUsers;

    @Option(names = "--broker-user", defaultValue = "broker", description = "The user of --scram-users the brokers "
            + "authenticate to each other as (default ${DEFAULT-VALUE}).")
    String brokerUser;

    @Option(names = "--tls-keystore", description = "TLS on the brokers' listener (SASL_SSL with --scram-users, else "
            + "SSL): a PKCS#12 file with the brokers' key and certificate (its names must include --host).")
    Path tlsKeystore;

    @Option(names = "--tls-truststore", description = "PKCS#12 file of the certificates the brokers trust (each "
            + "other's).")
    Path tlsTruststore;

    @Option(names = "--tls-password-file", description = "A file holding the one password of the keystore, its key "
            + "and the truststore.")
    Path tlsPasswordFile;

    @Override
    public Integer call() throws IOException, InterruptedException {
        try {
            BrokerSecurity.scram(scramUsers, brokerUser, BrokerSecurity.Tls.of(tlsKeystore, tlsTruststore,
                    tlsPasswordFile)); // what each broker will read: its mistakes said here, once
        } catch (RuntimeException e) {
            System.err.println("coilgun kafka: " + e.getMessage());
            return 2;
        }
        Files.createDirectories(dataDir);
        Path idFile = dataDir.resolve("cluster-id");
        if (!Files.exists(idFile)) {
            Files.writeString(idFile, Uuid.randomUuid().toString());
        }
        String clusterId = Files.readString(idFile, StandardCharsets.UTF_8).trim();
        List<Process> processes = new ArrayList<>();
        for (int id = 1; id <= brokers; id++) {
            Path log = dataDir.resolve("broker-" + id + ".log");
            List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
                    .toString(), "-Xmx" + heapMb + "m"));
            cmd.addAll(ClassDataSharing.inheritedOptions()); // the class-data archive: a broker starts in half the time
            cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), Main.class.getName(), "kafka-broker",
                    "--id", String.valueOf(id), "--brokers", String.valueOf(brokers), "--port", String.valueOf(port),
                    "--host", host, "--data-dir", dataDir.resolve("broker-" + id).toString(), "--cluster-id",
                    clusterId, "--broker-user", brokerUser));
            if (scramUsers != null) {
                cmd.addAll(List.of("--scram-users", scramUsers.toAbsolutePath().toString()));
            }
            if (tlsKeystore != null) {
                cmd.addAll(List.of("--tls-keystore", tlsKeystore.toAbsolutePath().toString(), "--tls-truststore",
                        tlsTruststore.toAbsolutePath().toString(), "--tls-password-file",
                        tlsPasswordFile.toAbsolutePath().toString()));
            }
            processes.add(new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start());
        }
        Runtime.getRuntime().addShutdownHook(new Thread(() -> processes.forEach(Process::destroy)));
        System.out.println("coilgun kafka: " + brokers + " brokers starting, bootstrap " + host + ":" + port
                + "; logs in " + dataDir.toAbsolutePath() + "/broker-<n>.log. Start nodes with --kafka " + host + ":"
                + port + ". Stop with Ctrl-C.");
        System.out.flush();
        for (Process p : processes) {
            p.waitFor();
        }
        return 0;
    }

    /** One broker of the cluster (what {@code coilgun kafka} runs in each child process). */
    @Command(name = "kafka-broker", hidden = true)
    static final class Broker implements Callable<Integer> {
        @Option(names = "--id", required = true)
        int id;

        @Option(names = "--brokers", required = true)
        int brokers;

        @Option(names = "--port", required = true)
        int port;

        @Option(names = "--data-dir", required = true)
        Path dataDir;

        @Option(names = "--host", defaultValue = "127.0.0.1")
        String host;

        @Option(names = "--cluster-id", required = true)
        String clusterId;

        @Option(names = "--scram-users")
        Path scramUsers;

        @Option(names = "--broker-user", defaultValue = "broker")
        String brokerUser;

        @Option(names = "--tls-keystore")
        Path tlsKeystore;

        @Option(names = "--tls-truststore")
        Path tlsTruststore;

        @Option(names = "--tls-password-file")
        Path tlsPasswordFile;

        @Override
        public Integer call() throws InterruptedException {
            EmbeddedKafka kafka = EmbeddedKafka.startMember(dataDir, host, id, brokers, port, clusterId,
                    BrokerSecurity.scram(scramUsers, brokerUser, BrokerSecurity.Tls.of(tlsKeystore, tlsTruststore,
                            tlsPasswordFile)));
            CountDownLatch stopped = new CountDownLatch(1);
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                kafka.close();
                stopped.countDown();
            }));
            System.out.println("coilgun kafka-broker " + id + " ready on " + kafka.bootstrapServers() + " (pid "
                    + ProcessHandle.current().pid() + ")");
            System.out.flush();
            stopped.await();
            return 0;
        }
    }
}
