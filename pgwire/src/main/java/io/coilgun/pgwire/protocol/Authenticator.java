package io.coilgun.pgwire.protocol;

import io.coilgun.pgwire.spi.SqlStates;
import io.coilgun.pgwire.auth.Authentication;
import io.coilgun.pgwire.auth.ScramException;
import io.coilgun.pgwire.auth.ScramSha256;
import io.coilgun.pgwire.codec.AuthenticationRequest;
import io.coilgun.pgwire.codec.BackendMessage;
import io.coilgun.pgwire.spi.PgException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * One connection's authentication, between the StartupMessage and AuthenticationOk. Reads the 'p' messages
 * (PasswordMessage, SASLInitialResponse, SASLResponse: the same type byte, told apart by the step):
 *
 * <pre>
 *  password:       ◀── AuthenticationCleartextPassword   PasswordMessage ──▶
 *  scram-sha-256:  ◀── AuthenticationSASL [SCRAM-SHA-256]
 *                  SASLInitialResponse (client-first) ──▶  ◀── AuthenticationSASLContinue (server-first)
 *                  SASLResponse (client-final)        ──▶  ◀── AuthenticationSASLFinal (server-final)
 *  then            ◀── AuthenticationOk, or FATAL 28P01 "password authentication failed for user …"
 * </pre>
 */
final class Authenticator {
    /** What to send after a client message: {@code reply} (may be null), then more to read unless {@code done}. */
    record Outcome(BackendMessage reply, boolean done) {
    }

    private final Authentication authentication;
    private final String user;
    private ScramSha256 scram;
    private boolean saslStarted;

    Authenticator(Authentication authentication, String user) {
        this.authentication = authentication;
        this.user = user;
    }

    /** The first request to the client, or null when no password is asked (trust). */
    BackendMessage start() {
        return switch (authentication.method()) {
            case TRUST -> null;
            case PASSWORD -> AuthenticationRequest.cleartextPassword();
            case SCRAM_SHA_256 -> {
                scram = authentication.scramExchange(user);
                yield AuthenticationRequest.sasl(List.of(ScramSha256.MECHANISM));
            }
        };
    }

    /**
     * Reads one 'p' message body. Completes at once except for a clear-text password checked against a SCRAM
     * verifier, whose PBKDF2 runs on the common pool. Fails with a FATAL {@link PgException}.
     */
    CompletionStage<Outcome> respond(byte[] body) {
        try {
            if (authentication.method() == Authentication.Method.PASSWORD) {
                return password(body);
            }
            return CompletableFuture.completedFuture(sasl(body));
        } catch (PgException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    private CompletionStage<Outcome> password(byte[] body) {
        String password = cstring(body, "invalid password packet size");
        if (password.isEmpty()) {
            throw failed(); // as Postgres: an empty password never matches
        }
        if (authentication.passwordCheckIsSlow(user)) {
            return CompletableFuture.supplyAsync(() -> checked(authentication.checkPassword(user, password)));
        }
        return CompletableFuture.completedFuture(checked(authentication.checkPassword(user, password)));
    }

    private Outcome checked(boolean matches) {
        if (!matches) {
            throw failed();
        }
        return new Outcome(null, true);
    }

    private Outcome sasl(byte[] body) {
        try {
            if (!saslStarted) {
                saslStarted = true;
                return new Outcome(AuthenticationRequest.saslContinue(scram.clientFirst(initialResponse(body))), false);
            }
            String serverFinal = scram.clientFinal(new String(body, StandardCharsets.UTF_8));
            return new Outcome(AuthenticationRequest.saslFinal(serverFinal), true);
        } catch (ScramException e) {
            throw SqlStates.INVALID_PASSWORD.equals(e.sqlState()) ? failed() : new PgException(e.sqlState(), e.getMessage(), 0, true);
        }
    }

    /** SASLInitialResponse: the mechanism (a string), then Int32 length and the client-first-message. */
    private static String initialResponse(byte[] body) {
        int end = indexOfNul(body);
        if (end < 0) {
            throw protocolViolation("malformed SASLInitialResponse message");
        }
        String mechanism = new String(body, 0, end, StandardCharsets.UTF_8);
        if (!ScramSha256.MECHANISM.equals(mechanism)) {
            throw protocolViolation("client selected an invalid SASL authentication mechanism");
        }
        int at = end + 1;
        if (body.length - at < 4) {
            throw protocolViolation("malformed SASLInitialResponse message");
        }
        int length = ((body[at] & 0xFF) << 24) | ((body[at + 1] & 0xFF) << 16) | ((body[at + 2] & 0xFF) << 8)
                | (body[at + 3] & 0xFF);
        at += 4;
        if (length != body.length - at) {
            throw protocolViolation("malformed SASLInitialResponse message");
        }
        return new String(body, at, length, StandardCharsets.UTF_8);
    }

    private static String cstring(byte[] body, String error) {
        int end = indexOfNul(body);
        if (end < 0 || end != body.length - 1) {
            throw protocolViolation(error);
        }
        return new String(body, 0, end, StandardCharsets.UTF_8);
    }

    private static int indexOfNul(byte[] body) {
        for (int i = 0; i < body.length; i++) {
            if (body[i] == 0) {
                return i;
            }
        }
        return -1;
    }

    private PgException failed() {
        return new PgException(SqlStates.INVALID_PASSWORD, "password authentication failed for user \"" + user + "\"", 0, true);
    }

    private static PgException protocolViolation(String message) {
        return new PgException(SqlStates.PROTOCOL_VIOLATION, message, 0, true);
    }
}
