package io.coilgun.pgwire.auth;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The server side of SCRAM-SHA-256 against RFC 7677's example exchange, and its failures. */
class ScramSha256Test {
    private static final byte[] SALT = Base64.getDecoder().decode("W22ZaJ0SNY7soEsUEjb6gQ==");
    private static final String SERVER_NONCE = "%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0";
    private static final String CLIENT_FIRST = "n,,n=user,r=rOprNGfwEbeRWgbNEkqO";
    private static final String SERVER_FIRST = "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,"
            + "s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096";
    private static final String CLIENT_FINAL = "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,"
            + "p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=";
    private static final String SERVER_FINAL = "v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=";

    private static final ScramCredential PENCIL = ScramCredential.fromPassword("pencil", SALT, 4096);

    private static ScramSha256 exchange(ScramCredential credential, boolean known) {
        return new ScramSha256(credential, known, () -> SERVER_NONCE);
    }

    @Test
    void rfc7677Example() {
        ScramSha256 scram = exchange(PENCIL, true);
        assertEquals(SERVER_FIRST, scram.clientFirst(CLIENT_FIRST));
        assertEquals(SERVER_FINAL, scram.clientFinal(CLIENT_FINAL));
    }

    @Test
    void verifierRoundTripsAndWorksLikeThePassword() {
        String verifier = PENCIL.toVerifier();
        assertTrue(verifier.startsWith("SCRAM-SHA-256$4096:W22ZaJ0SNY7soEsUEjb6gQ==$"), verifier);
        ScramCredential parsed = ScramCredential.parse(verifier);
        assertArrayEquals(PENCIL.storedKey(), parsed.storedKey());
        assertArrayEquals(PENCIL.serverKey(), parsed.serverKey());
        ScramSha256 scram = exchange(parsed, true);
        assertEquals(SERVER_FIRST, scram.clientFirst(CLIENT_FIRST));
        assertEquals(SERVER_FINAL, scram.clientFinal(CLIENT_FINAL));
        assertTrue(parsed.matches("pencil"));
        assertFalse(parsed.matches("pencil2"));
    }

    @Test
    void postgresVerifierOfAKnownPassword() {
        // As Postgres 15 stores it for PASSWORD 'secret' with this salt (computed independently, RFC 5802 formulas).
        ScramCredential derived = ScramCredential.fromPassword("secret",
                Base64.getDecoder().decode("c2FsdHNhbHRzYWx0c2FsdA=="), 4096);
        ScramCredential parsed = ScramCredential.parse(derived.toVerifier());
        assertTrue(parsed.matches("secret"));
    }

    @Test
    void acceptsYFlagWhenTheClientCouldBindButTheServerDoesNotOffer() {
        ScramSha256 scram = exchange(PENCIL, true);
        String first = scram.clientFirst("y,,n=,r=abc");
        assertTrue(first.startsWith("r=abc" + SERVER_NONCE + ","), first);
        ScramException wrongProof = assertThrows(ScramException.class,
                () -> scram.clientFinal("c=eSws,r=abc" + SERVER_NONCE + ",p="
                        + Base64.getEncoder().encodeToString(new byte[32])));
        assertEquals("28P01", wrongProof.sqlState());
    }

    @Test
    void wrongProofFails() {
        ScramSha256 scram = exchange(PENCIL, true);
        scram.clientFirst(CLIENT_FIRST);
        String tampered = CLIENT_FINAL.replace("p=dHzb", "p=dHzc");
        assertEquals("28P01", assertThrows(ScramException.class, () -> scram.clientFinal(tampered)).sqlState());
    }

    @Test
    void unknownUserFailsEvenWithTheRightProof() {
        ScramSha256 scram = exchange(PENCIL, false);
        scram.clientFirst(CLIENT_FIRST);
        assertEquals("28P01", assertThrows(ScramException.class, () -> scram.clientFinal(CLIENT_FINAL)).sqlState());
    }

    @Test
    void mockCredentialHasAStableSaltPerUser() {
        byte[] secret = "k".getBytes(StandardCharsets.UTF_8);
        assertArrayEquals(ScramSha256.mockCredential("bob", secret).salt(),
                ScramSha256.mockCredential("bob", secret).salt());
        assertFalse(java.util.Arrays.equals(ScramSha256.mockCredential("bob", secret).salt(),
                ScramSha256.mockCredential("eve", secret).salt()));
    }

