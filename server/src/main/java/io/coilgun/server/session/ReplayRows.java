package io.coilgun.server.session;

import io.coilgun.pgwire.spi.PgException;
import io.coilgun.pgwire.spi.RowStream;
import io.coilgun.planner.error.SqlState;
import io.coilgun.planner.model.ColumnType;
import io.coilgun.server.query.ReplaySource;
import io.coilgun.sql.compile.ReplayStatement;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The rows of one REPLAY: each task's replay in the order that task accepted its events, the tasks' rows
 * interleaved as they come. pgwire pulls; a task whose rows the client has not taken yet pauses (its replay keeps
 * at most a few thousand rows waiting), so a slow client holds no more than that per task.
 */
final class ReplayRows implements RowStream {
    private final List<ReplaySource> replays;
    private final ColumnType[] types;
    private final AtomicBoolean closed = new AtomicBoolean();
    private volatile PgException failed;
    private volatile Runnable released = () -> { };
    private int next;

    ReplayRows(ReplayStatement statement, List<ReplaySource> replays) {
        this.replays = replays;
        this.types = statement.shape().columnTypes().toArray(ColumnType[]::new);
    }

    @Override
    public void onAvailable(Runnable callback) {
        for (ReplaySource r : replays) {
            r.onAvailable(callback);
        }
    }

    @Override
    public Object[] poll() {
        PgException f = failed;
        if (f != null) {
            throw f;
        }
        for (int i = 0; i < replays.size(); i++) {
            ReplaySource r = replays.get(next);
            next = (next + 1) % replays.size(); // round robin: every task's rows move
            Object[] row;
            try {
                row = r.poll();
            } catch (IllegalStateException e) {
                throw new PgException(SqlState.OBJECT_NOT_IN_PREREQUISITE_STATE.code(), e.getMessage());
            }
            if (row != null) {
                for (int c = 0; c < row.length; c++) {
                    row[c] = PgValues.toWire(types[c], row[c]);
                }
                return row;
            }
        }
        return null;
    }

    @Override
    public boolean ended() {
        for (ReplaySource r : replays) {
            if (!r.ended()) {
                return false;
            }
        }
        return true;
    }

    /** Ends the statement with {@code error} (statement timeout): the next {@link #poll} throws it. */
    void fail(PgException error) {
        failed = error;
        for (ReplaySource r : replays) {
            r.cancel();
        }
    }

    /** What to run once the statement is over (its timeout's timer stops). */
    void onRelease(Runnable released) {
        this.released = released;
    }

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            for (ReplaySource r : replays) {
                r.cancel();
            }
            released.run();
        }
    }
}
