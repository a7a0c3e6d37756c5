package io.coilgun.server.config;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/**
 * A node's configuration file: Java properties named as the long command-line options without their dashes, read by
 * picocli as the options' default values (flags win over the file), plus one line per user.
 * <pre>
 * host = 127.0.0.1
 * port = 5433
 * data-dir = /var/lib/coilgun
 * kafka = broker1:9092,broker2:9092   # omit for the embedded broker
 * kafka-port = 0                      # embedded broker's port, 0 = any free port
 * node-id = node-1
 * processor-units = 2
 * kafka-connect-timeout-ms = 15000
 * kafka-config = /etc/coilgun/kafka-client.properties   # a secured Kafka: security.protocol, SASL, TLS
 * chunk-cache-chunks = 256             # decoded reservoir chunks cached per processor unit
 * chunk-cache-mb = 64
 * auth = scram                         # trust (default), scram or password
 * user.alice = s3cret                  # a user: password or SCRAM-SHA-256$… verifier
 * tls-cert = /etc/coilgun/server.crt   # PEM certificate chain; with tls-key, SSLRequest gets TLS
 * tls-key = /etc/coilgun/server.key    # PEM private key, unencrypted
 * </pre>
 */
public final class ConfigFile {
    /** {@code user.<name> = <password or verifier>}: one line per user. */
    private static final String USER_PREFIX = "user.";

    private ConfigFile() {
    }

    /**
     * The file's settings as picocli's default values of {@code command}'s options (none when {@code file} is null).
     *
     * @throws StartupException when the file cannot be read or names a setting that is no option nor a user
     */
    public static CommandLine.IDefaultValueProvider defaults(Path file, CommandLine.Model.CommandSpec command) {
        Properties p = file == null ? new Properties() : load(file);
        Set<String> known = new TreeSet<>();
        for (OptionSpec o : command.options()) {
            known.add(key(o));
        }
        for (String key : p.stringPropertyNames()) {
            if (!known.contains(key) && !(key.startsWith(USER_PREFIX) && key.length() > USER_PREFIX.length())) {
                throw new StartupException("unknown setting '" + key + "' in " + file + "; known: " + known
                        + " and user.<name>");
            }
        }
        return arg -> {
            String value = arg instanceof OptionSpec o ? p.getProperty(key(o)) : null;
            return value == null ? null : value.strip();
        };
    }

    /** The users of the file ({@code user.<name>} lines), by name; none when {@code file} is null. */
    public static Map<String, String> users(Path file) {
        Map<String, String> users = new TreeMap<>();
        if (file == null) {
            return users;
        }
        Properties p = load(file);
        for (String key : p.stringPropertyNames()) {
            if (key.startsWith(USER_PREFIX)) {
                users.put(key.substring(USER_PREFIX.length()), p.getProperty(key).strip());
            }
        }
        return users;
    }

    /** An option's name in the file: its long name without the dashes ({@code --data-dir}: {@code data-dir}). */
    private static String key(OptionSpec option) {
        return option.longestName().replaceFirst("^-+", "");
    }

    private static Properties load(Path file) {
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(file)) {
            p.load(r);
        } catch (IOException e) {
            throw new StartupException("cannot read config file " + file + ": " + e.getMessage());
        }
        return p;
    }
}
