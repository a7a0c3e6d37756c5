package io.coilgun.pgwire.spi;

import java.net.SocketAddress;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The database behind one pgwire connection. pgwire knows nothing of Kafka, RocksDB or SQL
 * semantics; it calls this interface and turns the answers into protocol messages.
 *
 * <p>Simple Query message: {@link #parse} once for the whole text (nothing runs if any statement fails to
 * parse, as in Postgres), then {@link #execute} for each statement in order with no parameters, the next one
 * only after the previous stage completed; the first failure ends the query.
 *
 * <p>Extended protocol: Parse calls {@link #parse} (one statement at most) and {@link #prepare}; Describe calls
 * {@link #describe}; Execute calls {@link #execute} with the bound parameter values, decoded by the types
 * {@link #prepare} settled.
 *
 * <p>Calls for one session never overlap, except {@link #cancel}, which may come from another thread at any
 * time. {@link #close} is called once when the connection ends.
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
     * Settles the parameter types of a parsed statement (extended protocol Parse).
     *
     * @param parameterTypeOids the types the client declared, by position; 0 (or a missing entry) asks the
     *     server to infer the type, as Postgres does
     * @return the statement with {@link Statement#parameterTypes()} set, one per parameter {@code $1..$n}
     * @throws PgException when the statement cannot be prepared (an unknown stream, a parameter whose type
     *     cannot be determined, ...)
     */
    Statement prepare(Statement statement, int[] parameterTypeOids);

    /**
     * The columns the statement returns when executed, or empty when it returns no rows (NoData).
     *
     * @throws PgException when the statement cannot be described
     */
    List<Column> describe(Statement statement);

    /**
     * {@link #describe}, for the extended protocol's Describe: a session whose statements need real work to be
     * described (a query planned by its engine) does it off the network thread and completes the stage later; the
     * connection waits for it, the others on the same thread do not. By default, at once.
     */
    default CompletionStage<List<Column>> describeLater(Statement statement) {
        return CompletableFuture.completedFuture(describe(statement));
    }

    /**
     * Runs one statement. Must not block the caller (it runs on a network thread): slow work completes
     * the stage later. A failure completes the stage exceptionally with a {@link PgException}
     * (other exceptions are reported as internal errors).
     *
     * @param parameters the values of {@code $1..$n} (null = SQL NULL), as Java objects of the statement's
     *     {@link Statement#parameterTypes()}; empty for a simple query
     */
    CompletionStage<QueryResult> execute(Statement statement, List<Object> parameters);

    /** Server parameters reported to the client after startup (ParameterStatus), beyond pgwire's defaults. */
    default Map<String, String> parameterStatus() {
        return Map.of();
    }

    /**
     * An ErrorResponse (not a fatal one) was sent for a statement of this session, whatever raised it (parse,
     * bind, describe, execute, a streamed result): Postgres fails an open transaction block then.
     */
    default void statementFailed() {
    }

    /** The transaction status ReadyForQuery reports: 'I' idle, 'T' in a transaction block, 'E' failed block. */
    default char transactionStatus() {
        return 'I';
    }

    /** The columns of the cursor {@code name} the session declared (DECLARE … CURSOR), or null when there is none. */
    default List<Column> cursorColumns(String name) {
        return null;
    }

    /**
     * The connection is started: its process id (the one BackendKeyData gave the client, which
     * {@code pg_backend_pid()} and {@code pg_cancel_backend} name) and the client's address.
     */
    default void started(int processId, SocketAddress client) {
    }

    /**
     * A CancelRequest for this connection: stop the running statement, if any, completing its stage with
     * SQLSTATE 57014. May be called from any thread, also when nothing runs.
     */
    default void cancel() {
    }

    @Override
    void close();
}
