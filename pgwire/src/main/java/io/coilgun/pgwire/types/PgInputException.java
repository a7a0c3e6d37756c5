package io.coilgun.pgwire.types;

/**
 * A parameter value that does not read as its type, with the SQLSTATE Postgres' input and receive functions
 * report for the same fault, e.g. {@code 22P02} for {@code invalid input syntax for type integer: "abc"}.
 */
public final class PgInputException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;


    private final String sqlState;

    public PgInputException(String sqlState, String message) {
        super(message);
        this.sqlState = sqlState;
    }

    public String sqlState() {
        return sqlState;
    }
}
