package io.coilgun.pgwire.auth;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * How the server authenticates a connection, and the users it knows (immutable, shared by all connections):
 *
 * <ul>
 *   <li>{@link #trust()}: every user is accepted, no password asked (the default);</li>
 *   <li>{@link #scram(Map)}: SCRAM-SHA-256, the password never crosses the wire;</li>
 *   <li>{@link #password(Map)}: the password is sent in clear text (use it over TLS only).</li>
 * </ul>
 *
 * <p>A user's secret is either the plain password or a Postgres verifier
 * {@code SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:<ServerKey>} (as {@code pg_authid.rolpassword} holds, or
 * {@link ScramCredential#toVerifier()} prints). For SCRAM, the keys of a plain password are derived here, once
 * (PBKDF2, {@value ScramCredential#DEFAULT_ITERATIONS} iterations), so that a login costs no key derivation.
 */
public final class Authentication {
    /** The authentication method, named as in pg_hba.conf. */
    public enum Method {
        TRUST("trust"), PASSWORD("password"), SCRAM_SHA_256("scram-sha-256");

        private final String pgName;

        Method(String pgName) {
            this.pgName = pgName;
        }

        public String pgName() {
            return pgName;
        }
    }

    /**
     * A user's secret: the password, kept only in password mode when configured in clear; the SCRAM keys, derived
     * in SCRAM mode from a plain password, or from the verifier.
     */
    record Secret(byte[] password, ScramCredential credential) {
    }

    private static final Authentication TRUST = new Authentication(Method.TRUST, Map.of());

    private final Method method;
    private final Map<String, Secret> users;
    /** The SCRAM verifier of a user who is not configured here (a role the server keeps elsewhere), or null. */
    private final java.util.function.Function<String, String> roles;
    /** Salts the mock exchange of unknown users, so that their salt is stable but unguessable. */
    private final byte[] mockSecret = new byte[32];

    private Authentication(Method method, Map<String, Secret> users) {
        this(method, users, user -> null);
    }

    private Authentication(Method method, Map<String, Secret> users,
            java.util.function.Function<String, String> roles) {
        this.method = method;
        this.users = users;
        this.roles = roles;
        new SecureRandom().nextBytes(mockSecret);
    }

    public static Authentication trust() {
        return TRUST;
    }

    /**
     * SCRAM-SHA-256 for these users (name to password or verifier).
     *
     * @throws IllegalArgumentException when there is no user, a password is empty or a verifier malformed
     */
    public static Authentication scram(Map<String, String> users) {
        return new Authentication(Method.SCRAM_SHA_256, secrets(users, true));
    }

    /**
     * Clear-text passwords for these users (name to password or verifier; a verifier costs one PBKDF2 per login,
     * run off the event loop).
     *
     * @throws IllegalArgumentException when there is no user, a password is empty or a verifier malformed
     */
    public static Authentication password(Map<String, String> users) {
        return new Authentication(Method.PASSWORD, secrets(users, false));
    }

    private static Map<String, Secret> secrets(Map<String, String> users, boolean deriveScramKeys) {
        if (users.isEmpty()) {
            throw new IllegalArgumentException("no users configured");
        }
        Map<String, Secret> secrets = new LinkedHashMap<>();
        users.forEach((user, secret) -> {
            Objects.requireNonNull(secret, "secret");
            if (user.isEmpty()) {
                throw new IllegalArgumentException("empty user name");
            }
            if (secret.isEmpty()) {
                throw new IllegalArgumentException("empty password for user \"" + user + "\"");
            }
            Secret s;
            if (ScramCredential.isVerifier(secret)) {
                try {
                    s = new Secret(null, ScramCredential.parse(secret));
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException(e.getMessage() + " for user \"" + user + "\"", e);
                }
            } else {
                s = deriveScramKeys ? new Secret(null, ScramCredential.fromPassword(secret))
                        : new Secret(secret.getBytes(StandardCharsets.UTF_8), null);
            }
            secrets.put(user, s);
        });
        return Collections.unmodifiableMap(secrets);
    }

    /**
     * The same authentication, also admitting users it does not configure whose SCRAM verifier {@code roles} gives
     * (null: no such user, or one that may not log in), read at each login: roles created after the start.
     */
    public Authentication withRoles(java.util.function.Function<String, String> roles) {
        return new Authentication(method, users, roles);
    }

    /** A user's secret: configured, or a role's verifier; null when there is none. */
    private Secret secret(String user) {
        Secret secret = users.get(user);
        if (secret != null) {
            return secret;
        }
        String verifier = roles.apply(user);
        if (verifier == null) {
            return null;
        }
        try {
            return new Secret(null, ScramCredential.parse(verifier));
        } catch (IllegalArgumentException e) {
            return null; // a malformed verifier admits no one
        }
    }

    public Method method() {
        return method;
    }

    /** The configured user names. */
    public Set<String> users() {
        return users.keySet();
    }

    /**
     * A SCRAM exchange for {@code user}. An unknown user gets a mock exchange that fails at the proof, so that a
     * client cannot tell unknown users from wrong passwords.
     */
    public ScramSha256 scramExchange(String user) {
        Secret secret = secret(user);
        if (secret == null || secret.credential() == null) {
            return new ScramSha256(ScramSha256.mockCredential(user, mockSecret), false);
        }
        return new ScramSha256(secret.credential(), true);
    }

    /** True when checking {@code user}'s clear-text password needs a key derivation (a PBKDF2: not on an event loop). */
    public boolean passwordCheckIsSlow(String user) {
        Secret secret = secret(user);
        return secret != null && secret.password() == null;
    }

    /** Checks a clear-text password (constant time against a stored password; PBKDF2 against a verifier). */
    public boolean checkPassword(String user, String password) {
        Secret secret = secret(user);
        if (secret == null) {
            return false;
        }
        if (secret.password() != null) {
            return MessageDigest.isEqual(secret.password(), password.getBytes(StandardCharsets.UTF_8));
        }
        return secret.credential().matches(password);
    }

    @Override
    public String toString() {
        return "Authentication[" + method.pgName() + ", users=" + users.keySet() + "]";
    }
}
