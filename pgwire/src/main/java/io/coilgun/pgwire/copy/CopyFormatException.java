package io.coilgun.pgwire.copy;

import io.coilgun.pgwire.spi.CopyFormat;
import io.coilgun.pgwire.spi.PgException;

/**
 * COPY FROM data that Postgres would reject, with its SQLSTATE, message and hint, the 1-based input line it was
 * found on, and the CONTEXT line Postgres reports: {@code COPY payments, line 3} for an error found while reading
 * the line, {@code COPY payments, line 3: "raw line"} (the raw line cut to 100 bytes, then "...") for one found
 * in a line already read.
 */
public final class CopyFormatException extends PgException {
    private static final long serialVersionUID = 1L;


    private final long lineNumber;
    private final String context;
    private final String hint;

    public CopyFormatException(String sqlState, String message, String hint, long lineNumber, String context) {
        super(sqlState, message);
        this.lineNumber = lineNumber;
        this.context = context;
        this.hint = hint;
    }

    /** The 1-based input line, counted as Postgres counts it (the header is line 1). */
    public long lineNumber() {
        return lineNumber;
    }

    /** Postgres' CONTEXT field for this error, e.g. {@code COPY payments, line 3}. */
    @Override
    public String context() {
        return context;
    }

    /** Postgres' HINT field, or null. */
    @Override
    public String hint() {
        return hint;
    }
}
