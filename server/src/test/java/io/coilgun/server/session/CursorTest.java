package io.coilgun.server.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.coilgun.pgwire.spi.Column;
import io.coilgun.pgwire.spi.PgException;
import io.coilgun.pgwire.spi.PgType;
import io.coilgun.sql.parser.SqlCursor.Direction;
import io.coilgun.sql.parser.SqlCursor;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A cursor's position and the rows FETCH returns, as Postgres moves a cursor over five rows. */
class CursorTest {
    static final List<Column> COLUMNS = List.of(new Column("n", PgType.INT8));

    static Cursor cursor(boolean noScroll) {
        List<Object[]> rows = new ArrayList<>();
        for (long i = 1; i <= 5; i++) {
            rows.add(new Object[] {i});
        }
        return new Cursor(COLUMNS, rows, false, noScroll, "DECLARE c CURSOR FOR SELECT n FROM t");
    }

    /** The first value of each row FETCH returned. */
    static List<Object> fetch(Cursor c, Direction direction, long count) {
        return c.fetch(direction, count).stream().map(r -> r[0]).toList();
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
        for (Runnable back : List.<Runnable>of(() -> c.fetch(Direction.BACKWARD, 1),
                () -> c.fetch(Direction.FORWARD, -1), () -> c.fetch(Direction.ABSOLUTE, 1),
                () -> c.fetch(Direction.RELATIVE, -1))) {
            assertEquals("55000", assertThrows(PgException.class, back::run).sqlState());
        }
        assertEquals(List.of(3L), fetch(c, Direction.RELATIVE, 0), "staying put is not going back");
        assertEquals(List.of(5L), fetch(c, Direction.ABSOLUTE, 5));
    }

    @Test
    void describesItselfAsPgCursorsListsIt() {
        Object[] row = cursor(true).describe("c");
        assertEquals(List.of("c", "DECLARE c CURSOR FOR SELECT n FROM t", false, false, false),
                List.of(row).subList(0, 5));
        assertEquals(Long.class, row[5].getClass());
    }
}
