package io.coilgun.server.config;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.Set;

/**
 * Reads a node's configuration file: Java properties with the same names as the command-line flags.
 * <pre>
 * host = 127.0.0.1
 * port = 5433
 * data-dir = /var/lib/coilgun
 * kafka = broker1:9092,broker2:9092   # omit for the embedded broker
 * kafka-port = 0                      # embedded broker's port, 0 = any free port
 * node-id = node-1
 * processor-units = 2
 * kafka-connect-timeout-ms = 15000
 * chunk-cache-chunks = 256             # decoded reservoir chunks cached per processor unit
 * chunk-cache-mb = 64
 * auth = scram                         # trust (default), scram or password
 * user.alice = s3cret                  # a user: password or SCRAM-SHA-256$… verifier
 * tls-cert = /etc/coilgun/server.crt   # PEM certificate chain; with tls-key, SSLRequest gets TLS
 * tls-key = /etc/coilgun/server.key    # PEM private key, unencrypted
 * </pre>
 */
public final class ConfigFile {
    private static final Set<String> KEYS = Set.of("host", "port", "data-dir", "kafka", "kafka-port", "node-id",
            "processor-units", "kafka-connect-timeout-ms", "chunk-cache-chunks", "chunk-cache-mb", "auth", "tls-cert",
            "tls-key");
    /** {@code user.<name> = <password or verifier>}: one line per user. */
    private static final String USER_PREFIX = "user.";

    private ConfigFile() {
    }

    public static NodeConfig read(Path file, NodeConfig base) {
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(file)) {
            p.load(r);
        } catch (IOException e) {
            throw new StartupException("cannot read config file " + file + ": " + e.getMessage());
        }
        for (String key : p.stringPropertyNames()) {
            if (!KEYS.contains(key) && !(key.startsWith(USER_PREFIX) && key.length() > USER_PREFIX.length())) {
                throw new StartupException("unknown setting '" + key + "' in " + file + "; known: " + KEYS
                        + " and user.<name>");
            }
        }
        try {
            return new NodeConfig(
                    p.getProperty("host", base.host()),
                    Integer.parseInt(p.getProperty("port", String.valueOf(base.port()))),
                    p.containsKey("data-dir") ? Path.of(p.getProperty("data-dir")) : base.dataDir(),
                    p.getProperty("kafka", base.kafka()),
                    Integer.parseInt(p.getProperty("kafka-port", String.valueOf(base.kafkaPort()))),
                    p.getProperty("node-id", base.nodeId()),
                    Integer.parseInt(p.getProperty("processor-units", String.valueOf(base.processorUnits()))),
                    Long.parseLong(p.getProperty("kafka-connect-timeout-ms", String.valueOf(base.kafkaConnectTimeoutMs()))),
                    Integer.parseInt(p.getProperty("chunk-cache-chunks", String.valueOf(base.chunkCacheChunks()))),
                    Long.parseLong(p.getProperty("chunk-cache-mb", String.valueOf(base.chunkCacheMb()))))
                    .withSecurity(security(p, base.security()));
        } catch (NumberFormatException e) {
            throw new StartupException("bad number in " + file + ": " + e.getMessage());
        }
    }

    private static SecurityConfig security(Properties p, SecurityConfig base) {
        Map<String, String> users = new TreeMap<>(base.users());
        for (String key : p.stringPropertyNames()) {
            if (key.startsWith(USER_PREFIX)) {
                users.put(key.substring(USER_PREFIX.length()), p.getProperty(key).strip());
            }
        }
        return new SecurityConfig(p.getProperty("auth", base.auth()), users,
                p.containsKey("tls-cert") ? Path.of(p.getProperty("tls-cert").strip()) : base.tlsCert(),
                p.containsKey("tls-key") ? Path.of(p.getProperty("tls-key").strip()) : base.tlsKey());
    }
}
