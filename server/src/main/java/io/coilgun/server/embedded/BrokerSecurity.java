package io.coilgun.server.embedded;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

/**
 * How the brokers of {@code coilgun kafka} secure their client (and inter-broker) listener: SASL/SCRAM-SHA-256 with the
 * users of a file ({@code --scram-users}: Java properties {@code name = password}), TLS with a keystore, both
 * (SASL_SSL), or neither (PLAINTEXT). The brokers authenticate to each other as {@code brokerUser}, one of the users,
 * and check each other's certificates against the truststore (their address must be in the certificate). The users'
 * SCRAM credentials go into the cluster's metadata when its storage is formatted (a user added later needs
 * {@code kafka-configs --alter --add-config SCRAM-SHA-256=…}). The controllers' quorum listener stays PLAINTEXT on the
 * brokers' address.
 *
 * @param users name to password; empty for none
 * @param tls the brokers' keystore and truststore, or null: no TLS
 */
public record BrokerSecurity(Map<String, String> users, String brokerUser, Tls tls) {
    /** PKCS#12 files: the brokers' key and certificate, the certificates they trust, and their one password. */
    public record Tls(Path keystore, Path truststore, String password) {
        /** The files of {@code --tls-keystore}, {@code --tls-truststore} and {@code --tls-password-file}. */
        public static Tls of(Path keystore, Path truststore, Path passwordFile) {
            if (keystore == null) {
                return null;
            }
            if (truststore == null || passwordFile == null) {
                throw new IllegalArgumentException("--tls-keystore needs --tls-truststore and --tls-password-file");
            }
            try {
                return new Tls(keystore.toAbsolutePath(), truststore.toAbsolutePath(),
                        Files.readString(passwordFile).strip());
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read " + passwordFile, e);
            }
        }
    }

    public static final String MECHANISM = "SCRAM-SHA-256";

    public BrokerSecurity(Map<String, String> users, String brokerUser) {
        this(users, brokerUser, null);
    }

    public BrokerSecurity {
        users = Map.copyOf(users);
        if (!users.isEmpty() && !users.containsKey(brokerUser)) {
            throw new IllegalArgumentException("the brokers' own user " + brokerUser + " is not among the SCRAM users "
                    + users.keySet());
        }
    }

    public static BrokerSecurity none() {
        return new BrokerSecurity(Map.of(), null);
    }

    /** The users of {@code file} (none when it is null), the brokers authenticating as {@code brokerUser}. */
    public static BrokerSecurity scram(Path file, String brokerUser) {
        return scram(file, brokerUser, null);
    }

    /** As {@link #scram(Path, String)}, over TLS when {@code tls} is given. */
    public static BrokerSecurity scram(Path file, String brokerUser, Tls tls) {
        if (file == null) {
            return new BrokerSecurity(Map.of(), null, tls);
        }
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(file)) {
            p.load(r);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the SCRAM users of " + file, e);
        }
        Map<String, String> users = new TreeMap<>();
        for (String name : p.stringPropertyNames()) {
            users.put(name, p.getProperty(name).trim());
        }
        return new BrokerSecurity(users, brokerUser, tls);
    }

    public boolean scram() {
        return !users.isEmpty();
    }

    /** The client listener's security protocol. */
    String protocol() {
        return tls != null ? scram() ? "SASL_SSL" : "SSL" : scram() ? "SASL_PLAINTEXT" : "PLAINTEXT";
    }

    /** The broker settings for its client (and inter-broker) listener. */
    void configure(Properties p) {
        if (tls != null) {
            p.put("ssl.keystore.type", "PKCS12");
            p.put("ssl.keystore.location", tls.keystore().toString());
            p.put("ssl.keystore.password", tls.password());
            p.put("ssl.key.password", tls.password());
            p.put("ssl.truststore.type", "PKCS12");
            p.put("ssl.truststore.location", tls.truststore().toString());
            p.put("ssl.truststore.password", tls.password());
        }
        if (scram()) {
            p.put("sasl.enabled.mechanisms", MECHANISM);
            p.put("sasl.mechanism.inter.broker.protocol", MECHANISM);
            p.put("listener.name." + protocol().toLowerCase(java.util.Locale.ROOT) + ".scram-sha-256.sasl.jaas.config",
                    jaas(brokerUser, users.get(brokerUser)));
        }
    }

    /** The formatter's SCRAM arguments: each user's credential, written into the cluster's first metadata. */
    List<String> formatArguments() {
        List<String> args = new ArrayList<>();
        new TreeMap<>(users).forEach((name, password) -> args.add(MECHANISM + "=[name=" + name + ",password="
                + password + "]"));
        return args;
    }

    /** A client's {@code sasl.jaas.config} for SCRAM as {@code user}. */
    public static String jaas(String user, String password) {
        return "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"" + user
                + "\" password=\"" + password + "\";";
    }
}
