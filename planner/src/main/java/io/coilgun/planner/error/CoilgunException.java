package io.coilgun.planner.error;

/**
 * An error a user can cause (or a server-side failure), with its SQLSTATE and, when it comes from
 * SQL text, the 1-based character position in that text (0 when there is none). The server maps it to
 * a Postgres ErrorResponse in one place.
 */
public class CoilgunException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final SqlState state;
    private final int position;

    public CoilgunException(SqlState state, String message) {
        this(state, message, 0, null);
    }

    public CoilgunException(SqlState state, String message, int position) {
        this(state, message, position, null);
    }

    public CoilgunException(SqlState state, String message, int position, Throwable cause) {
        super(message, cause);
        this.state = state;
        this.position = position;
    }

    public SqlState state() {
        return state;
    }

    /** 1-based character offset into the statement text, or 0 if unknown. */
    public int position() {
        return position;
    }

    /** The same error with a position, if it has none yet. */
    public CoilgunException withPositionIfAbsent(int pos) {
        if (position > 0 || pos <= 0) {
            return this;
        }
        return new CoilgunException(state, getMessage(), pos, getCause());
    }
}
