package io.coilgun.server.session;

import io.coilgun.pgwire.spi.Column;
import io.coilgun.pgwire.spi.PgException;
import io.coilgun.planner.error.SqlState;
import io.coilgun.sql.parser.SqlCursor;
import java.util.ArrayList;
import java.util.List;

/**
 * One cursor (DECLARE … CURSOR): its query's rows, read when it was declared, and its position as Postgres keeps
 * it: 0 before the first row, 1..n on a row, n + 1 after the last. FETCH returns the rows it passes over, MOVE
 * only moves; a NO SCROLL cursor refuses to go back.
 */
final class Cursor {
    private final List<Column> columns;
    private final List<Object[]> rows;
    private final boolean hold;
    private final boolean noScroll;
    private final String statement;
    private final long created = System.currentTimeMillis();
    private int position;

    /** @param statement the query string that declared it, as pg_cursors shows it */
    Cursor(List<Column> columns, List<Object[]> rows, boolean hold, boolean noScroll, String statement) {
        this.columns = columns;
        this.rows = rows;
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

    /** The rows FETCH gives for {@code direction} and {@code count} (see SqlCursor.Direction), moving the cursor. */
    synchronized List<Object[]> fetch(SqlCursor.Direction direction, long count) {
        int n = rows.size();
        List<Object[]> out = new ArrayList<>();
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
                    if (position >= 1 && position <= n) {
                        out.add(rows.get(position - 1));
                    }
                    return out;
                }
                long steps = Math.min(count, (long) n + 1);
                for (long i = 0; i < steps; i++) {
                    position += back ? -1 : 1;
                    if (position < 1 || position > n) {
                        position = position < 1 ? 0 : n + 1;
                        break;
                    }
                    out.add(rows.get(position - 1));
                }
            }
            case ABSOLUTE, RELATIVE -> {
                long target = direction == SqlCursor.Direction.RELATIVE ? saturatedAdd(position, count)
                        : count < 0 ? saturatedAdd(n + 1, count) : count;
                if (noScroll && target < position) {
                    throw forwardOnly();
                }
                position = (int) Math.max(0, Math.min(n + 1, target));
                if (position >= 1 && position <= n) {
                    out.add(rows.get(position - 1));
                }
            }
        }
        return out;
    }

    private static PgException forwardOnly() {
        return new PgException(SqlState.OBJECT_NOT_IN_PREREQUISITE_STATE.code(), "cursor can only scan forward");
    }

    /** {@code a + b}, held at Long's bounds rather than wrapping (a count near them: RELATIVE 9223372036854775807). */
    private static long saturatedAdd(long a, long b) {
        long sum = a + b;
        return ((a ^ sum) & (b ^ sum)) < 0 ? (b < 0 ? Long.MIN_VALUE : Long.MAX_VALUE) : sum;
    }
}
