package io.coilgun.pgwire.spi;

import java.util.List;
import java.util.concurrent.CompletionStage;

/**
 * The database behind one pgwire connection. pgwire knows nothing of Kafka, RocksDB or SQL
 * semantics; it calls this interface and turns the answers into protocol messages.
 *
 * <p>Call order for a simple Query message: {@link #parse} once for the whole text (nothing runs if any
 * statement fails to parse, as in Postgres), then {@link #execute} for each statement in order, the next
 * one only after the previous stage completed; the first failure ends the query. Calls for one session
 * never overlap. {@link #close} is called once when the connection ends.
 */
public interface Session extends AutoCloseable {

    /**
     * Parses every statement of a query string.
     *
     * @return the statements in order; empty for an empty query (only whitespace, comments or ';')
     * @throws PgException with SQLSTATE and 1-based position on a syntax error
     */
    List<Statement> parse(String sql);

    /**
     * Runs one statement. Must not block the caller (it runs on a network thread): slow work completes
     * the stage later. A failure completes the stage exceptionally with a {@link PgException}
     * (other exceptions are reported as internal errors).
     */
    CompletionStage<QueryResult> execute(Statement statement);

    /** Server parameters reported to the client after startup (ParameterStatus), beyond pgwire's defaults. */
    default java.util.Map<String, String> parameterStatus() {
        return java.util.Map.of();
    }

    @Override
    void close();
}
