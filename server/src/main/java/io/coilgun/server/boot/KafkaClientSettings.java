package io.coilgun.server.boot;

import io.coilgun.cluster.kafka.KafkaClients;
import io.coilgun.server.config.NodeConfig;
import io.coilgun.server.config.StartupException;
import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;

/**
 * {@code --kafka-config FILE}: Kafka client settings (a secured Kafka's {@code security.protocol}, SASL and TLS) for
 * every client the node makes. Read once at start; its values (passwords among them) are never logged: Kafka's own
 * log of a client's settings hides password settings.
 */
final class KafkaClientSettings {
    private KafkaClientSettings() {
    }

    static void apply(Path file, NodeConfig config) {
        if (file == null) {
            return;
        }
        if (config.embeddedKafka()) {
            throw new StartupException("--kafka-config is for an external Kafka (--kafka host:port): the embedded "
                    + "broker takes no client settings");
        }
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(file)) {
            p.load(r);
        } catch (IOException e) {
            throw new StartupException("cannot read --kafka-config " + file + ": " + e.getMessage(), e);
        }
        Map<String, String> settings = new HashMap<>();
        for (String name : p.stringPropertyNames()) {
            if (name.equals("bootstrap.servers")) {
                throw new StartupException("--kafka-config " + file + " sets bootstrap.servers: give Kafka's "
                        + "address with --kafka instead");
            }
            settings.put(name, p.getProperty(name).trim());
        }
        KafkaClients.clientSettings(settings);
    }
}
