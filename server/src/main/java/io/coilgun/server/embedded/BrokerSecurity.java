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
 * How the brokers of {@code coilgun kafka} authenticate clients: none (PLAINTEXT), or SASL/SCRAM-SHA-256 with the users
 * of a file ({@code --scram-users}: Java properties {@code name = password}). The brokers authenticate to each other
 * as {@code brokerUser}, one of them. The users' SCRAM credentials go into the cluster's metadata when its storage is
 * formatted (a user added later needs {@code kafka-configs --alter --add-config SCRAM-SHA-256=…}). The controllers'
 * quorum listener stays PLAINTEXT on the brokers' address.
 *
 * @param users name to password; empty for none
 */
public record BrokerSecurity(Map<String, String> users, String brokerUser) {
    public static final String MECHANISM = "SCRAM-SHA-256";

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
        if (file == null) {
            return none();
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
        return new BrokerSecurity(users, brokerUser);
    }

    public boolean scram() {
        return !users.isEmpty();
    }

    /** The client listener's security protocol. */
    String protocol() {
        return scram() ? "SASL_PLAINTEXT" : "PLAINTEXT";
    }

    /** The broker settings for its client (and inter-broker) listener. */
    void configure(Properties p) {
        if (!scram()) {
            return;
        }
        p.put("sasl.enabled.mechanisms", MECHANISM);
        p.put("sasl.mechanism.inter.broker.protocol", MECHANISM);
        p.put("listener.name.sasl_plaintext.scram-sha-256.sasl.jaas.config", jaas(brokerUser, users.get(brokerUser)));
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
