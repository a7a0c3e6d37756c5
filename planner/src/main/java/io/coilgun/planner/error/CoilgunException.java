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
    private String detail;
    private String hint;

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

    /** An error with Postgres' DETAIL and HINT fields (either may be null). */
    public CoilgunException(SqlState state, String message, String detail, String hint) {
        this(state, message, 0, null);
        this.detail = detail;
        this.hint = hint;
    }

    /** The DETAIL field, or null. */
    public String detail() {
        return detail;
    }

    /** The HINT field, or null. */
    public String hint() {
        return hint;
    }

    public SqlState state() {
        return state;
    }

    /** 1-based character offset into the statement text, or 0 if unknown. */
    public int position() {
        return position;
    }

    /** The same error at another position (the same place in another text). */
    public CoilgunException at(int pos) {
        CoilgunException e = new CoilgunException(state, getMessage(), pos, getCause());
        e.detail = detail;
        e.hint = hint;
        return e;
    }

    /** The same error with a position, if it has none yet. */
    public CoilgunException withPositionIfAbsent(int pos) {
        if (position > 0 || pos <= 0) {
            return this;
        }
        return at(pos);
    }
}
