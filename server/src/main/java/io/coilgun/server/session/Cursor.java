package io.coilgun.server.session;

import io.coilgun.pgwire.spi.Column;
import io.coilgun.pgwire.spi.PgException;
import io.coilgun.planner.error.SqlState;
import io.coilgun.sql.parser.SqlCursor;
import io.coilgun.sql.query.OpenQuery;
import io.coilgun.sql.query.QueryEngine;
import java.util.ArrayList;
import java.util.List;

/**
 * One cursor (DECLARE … CURSOR): its query, read as the cursor moves ({@link CursorRows}), and its position as
 * Postgres keeps it: 0 before the first row, 1..n on a row, n + 1 after the last. FETCH returns the rows it passes
 * over, MOVE only moves (and counts); a NO SCROLL cursor refuses to go back.
 */
final class Cursor implements AutoCloseable {
    private final List<Column> columns;
    private final CursorRows rows;
    private final boolean hold;
    private final boolean noScroll;
    private final String statement;
    private final long created = System.currentTimeMillis();
    private long position;

    /** What a FETCH or MOVE did: the rows it passed over (none kept for a MOVE) and how many. */
    record Moved(List<Object[]> rows, long count) {
    }

    /** @param statement the query string that declared it, as pg_cursors shows it */
    Cursor(List<Column> columns, OpenQuery source, boolean hold, boolean noScroll, String statement) {
        this.columns = columns;
        this.rows = new CursorRows(source, !noScroll);
        this.hold = hold;
        this.noScroll = noScroll;
        this.statement = statement;
    }

    List<Column> columns() {
        return columns;
    }

    /** WITH HOLD: it outlives its transaction block. */
    boolean hold() {
        return hold;
    }

    /** The cursor as pg_cursors lists it: name, statement, is_holdable, is_binary, is_scrollable, creation_time. */
    Object[] describe(String name) {
        return new Object[] {name, statement, hold, false, !noScroll, created};
    }

    /**
     * FETCH ({@code keep}: the rows are returned) or MOVE for {@code direction} and {@code count} (see
     * SqlCursor.Direction), moving the cursor; reads the query as far as it goes.
     */
    synchronized Moved fetch(SqlCursor.Direction direction, long count, boolean keep, QueryEngine.Cancel cancel) {
        List<Object[]> out = new ArrayList<>();
        long moved = 0;
        if (count < 0 && (direction == SqlCursor.Direction.FORWARD || direction == SqlCursor.Direction.BACKWARD)) {
            direction = direction == SqlCursor.Direction.FORWARD ? SqlCursor.Direction.BACKWARD
                    : SqlCursor.Direction.FORWARD; // FETCH -2: two rows back
            count = -count;
        }
        switch (direction) {
            case FORWARD, BACKWARD -> {
                boolean back = direction == SqlCursor.Direction.BACKWARD;
                if (back && noScroll) {
                    throw forwardOnly();
                }
                if (count == 0) { // FORWARD 0 / BACKWARD 0: the current row again
                    Object[] r = position >= 1 ? rows.at(position, cancel) : null;
                    if (r != null) {
                        moved = add(out, r, keep, moved);
                    }
                    return new Moved(out, moved);
                }
                for (long i = 0; i < count; i++) {
                    if (back) {
                        if (position <= 1) {
                            position = 0;
                            break;
                        }
                        position--;
                    } else {
                        position++;
                    }
                    Object[] r = rows.at(position, cancel);
                    if (r == null) { // past the last row
                        position = rows.count(cancel) + 1;
                        break;
                    }
                    moved = add(out, r, keep, moved);
                }
            }
            case ABSOLUTE, RELATIVE -> {
                if (noScroll && direction == SqlCursor.Direction.ABSOLUTE && count < 0) {
                    throw forwardOnly(); // from the end: Postgres reads to it and back
                }
                long target = direction == SqlCursor.Direction.RELATIVE ? saturatedAdd(position, count)
                        : count < 0 ? saturatedAdd(rows.count(cancel) + 1, count) : count;
                if (noScroll && target < position) {
                    throw forwardOnly();
                }
                Object[] r = target >= 1 ? rows.at(target, cancel) : null;
                position = target < 1 ? 0 : r == null ? rows.count(cancel) + 1 : target;
                if (r != null) {
                    moved = add(out, r, keep, moved);
                }
            }
        }
        return new Moved(out, moved);
    }

    private static long add(List<Object[]> out, Object[] row, boolean keep, long moved) {
        if (keep) {
            out.add(row);
        }
        return moved + 1;
    }

    private static PgException forwardOnly() {
        return new PgException(SqlState.OBJECT_NOT_IN_PREREQUISITE_STATE.code(), "cursor can only scan forward");
    }

    /** {@code a + b}, held at Long's bounds rather than wrapping (a count near them: RELATIVE 9223372036854775807). */
    private static long saturatedAdd(long a, long b) {
        long sum = a + b;
        return ((a ^ sum) & (b ^ sum)) < 0 ? (b < 0 ? Long.MIN_VALUE : Long.MAX_VALUE) : sum;
    }

    /** Ends its query and removes what it kept. */
    @Override
    public synchronized void close() {
        rows.close();
    }
}
