package io.coilgun.server.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.coilgun.pgwire.spi.Column;
import io.coilgun.pgwire.spi.PgException;
import io.coilgun.pgwire.spi.PgType;
import io.coilgun.sql.parser.SqlCursor;
import io.coilgun.sql.parser.SqlCursor.Direction;
import io.coilgun.sql.query.OpenQuery;
import io.coilgun.sql.query.QueryEngine;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A cursor's position and the rows FETCH returns, as Postgres moves a cursor over five rows. */
class CursorTest {
    static final List<Column> COLUMNS = List.of(new Column("n", PgType.INT8));

    static Cursor cursor(boolean noScroll) {
        return cursor(noScroll, 5);
    }

    static Cursor cursor(boolean noScroll, long n) {
        List<Object[]> rows = new ArrayList<>();
        for (long i = 1; i <= n; i++) {
            rows.add(new Object[] {i});
        }
        OpenQuery source = OpenQuery.of(new QueryEngine.Rows(List.of("n"), List.of(20), rows));
        return new Cursor(COLUMNS, source, false, noScroll, "DECLARE c CURSOR FOR SELECT n FROM t");
    }

    /** The first value of each row FETCH returned. */
    static List<Object> fetch(Cursor c, Direction direction, long count) {
        return c.fetch(direction, count, true, new QueryEngine.Cancel()).rows().stream().map(r -> r[0]).toList();
    }

    @Test
    void forwardReturnsTheRowsItPassesOverAndStopsAfterTheLast() {
        Cursor c = cursor(false);
        assertEquals(List.of(1L, 2L), fetch(c, Direction.FORWARD, 2));
        assertEquals(List.of(3L), fetch(c, Direction.FORWARD, 1));
        assertEquals(List.of(4L, 5L), fetch(c, Direction.FORWARD, SqlCursor.ALL));
        assertEquals(List.of(), fetch(c, Direction.FORWARD, 1), "after the last row");
        assertEquals(List.of(5L), fetch(c, Direction.BACKWARD, 1), "back from after the last row: the last");
    }

    @Test
    void backwardAndANegativeCountGoBack() {
        Cursor c = cursor(false);
        fetch(c, Direction.FORWARD, 4);
        assertEquals(List.of(3L, 2L), fetch(c, Direction.BACKWARD, 2));
        assertEquals(List.of(3L), fetch(c, Direction.BACKWARD, -1), "BACKWARD -1 is FORWARD 1");
        assertEquals(List.of(2L, 1L), fetch(c, Direction.FORWARD, -2), "FETCH -2: two rows back");
        assertEquals(List.of(), fetch(c, Direction.BACKWARD, 1), "before the first row");
        assertEquals(List.of(1L), fetch(c, Direction.FORWARD, 1));
    }

    @Test
    void aZeroCountReturnsTheCurrentRowAgain() {
        Cursor c = cursor(false);
        assertEquals(List.of(), fetch(c, Direction.FORWARD, 0), "before the first row there is none");
        fetch(c, Direction.FORWARD, 3);
        assertEquals(List.of(3L), fetch(c, Direction.FORWARD, 0));
        assertEquals(List.of(3L), fetch(c, Direction.BACKWARD, 0));
        assertEquals(List.of(4L), fetch(c, Direction.FORWARD, 1), "and does not move");
    }

    @Test
    void absoluteGoesToARowCountedFromEitherEnd() {
        Cursor c = cursor(false);
        assertEquals(List.of(4L), fetch(c, Direction.ABSOLUTE, 4));
        assertEquals(List.of(5L), fetch(c, Direction.ABSOLUTE, -1), "LAST");
        assertEquals(List.of(1L), fetch(c, Direction.ABSOLUTE, 1), "FIRST");
        assertEquals(List.of(), fetch(c, Direction.ABSOLUTE, 0), "before the first row");
        assertEquals(List.of(), fetch(c, Direction.ABSOLUTE, 9), "past the end: after the last row");
        assertEquals(List.of(5L), fetch(c, Direction.BACKWARD, 1));
        assertEquals(List.of(), fetch(c, Direction.ABSOLUTE, -9), "before the start: before the first row");
        assertEquals(List.of(1L), fetch(c, Direction.FORWARD, 1));
    }

