package io.coilgun.pgwire.spi;

/**
 * An error sent to the client as an ErrorResponse: severity, SQLSTATE, message and, when the error points
 * into the SQL text, the 1-based character position (0 when none).
 */
public class PgException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final String sqlState;
    private final int position;
    private final boolean fatal;

    public PgException(String sqlState, String message) {
        this(sqlState, message, 0, false);
    }

    public PgException(String sqlState, String message, int position) {
        this(sqlState, message, position, false);
    }

    public PgException(String sqlState, String message, int position, boolean fatal) {
        super(message);
        this.sqlState = sqlState;
        this.position = position;
        this.fatal = fatal;
    }

    public String sqlState() {
        return sqlState;
    }

    public int position() {
        return position;
    }

    /** The DETAIL field, or null. */
    public String detail() {
        return null;
    }

    /** The HINT field, or null. */
    public String hint() {
        return null;
    }

    /** The CONTEXT ("where") field, or null. */
    public String context() {
        return null;
    }

    /** The ROUTINE field (Postgres' function that raised it), which some drivers read, or null. */
    public String routine() {
        return null;
    }

    /** FATAL errors close the connection after the ErrorResponse. */
    public boolean fatal() {
        return fatal;
    }
}
