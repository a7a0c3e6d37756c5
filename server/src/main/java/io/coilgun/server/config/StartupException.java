package io.coilgun.server.config;

/** A problem that stops the node from starting, said in one line for the operator (no stack trace). */
public final class StartupException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public StartupException(String message) {
        super(message);
    }

    public StartupException(String message, Throwable cause) {
        super(message, cause);
    }
}
