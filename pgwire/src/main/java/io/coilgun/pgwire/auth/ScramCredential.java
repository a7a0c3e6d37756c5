package io.coilgun.pgwire.auth;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the server keeps of a SCRAM-SHA-256 password (RFC 5802 section 3): the salt, the iteration count, StoredKey
 * and ServerKey. Never the password itself. Written as Postgres writes {@code pg_authid.rolpassword}:
 * {@code SCRAM-SHA-256$<iterations>:<salt base64>$<StoredKey base64>:<ServerKey base64>}.
 */
public record ScramCredential(byte[] salt, int iterations, byte[] storedKey, byte[] serverKey) {
    /** Iterations for a credential derived from a plain password, as Postgres' scram_iterations default. */
    public static final int DEFAULT_ITERATIONS = 4096;
    public static final String PREFIX = "SCRAM-SHA-256$";
    private static final int SALT_LENGTH = 16;
    private static final Pattern VERIFIER = Pattern.compile(
            "SCRAM-SHA-256\\$(\\d{1,9}):([A-Za-z0-9+/=]+)\\$([A-Za-z0-9+/=]+):([A-Za-z0-9+/=]+)");
    private static final SecureRandom RANDOM = new SecureRandom();

    public ScramCredential {
        if (iterations < 1) {
            throw new IllegalArgumentException("iterations must be positive: " + iterations);
        }
        if (storedKey.length != ScramSha256.KEY_LENGTH || serverKey.length != ScramSha256.KEY_LENGTH) {
            throw new IllegalArgumentException("StoredKey and ServerKey must be 32 bytes");
        }
        salt = salt.clone();
        storedKey = storedKey.clone();
        serverKey = serverKey.clone();
    }

    /** True for a string in the verifier format (which {@link #parse} may still refuse as malformed). */
    public static boolean isVerifier(String secret) {
        return secret.startsWith(PREFIX);
    }

    /**
     * Reads a verifier {@code SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:<ServerKey>}.
     *
     * @throws IllegalArgumentException if it is malformed
     */
    public static ScramCredential parse(String verifier) {
        Matcher m = VERIFIER.matcher(verifier);
        if (!m.matches()) {
            throw new IllegalArgumentException(
                    "malformed SCRAM-SHA-256 verifier: expected SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:<ServerKey>");
        }
        int iterations = Integer.parseInt(m.group(1));
        if (iterations < 1) {
            throw new IllegalArgumentException("malformed SCRAM-SHA-256 verifier: iterations must be positive");
        }
        byte[] salt;
        byte[] stored;
        byte[] server;
        try {
            Base64.Decoder b64 = Base64.getDecoder();
            salt = b64.decode(m.group(2));
            stored = b64.decode(m.group(3));
            server = b64.decode(m.group(4));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("malformed SCRAM-SHA-256 verifier: bad base64 (" + e.getMessage() + ")");
        }
        if (stored.length != ScramSha256.KEY_LENGTH || server.length != ScramSha256.KEY_LENGTH) {
            throw new IllegalArgumentException("malformed SCRAM-SHA-256 verifier: StoredKey and ServerKey must be "
                    + "32 bytes each");
        }
        return new ScramCredential(salt, iterations, stored, server);
    }

    /** A credential for {@code password} with a fresh random salt and {@value #DEFAULT_ITERATIONS} iterations. */
    public static ScramCredential fromPassword(String password) {
        byte[] salt = new byte[SALT_LENGTH];
        RANDOM.nextBytes(salt);
        return fromPassword(password, salt, DEFAULT_ITERATIONS);
    }

    /** The credential for {@code password}: PBKDF2 (SCRAM's Hi) of the SASLprep'd password, then the keys. */
    public static ScramCredential fromPassword(String password, byte[] salt, int iterations) {
        byte[] saltedPassword = ScramSha256.hi(ScramSha256.normalize(password), salt, iterations);
        byte[] clientKey = ScramSha256.hmac(saltedPassword, "Client Key".getBytes(StandardCharsets.US_ASCII));
        return new ScramCredential(salt, iterations, ScramSha256.sha256(clientKey),
                ScramSha256.hmac(saltedPassword, "Server Key".getBytes(StandardCharsets.US_ASCII)));
    }

    /** True if {@code password} derives this credential's StoredKey (one PBKDF2: not for the event loop). */
    public boolean matches(String password) {
        byte[] saltedPassword = ScramSha256.hi(ScramSha256.normalize(password), salt, iterations);
        byte[] clientKey = ScramSha256.hmac(saltedPassword, "Client Key".getBytes(StandardCharsets.US_ASCII));
        return MessageDigest.isEqual(ScramSha256.sha256(clientKey), storedKey);
    }

    @Override
    public byte[] salt() {
        return salt.clone();
    }

    @Override
    public byte[] storedKey() {
        return storedKey.clone();
    }

    @Override
    public byte[] serverKey() {
        return serverKey.clone();
    }

    /** The verifier string, as {@link #parse} reads it. */
    public String toVerifier() {
        Base64.Encoder b64 = Base64.getEncoder();
        return PREFIX + iterations + ":" + b64.encodeToString(salt) + "$" + b64.encodeToString(storedKey) + ":"
                + b64.encodeToString(serverKey);
    }

    @Override
    public String toString() {
        return "ScramCredential[iterations=" + iterations + "]"; // no key material in logs
    }
}