    @Test
    void channelBindingIsRefused() {
        ScramException e = assertThrows(ScramException.class,
                () -> exchange(PENCIL, true).clientFirst("p=tls-server-end-point,,n=,r=abc"));
        assertEquals("08P01", e.sqlState());
        assertTrue(e.getMessage().contains("channel binding is not supported"), e.getMessage());
    }

    @Test
    void malformedMessagesAreProtocolViolations() {
        for (String bad : new String[] {"", "x,,n=,r=a", "n,", "n,,r=a", "n,,n=", "n,,n=,r=", "n,,m=ext,n=,r=a",
                "n,,n=,r=a b"}) {
            ScramException e = assertThrows(ScramException.class, () -> exchange(PENCIL, true).clientFirst(bad), bad);
            assertEquals("08P01", e.sqlState(), bad);
        }
        assertEquals("0A000", assertThrows(ScramException.class,
                () -> exchange(PENCIL, true).clientFirst("n,a=admin,n=,r=a")).sqlState());

        String nonce = "rOprNGfwEbeRWgbNEkqO" + SERVER_NONCE;
        for (String bad : new String[] {"", "c=biws,r=" + nonce, "c=eSws,r=" + nonce + ",p=AAAA",
                "c=biws,r=other,p=" + Base64.getEncoder().encodeToString(new byte[32]),
                "c=biws,r=" + nonce + ",p=AAAA", "c=biws,r=" + nonce + ",p=!!", "r=" + nonce + ",p=AAAA"}) {
            ScramSha256 scram = exchange(PENCIL, true);
            scram.clientFirst(CLIENT_FIRST);
            ScramException e = assertThrows(ScramException.class, () -> scram.clientFinal(bad), bad);
            assertEquals("08P01", e.sqlState(), bad);
        }
        ScramSha256 twice = exchange(PENCIL, true);
        twice.clientFirst(CLIENT_FIRST);
        assertEquals("08P01", assertThrows(ScramException.class, () -> twice.clientFirst(CLIENT_FIRST)).sqlState());
    }

    @Test
    void malformedVerifiersAreRefused() {
        for (String bad : new String[] {"SCRAM-SHA-256$", "SCRAM-SHA-256$4096:c2FsdA==$AAAA:AAAA",
                "SCRAM-SHA-256$x:c2FsdA==$" + key() + ":" + key(), "SCRAM-SHA-256$0:c2FsdA==$" + key() + ":" + key(),
                "SCRAM-SHA-256$4096:c2Fs=dA$" + key() + ":" + key()}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ScramCredential.parse(bad),
                    bad);
            assertTrue(e.getMessage().contains("verifier") || e.getMessage().contains("iterations"), e.getMessage());
        }
    }

    @Test
    void saslPrepMapsSpacesAndNormalizes() {
        assertArrayEquals("a b".getBytes(StandardCharsets.UTF_8), ScramSha256.normalize("a\u00A0b"));
        assertArrayEquals("ab".getBytes(StandardCharsets.UTF_8), ScramSha256.normalize("a\u00ADb"));
        assertArrayEquals("IX".getBytes(StandardCharsets.UTF_8), ScramSha256.normalize("\u2168"));
        assertArrayEquals("pencil".getBytes(StandardCharsets.UTF_8), ScramSha256.normalize("pencil"));
    }

    @Test
    void authenticationRefusesBadUserLists() {
        assertThrows(IllegalArgumentException.class, () -> Authentication.scram(Map.of()));
        assertThrows(IllegalArgumentException.class, () -> Authentication.scram(Map.of("a", "")));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Authentication.password(Map.of("alice", "SCRAM-SHA-256$broken")));
        assertTrue(e.getMessage().contains("\"alice\""), e.getMessage());
        Authentication password = Authentication.password(Map.of("alice", "s3cret", "bob", PENCIL.toVerifier()));
        assertTrue(password.checkPassword("alice", "s3cret"));
        assertFalse(password.checkPassword("alice", "s3cre"));
        assertFalse(password.passwordCheckIsSlow("alice"));
        assertTrue(password.passwordCheckIsSlow("bob"));
        assertTrue(password.checkPassword("bob", "pencil"));
        assertFalse(password.checkPassword("bob", "s3cret"));
        assertFalse(password.checkPassword("carol", "s3cret"));
    }

    private static String key() {
        return Base64.getEncoder().encodeToString(new byte[32]);
    }
}
