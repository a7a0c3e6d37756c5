package io.coilgun.pgwire.auth;

import io.coilgun.pgwire.spi.SqlStates;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.text.Normalizer;
import java.util.Arrays;
import java.util.Base64;
import java.util.function.Supplier;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The server side of one SCRAM-SHA-256 exchange (RFC 5802, RFC 7677), as Postgres runs it: no channel binding
 * (only {@code SCRAM-SHA-256} is offered, so the client's GS2 header is {@code n,,} or {@code y,,}), the user
 * name of the startup message (the {@code n=} attribute is ignored), no authorization identity.
 *
 * <pre>
 *  client-first  n,,n=,r=&lt;client nonce&gt;          ──▶  {@link #clientFirst}
 *  server-first  r=&lt;nonce&gt;,s=&lt;salt&gt;,i=&lt;iterations&gt;  ◀──
 *  client-final  c=biws,r=&lt;nonce&gt;,p=&lt;proof&gt;        ──▶  {@link #clientFinal}: checks the proof
 *  server-final  v=&lt;server signature&gt;                ◀──
 * </pre>
 *
 * <p>Pure and single-use; no PBKDF2 during the exchange (the credential holds the derived keys). A malformed
 * message throws {@link ScramException} with SQLSTATE 08P01, a wrong proof with 28P01.
 */
public final class ScramSha256 {
    public static final String MECHANISM = "SCRAM-SHA-256";
    static final int KEY_LENGTH = 32;
    private static final SecureRandom RANDOM = new SecureRandom();

    private enum Step { CLIENT_FIRST, CLIENT_FINAL, DONE }

    private final ScramCredential credential;
    /** False for an unknown user: the exchange runs to the end with a mock credential, then fails. */
    private final boolean knownUser;
    private final Supplier<String> nonces;
    private Step step = Step.CLIENT_FIRST;
    private String gs2Header;
    private String clientFirstBare;
    private String serverFirst;
    private String nonce;

    /** An exchange against {@code credential}; {@code knownUser} false makes it fail at the proof, whatever it is. */
    public ScramSha256(ScramCredential credential, boolean knownUser) {
        this(credential, knownUser, ScramSha256::randomNonce);
    }

    /** With a given source of server nonces (tests: RFC 7677's vector). */
    ScramSha256(ScramCredential credential, boolean knownUser, Supplier<String> nonces) {
        this.credential = credential;
        this.knownUser = knownUser;
        this.nonces = nonces;
    }

    /** Reads client-first-message and answers server-first-message. */
    public String clientFirst(String message) {
        if (step != Step.CLIENT_FIRST) {
            throw malformed("unexpected client-first-message");
        }
        step = Step.CLIENT_FINAL;
        if (message.startsWith("p=")) {
            throw new ScramException(SqlStates.PROTOCOL_VIOLATION, "channel binding is not supported: the server offers SCRAM-SHA-256 only,"
                    + " without -PLUS");
        }
        if (!message.startsWith("n,") && !message.startsWith("y,")) {
            throw malformed("unexpected channel-binding flag in client-first-message");
        }
        int authzEnd = message.indexOf(',', 2);
        if (authzEnd < 0) {
            throw malformed("missing GS2 header end in client-first-message");
        }
        if (authzEnd != 2) {
            throw new ScramException(SqlStates.FEATURE_NOT_SUPPORTED, "client uses authorization identity, but it is not supported");
        }
        gs2Header = message.substring(0, authzEnd + 1);
        clientFirstBare = message.substring(authzEnd + 1);
        if (clientFirstBare.startsWith("m=")) {
            throw malformed("client requires an unsupported SCRAM extension");
        }
        String[] attributes = clientFirstBare.split(",", -1);
        if (attributes.length < 2 || !attributes[0].startsWith("n=")) {
            throw malformed("expected attribute \"n\" in client-first-message");
        }
        if (!attributes[1].startsWith("r=") || attributes[1].length() == 2) {
            throw malformed("expected attribute \"r\" in client-first-message");
        }
        String clientNonce = attributes[1].substring(2);
        if (!printable(clientNonce)) {
            throw malformed("invalid nonce in client-first-message");
        }
        nonce = clientNonce + nonces.get();
        serverFirst = "r=" + nonce + ",s=" + Base64.getEncoder().encodeToString(credential.salt()) + ",i="
                + credential.iterations();
        return serverFirst;
    }

    /**
     * Reads client-final-message, checks the proof and answers server-final-message.
     *
     * @throws ScramException 28P01 when the proof is wrong (or the user unknown), 08P01 when malformed
     */
    public String clientFinal(String message) {
        if (step != Step.CLIENT_FINAL) {
            throw malformed("unexpected client-final-message");
        }
        step = Step.DONE;
        int proofAt = message.lastIndexOf(",p=");
        if (proofAt < 0) {
            throw malformed("could not find proof in client-final-message");
        }
        String withoutProof = message.substring(0, proofAt);
        String[] attributes = withoutProof.split(",", -1);
        if (attributes.length < 2 || !attributes[0].startsWith("c=")) {
            throw malformed("expected attribute \"c\" in client-final-message");
        }
        byte[] binding = decode(attributes[0].substring(2), "channel binding");
        if (!Arrays.equals(binding, gs2Header.getBytes(StandardCharsets.US_ASCII))) {
            throw malformed("unexpected SCRAM channel-binding attribute in client-final-message");
        }
        if (!attributes[1].startsWith("r=")) {
            throw malformed("expected attribute \"r\" in client-final-message");
        }
        if (!attributes[1].substring(2).equals(nonce)) {
            throw malformed("nonce in client-final-message does not match");
        }
        byte[] proof = decode(message.substring(proofAt + 3), "proof");
        if (proof.length != KEY_LENGTH) {
            throw malformed("invalid proof length in client-final-message");
        }
        byte[] authMessage = (clientFirstBare + "," + serverFirst + "," + withoutProof)
                .getBytes(StandardCharsets.UTF_8);
        byte[] clientSignature = hmac(credential.storedKey(), authMessage);
        byte[] clientKey = new byte[KEY_LENGTH];
        for (int i = 0; i < KEY_LENGTH; i++) {
            clientKey[i] = (byte) (proof[i] ^ clientSignature[i]);
        }
        boolean valid = MessageDigest.isEqual(sha256(clientKey), credential.storedKey()); // constant time
        if (!valid || !knownUser) {
            throw new ScramException(SqlStates.INVALID_PASSWORD, null);
        }
        return "v=" + Base64.getEncoder().encodeToString(hmac(credential.serverKey(), authMessage));
    }

    /** A credential no proof matches, with a salt that depends only on the user name (as Postgres' mock). */
    public static ScramCredential mockCredential(String user, byte[] secret) {
        byte[] salt = Arrays.copyOf(hmac(secret, user.getBytes(StandardCharsets.UTF_8)), 16);
        byte[] unmatchable = new byte[KEY_LENGTH];
        RANDOM.nextBytes(unmatchable);
        return new ScramCredential(salt, ScramCredential.DEFAULT_ITERATIONS, unmatchable, unmatchable);
    }

    private static String randomNonce() {
        byte[] raw = new byte[18];
        RANDOM.nextBytes(raw);
        return Base64.getEncoder().encodeToString(raw);
    }

    private static boolean printable(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 0x21 || c > 0x7E || c == ',') {
                return false;
            }
        }
        return true;
    }

    private static byte[] decode(String base64, String what) {
        try {
            return Base64.getDecoder().decode(base64);
        } catch (IllegalArgumentException e) {
            throw malformed("malformed " + what + " in client-final-message");
        }
    }

    private static ScramException malformed(String detail) {
        return new ScramException(SqlStates.PROTOCOL_VIOLATION, "malformed SCRAM message: " + detail);
    }

    /**
     * SASLprep (RFC 4013) as far as it changes a password: non-ASCII spaces become spaces, characters mapped to
     * nothing are dropped, then NFKC. Like Postgres, a password that SASLprep would refuse is used as it is.
     */
    static byte[] normalize(String password) {
        boolean ascii = true;
        for (int i = 0; i < password.length() && ascii; i++) {
            ascii = password.charAt(i) < 0x80;
        }
        if (ascii) {
            return password.getBytes(StandardCharsets.UTF_8);
        }
        StringBuilder mapped = new StringBuilder(password.length());
        for (int i = 0; i < password.length(); i++) {
            char c = password.charAt(i);
            if (c == 0x00A0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200B) || c == 0x202F || c == 0x205F
                    || c == 0x3000) {
                mapped.append(' ');
            } else if (c == 0x00AD || c == 0x034F || c == 0x1806 || (c >= 0x180B && c <= 0x180D)
                    || (c >= 0x200C && c <= 0x200D) || c == 0x2060 || (c >= 0xFE00 && c <= 0xFE0F) || c == 0xFEFF) {
                continue;
            } else {
                mapped.append(c);
            }
        }
        return Normalizer.normalize(mapped, Normalizer.Form.NFKC).getBytes(StandardCharsets.UTF_8);
    }

    /** Hi(password, salt, i) of RFC 5802: PBKDF2 with HMAC-SHA-256, one block. */
    static byte[] hi(byte[] password, byte[] salt, int iterations) {
        try {
            Mac mac = mac(password);
            mac.update(salt);
            mac.update(new byte[] {0, 0, 0, 1});
            byte[] u = mac.doFinal();
            byte[] result = u.clone();
            for (int i = 1; i < iterations; i++) {
                u = mac.doFinal(u);
                for (int j = 0; j < result.length; j++) {
                    result[j] ^= u[j];
                }
            }
            return result;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 unavailable", e);
        }
    }

    static byte[] hmac(byte[] key, byte[] data) {
        try {
            return mac(key).doFinal(data);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 unavailable", e);
        }
    }

    private static Mac mac(byte[] key) throws GeneralSecurityException {
        Mac mac = Mac.getInstance("HmacSHA256");
        // An empty key is legal for HMAC but not for SecretKeySpec: HMAC pads keys with zeros anyway.
        mac.init(new SecretKeySpec(key.length == 0 ? new byte[1] : key, "HmacSHA256"));
        return mac;
    }

    static byte[] sha256(byte[] data) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(data);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("SHA-256 unavailable", e);
        }
    }
}
