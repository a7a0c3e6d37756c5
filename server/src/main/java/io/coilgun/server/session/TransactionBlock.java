package io.coilgun.server.session;

import io.coilgun.pgwire.spi.PgException;
import io.coilgun.pgwire.spi.QueryResult;
import io.coilgun.planner.error.SqlState;
import io.coilgun.sql.compile.CompiledStatement;
import io.coilgun.sql.compile.TransactionStatement;
import io.coilgun.sql.parser.SqlTransaction;
import java.util.ArrayList;
import java.util.List;

/**
 * A session's transaction block, emulated: its state, its savepoints, and what each transaction statement does in
 * each state, with Postgres' command tags, warnings and errors. Statements apply at once, so there is nothing to
 * undo: ROLLBACK and ROLLBACK TO only change the state (ROLLBACK TO says so in a warning). Clients count on the
 * states (psycopg, SQLAlchemy and pgjdbc all roll back on seeing a failed block).
 *
 * <pre>
 *   IDLE    -- BEGIN --------------------------&gt;  OPEN
 *   OPEN    -- an error is sent to the client --&gt;  FAILED
 *   FAILED  -- ROLLBACK TO a savepoint ---------&gt;  OPEN
 *   OPEN, FAILED -- COMMIT or ROLLBACK ---------&gt;  IDLE   (COMMIT of a failed block is tagged ROLLBACK)
 * </pre>
 *
 * In FAILED every statement but COMMIT, ROLLBACK and ROLLBACK TO is refused with 25P02 ({@link #admits}).
 * Runs on the session's calls (which never overlap); the state is read by other threads (pg_stat_activity).
 */
final class TransactionBlock {
    /** Where a session stands, with the status ReadyForQuery reports for it. */
    enum State {
        IDLE('I'), OPEN('T'), FAILED('E');

        private final char status;

        State(char status) {
            this.status = status;
        }

        char status() {
            return status;
        }
    }

    /** Told when a block ends (COMMIT or ROLLBACK): a cursor WITHOUT HOLD ends with its block. */
    private Runnable ended = () -> { };
    private volatile State state = State.IDLE;
    /** When the open block began (System.currentTimeMillis()). */
    private volatile long startedAt;
    /** The savepoints of the block, oldest first (names may repeat, as in Postgres). */
    private final List<String> savepoints = new ArrayList<>();

    /** {@code ended} is told each time COMMIT or ROLLBACK ends a block (or finds none to end). */
    void onEnd(Runnable ended) {
        this.ended = ended;
    }

    State state() {
        return state;
    }

    /** In a block, failed or not. */
    boolean inBlock() {
        return state != State.IDLE;
    }

    boolean failed() {
        return state == State.FAILED;
    }

    /** When the open block began, or null outside a block (pg_stat_activity's xact_start). */
    Long startedAt() {
        return inBlock() ? startedAt : null;
    }

    /** The status ReadyForQuery reports: 'I' idle, 'T' in a block, 'E' in a failed block. */
    char status() {
        return state.status();
    }

    /**
     * An error was sent to the client for a statement of this session: in a block, the block fails, as in
     * Postgres; outside one nothing changes.
     */
    void statementFailed() {
        if (state == State.OPEN) {
            state = State.FAILED;
        }
    }

    /**
     * Whether a statement may run: any, unless the block failed; then only one that ends the failure (COMMIT,
     * ROLLBACK, ROLLBACK TO).
     *
     * @param compiled the statement, or null when it did not compile
     */
    boolean admits(CompiledStatement compiled) {
        return state != State.FAILED || compiled instanceof TransactionStatement tx
                && (tx.kind() == SqlTransaction.Kind.COMMIT || tx.kind() == SqlTransaction.Kind.ROLLBACK
                        || tx.kind() == SqlTransaction.Kind.ROLLBACK_TO);
    }

    /** The error a statement refused by {@link #admits} fails with. */
    static PgException aborted() {
        return new PgException(SqlState.IN_FAILED_SQL_TRANSACTION.code(),
                "current transaction is aborted, commands ignored until end of transaction block");
    }

    /** Refuses {@code statement} (its name as the error tells it) outside a block, with 25P01. */
    void require(String statement) {
        if (!inBlock()) {
            throw new PgException(SqlState.NO_ACTIVE_SQL_TRANSACTION.code(),
                    statement + " can only be used in transaction blocks");
        }
    }

    /** Runs BEGIN, COMMIT, ROLLBACK, SAVEPOINT, RELEASE or ROLLBACK TO. */
    QueryResult run(TransactionStatement tx) {
        return switch (tx.kind()) {
            case BEGIN -> {
                List<String> warnings = inBlock() ? List.of("there is already a transaction in progress")
                        : List.of();
                if (!inBlock()) {
                    startedAt = System.currentTimeMillis();
                    state = State.OPEN;
                }
                yield new QueryResult(List.of(), List.of(), "BEGIN", warnings);
            }
            case COMMIT, ROLLBACK -> {
                List<String> warnings = inBlock() ? List.of() : List.of("there is no transaction in progress");
                String tag = failed() ? "ROLLBACK" : tx.kind().name(); // COMMIT of a failed block rolls back
                state = State.IDLE;
                savepoints.clear();
                ended.run();
                yield new QueryResult(List.of(), List.of(), tag, warnings);
            }
            case SAVEPOINT -> {
                require("SAVEPOINT");
                savepoints.add(tx.savepoint());
                yield QueryResult.command("SAVEPOINT");
            }
            case RELEASE -> {
                require("RELEASE SAVEPOINT");
                savepoints.subList(savepoint(tx.savepoint()), savepoints.size()).clear();
                yield QueryResult.command("RELEASE");
            }
            case ROLLBACK_TO -> {
                require("ROLLBACK TO SAVEPOINT");
                savepoints.subList(savepoint(tx.savepoint()) + 1, savepoints.size()).clear();
                state = State.OPEN;
                yield new QueryResult(List.of(), List.of(), "ROLLBACK", List.of("ROLLBACK TO SAVEPOINT undoes "
                        + "nothing here: every statement was applied when it completed"));
            }
        };
    }

    /** Where the newest savepoint called {@code name} is in the stack. */
    private int savepoint(String name) {
        int at = savepoints.lastIndexOf(name);
        if (at < 0) {
            throw new PgException(SqlState.INVALID_SAVEPOINT_SPECIFICATION.code(),
                    "savepoint \"" + name + "\" does not exist");
        }
        return at;
    }
}
