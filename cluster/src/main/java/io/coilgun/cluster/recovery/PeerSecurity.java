package io.coilgun.cluster.recovery;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.HexFormat;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import javax.net.ssl.SSLContext;

/**
 * How task data moves between peers (peer recovery): over TLS when the node has a certificate, and proven with the
 * cluster's secret when one is configured. With a secret, every request to a snapshot server carries
 * {@code <millis>.<nonce>.<HMAC-SHA256(secret, method, target, millis, nonce)>} (refused beyond five minutes of
 * skew, and taken once: the server remembers the proofs within that window, {@link SeenProofs}), and a snapshot's manifest comes back signed with HMAC-SHA256(secret, that request's proof, manifest): a
 * node takes a snapshot only from a peer that holds the secret, and each file of it only when its CRC32C is the
 * signed manifest's. Without a secret, the server's random token from the node's status is the proof (as before).
 *
 * @param serverTls the snapshot server's TLS (the node's certificate), or null: plain HTTP
 * @param clientTls whom a peer copy trusts when a peer serves HTTPS (the cluster's CA), or null: the JDK's CAs
 * @param secret the cluster secret, or null
 */
public record PeerSecurity(SSLContext serverTls, SSLContext clientTls, byte[] secret) {
    public static final PeerSecurity NONE = new PeerSecurity(null, null, null);
    /** How far a request's clock may be from the server's. */
    static final long SKEW_MS = 5 * 60_000;
    private static final SecureRandom RANDOM = new SecureRandom();

    /** The proof for a request ({@code target}: its raw path and query). */
    String authorize(String method, String target, long nowMillis) {
        byte[] nonce = new byte[12];
        RANDOM.nextBytes(nonce);
        String head = nowMillis + "." + HexFormat.of().formatHex(nonce);
        return head + "." + mac(method + " " + target + " " + head);
    }

    /** Whether {@code proof} is this secret's for this request, made within {@link #SKEW_MS} of now. */
    boolean authorized(String proof, String method, String target, long nowMillis) {
        if (proof == null) {
            return false;
        }
        int last = proof.lastIndexOf('.');
        int first = proof.indexOf('.');
        if (first <= 0 || last <= first) {
            return false;
        }
        long at;
        try {
            at = Long.parseLong(proof.substring(0, first));
        } catch (NumberFormatException e) {
            return false;
        }
        String head = proof.substring(0, last);
        return Math.abs(nowMillis - at) <= SKEW_MS && MessageDigest.isEqual(
                mac(method + " " + target + " " + head).getBytes(StandardCharsets.US_ASCII),
                proof.substring(last + 1).getBytes(StandardCharsets.US_ASCII));
    }

    /** The signature of an answer to the request that carried {@code proof}. */
    String sign(String proof, String body) {
        return mac(proof + "\n" + body);
    }

    boolean signed(String proof, String body, String signature) {
        return signature != null && MessageDigest.isEqual(sign(proof, body).getBytes(StandardCharsets.US_ASCII),
                signature.getBytes(StandardCharsets.US_ASCII));
    }

    private String mac(String text) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret, "HmacSHA256"));
            return HexFormat.of().formatHex(mac.doFinal(text.getBytes(StandardCharsets.UTF_8)));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256", e);
        }
    }

    @Override
    public String toString() {
        return "PeerSecurity[tls=" + (serverTls != null) + ", secret=" + (secret != null) + "]"; // never the secret
    }
}
