package io.coilgun.pgwire.auth;

/**
 * A failed SCRAM exchange: SQLSTATE 28P01 (wrong password or unknown user; the message is left to the caller,
 * which names the user) or 08P01/0A000 for a message the protocol does not allow.
 */
public final class ScramException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final String sqlState;

    public ScramException(String sqlState, String message) {
        super(message, null, false, false);
        this.sqlState = sqlState;
    }

    public String sqlState() {
        return sqlState;
    }
}