    @Test
    void relativeMovesFromTheCurrentRow() {
        Cursor c = cursor(false);
        assertEquals(List.of(2L), fetch(c, Direction.RELATIVE, 2));
        assertEquals(List.of(4L), fetch(c, Direction.RELATIVE, 2));
        assertEquals(List.of(3L), fetch(c, Direction.RELATIVE, -1));
        assertEquals(List.of(3L), fetch(c, Direction.RELATIVE, 0));
        assertEquals(List.of(), fetch(c, Direction.RELATIVE, Long.MAX_VALUE), "no overflow: after the last row");
        assertEquals(List.of(), fetch(c, Direction.RELATIVE, Long.MIN_VALUE), "no overflow: before the first");
        assertEquals(List.of(1L), fetch(c, Direction.FORWARD, 1));
        assertEquals(List.of(), fetch(c, Direction.ABSOLUTE, Long.MIN_VALUE));
    }

    @Test
    void noScrollRefusesToGoBack() {
        Cursor c = cursor(true);
        assertEquals(List.of(1L, 2L, 3L), fetch(c, Direction.FORWARD, 3));
        for (Runnable back : List.<Runnable>of(() -> fetch(c, Direction.BACKWARD, 1),
                () -> fetch(c, Direction.FORWARD, -1), () -> fetch(c, Direction.ABSOLUTE, 1),
                () -> fetch(c, Direction.RELATIVE, -1), () -> fetch(c, Direction.ABSOLUTE, -1))) {
            assertEquals("55000", assertThrows(PgException.class, back::run).sqlState());
        }
        assertEquals(List.of(3L), fetch(c, Direction.RELATIVE, 0), "staying put is not going back");
        assertEquals(List.of(5L), fetch(c, Direction.ABSOLUTE, 5));
    }

    @Test
    void moveCountsWhatItPassesOverAndKeepsNone() {
        Cursor c = cursor(false);
        Cursor.Moved moved = c.fetch(Direction.FORWARD, SqlCursor.ALL, false, new QueryEngine.Cancel());
        assertEquals(5, moved.count());
        assertEquals(List.of(), moved.rows());
        assertEquals(List.of(5L), fetch(c, Direction.BACKWARD, 1));
    }

    @Test
    void aScrollCursorGoesBackOverRowsKeptInItsFile() {
        long n = 3 * RowSpool.IN_MEMORY + 123; // most of them spilled to the file
        try (Cursor c = cursor(false, n)) {
            assertEquals(n, c.fetch(Direction.FORWARD, SqlCursor.ALL, false, new QueryEngine.Cancel()).count());
            assertEquals(List.of(n, n - 1, n - 2), fetch(c, Direction.BACKWARD, 3));
            assertEquals(List.of(RowSpool.IN_MEMORY + 1L), fetch(c, Direction.ABSOLUTE, RowSpool.IN_MEMORY + 1));
            assertEquals(List.of(RowSpool.IN_MEMORY + 0L, RowSpool.IN_MEMORY - 1L), fetch(c, Direction.BACKWARD, 2));
            assertEquals(List.of(2L * RowSpool.IN_MEMORY + 7), fetch(c, Direction.RELATIVE, RowSpool.IN_MEMORY + 8));
            List<Object> back = fetch(c, Direction.BACKWARD, SqlCursor.ALL);
            assertEquals(2L * RowSpool.IN_MEMORY + 6, back.size());
            assertEquals(1L, back.get(back.size() - 1));
        }
    }

    @Test
    void aNoScrollCursorReadsItsQueryAsItMoves() {
        try (Cursor c = cursor(true, 2 * CursorRows.BATCH + 5)) {
            assertEquals(List.of(1L, 2L), fetch(c, Direction.FORWARD, 2));
            assertEquals(List.of(1501L), fetch(c, Direction.ABSOLUTE, 1501));
            assertEquals(List.of(2005L), fetch(c, Direction.RELATIVE, 504));
            assertEquals(List.of(), fetch(c, Direction.FORWARD, 1));
        }
    }

    @Test
    void describesItselfAsPgCursorsListsIt() {
        Object[] row = cursor(true).describe("c");
        assertEquals(List.of("c", "DECLARE c CURSOR FOR SELECT n FROM t", false, false, false),
                List.of(row).subList(0, 5));
        assertEquals(Long.class, row[5].getClass());
    }
}
