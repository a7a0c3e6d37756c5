package io.coilgun.server.config;

import io.coilgun.pgwire.auth.Authentication;
import io.coilgun.pgwire.tls.ServerTls;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Who may connect to pgwire, and over what: the authentication method ({@code trust}, {@code scram} or
 * {@code password}), the users (name to password or SCRAM-SHA-256 verifier, from {@code user.<name>} lines of
 * the config file) and the TLS certificate and key (PEM files). Default: trust, no TLS. Between nodes: the file of
 * the cluster's shared secret that peers prove to copy tasks, and the CA whose certificates peers serve HTTPS with.
 */
public record SecurityConfig(String auth, Map<String, String> users, Path tlsCert, Path tlsKey,
        Path clusterSecretFile, Path tlsCa) {
    /** A cluster secret shorter than this is refused at start. */
    static final int MIN_SECRET_LENGTH = 16;

    public SecurityConfig(String auth, Map<String, String> users, Path tlsCert, Path tlsKey) {
        this(auth, users, tlsCert, tlsKey, null, null);
    }

    /** The same, with the cluster secret's file and the CA of the peers' certificates (each may be null). */
    public SecurityConfig withPeers(Path secretFile, Path ca) {
        return new SecurityConfig(auth, users, tlsCert, tlsKey, secretFile, ca);
    }

    /**
     * How this node's snapshot server and its copies from peers are protected: HTTPS with the node's certificate
     * (peers checked against {@code tlsCa} and the JDK's CAs), the cluster secret proven both ways.
     *
     * @throws StartupException when the secret file cannot be read or is too short, or a certificate file is bad
     */
    public io.coilgun.cluster.recovery.PeerSecurity peerSecurity() {
        byte[] secret = null;
        if (clusterSecretFile != null) {
            String text;
            try {
                text = java.nio.file.Files.readString(clusterSecretFile).trim();
            } catch (java.io.IOException e) {
                throw new StartupException("cannot read the cluster secret file " + clusterSecretFile + ": " + e, e);
            }
            if (text.length() < MIN_SECRET_LENGTH) {
                throw new StartupException("the cluster secret in " + clusterSecretFile + " is shorter than "
                        + MIN_SECRET_LENGTH + " characters: give every node the same long random secret (e.g. "
                        + "openssl rand -hex 32)");
            }
            secret = text.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        }
        ServerTls server = tls();
        javax.net.ssl.SSLContext client = null;
        if (tlsCa != null) {
            try {
                client = TrustedCertificates.trusting(tlsCa);
            } catch (java.io.IOException | java.security.GeneralSecurityException e) {
                throw new StartupException("cannot read the CA certificates of --tls-ca " + tlsCa + ": " + e, e);
            }
        }
        return new io.coilgun.cluster.recovery.PeerSecurity(server == null ? null : server.jdkContext(), client,
                secret);
    }
    private static final Logger LOG = LoggerFactory.getLogger(SecurityConfig.class);
    public static final String DEFAULT_AUTH = "trust";

    public SecurityConfig {
        users = Map.copyOf(users);
    }

    public static SecurityConfig defaults() {
        return new SecurityConfig(DEFAULT_AUTH, Map.of(), null, null);
    }

    /**
     * The pgwire authentication this asks for (deriving the SCRAM keys of plain passwords: done once, at start).
     *
     * @throws StartupException on an unknown method, a method without users, users under trust, a bad secret
     */
    public Authentication authentication() {
        String method = auth == null ? DEFAULT_AUTH : auth.trim().toLowerCase(Locale.ROOT);
        if (method.equals("trust")) {
            if (!users.isEmpty()) {
                throw new StartupException("users are configured (user." + users.keySet().iterator().next()
                        + " …) but auth is trust, which lets anyone in: set auth = scram (or password), or remove "
                        + "the user lines");
            }
            return Authentication.trust();
        }
        if (!method.equals("scram") && !method.equals("scram-sha-256") && !method.equals("password")) {
            throw new StartupException("unknown auth method '" + auth + "'; use trust, scram or password");
        }
        if (users.isEmpty()) {
            throw new StartupException("auth " + method + " needs users: add lines user.<name> = <password or "
                    + "SCRAM-SHA-256 verifier> to the --config file");
        }
        try {
            if (method.equals("password")) {
                if (tlsCert == null) {
                    LOG.warn("auth password sends passwords in clear text and no TLS certificate is configured; "
                            + "prefer auth scram, or add --tls-cert and --tls-key");
                }
                return Authentication.password(new LinkedHashMap<>(users));
            }
            return Authentication.scram(new LinkedHashMap<>(users));
        } catch (IllegalArgumentException e) {
            throw new StartupException("bad user setting: " + e.getMessage(), e);
        }
    }

    /**
     * The TLS certificate to offer, or null when none is configured.
     *
     * @throws StartupException when only one of the two files is given, or a file cannot be used
     */
    public ServerTls tls() {
        if (tlsCert == null && tlsKey == null) {
            return null;
        }
        if (tlsCert == null || tlsKey == null) {
            throw new StartupException("TLS needs both --tls-cert and --tls-key (PEM files); only "
                    + (tlsCert == null ? "--tls-key" : "--tls-cert") + " is set");
        }
        try {
            return ServerTls.fromPem(tlsCert, tlsKey);
        } catch (IllegalArgumentException e) {
            throw new StartupException(e.getMessage(), e);
        }
    }

    @Override
    public String toString() {
        return "SecurityConfig[auth=" + auth + ", users=" + users.keySet() + ", tlsCert=" + tlsCert + ", tlsKey="
                + tlsKey + ", clusterSecretFile=" + clusterSecretFile + ", tlsCa=" + tlsCa + "]"; // never the secrets
    }
}
