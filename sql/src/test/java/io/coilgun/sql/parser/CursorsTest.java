package io.coilgun.sql.parser;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coilgun.sql.parser.SqlCursor.Direction;
import io.coilgun.sql.parser.SqlCursor.Kind;
import org.junit.jupiter.api.Test;

/** DECLARE, FETCH, MOVE and CLOSE with Postgres' directions. */
class CursorsTest {
    static SqlCursor cursor(String sql) {
        return (SqlCursor) CoilgunParser.parseStatements(sql).get(0);
    }

    static void fetch(String sql, Kind kind, Direction direction, long count, String name) {
        SqlCursor c = cursor(sql);
        assertEquals(kind, c.kind(), sql);
        assertEquals(direction, c.direction(), sql);
        assertEquals(count, c.count(), sql);
        assertEquals(name, c.name(), sql);
    }

    @Test
    void everyDirection() {
        fetch("FETCH cur", Kind.FETCH, Direction.FORWARD, 1, "cur");
        fetch("FETCH NEXT FROM cur", Kind.FETCH, Direction.FORWARD, 1, "cur");
        fetch("FETCH PRIOR IN cur", Kind.FETCH, Direction.BACKWARD, 1, "cur");
        fetch("FETCH FIRST FROM cur", Kind.FETCH, Direction.ABSOLUTE, 1, "cur");
        fetch("FETCH LAST cur", Kind.FETCH, Direction.ABSOLUTE, -1, "cur");
        fetch("FETCH ABSOLUTE -3 FROM cur", Kind.FETCH, Direction.ABSOLUTE, -3, "cur");
        fetch("FETCH RELATIVE +2 FROM cur", Kind.FETCH, Direction.RELATIVE, 2, "cur");
        fetch("FETCH 5 FROM cur", Kind.FETCH, Direction.FORWARD, 5, "cur");
        fetch("FETCH -2 FROM cur", Kind.FETCH, Direction.FORWARD, -2, "cur");
        fetch("FETCH ALL FROM cur", Kind.FETCH, Direction.FORWARD, SqlCursor.ALL, "cur");
        fetch("FETCH FORWARD FROM cur", Kind.FETCH, Direction.FORWARD, 1, "cur");
        fetch("FETCH FORWARD 7 FROM cur", Kind.FETCH, Direction.FORWARD, 7, "cur");
        fetch("FETCH BACKWARD ALL FROM cur", Kind.FETCH, Direction.BACKWARD, SqlCursor.ALL, "cur");
        fetch("MOVE BACKWARD 2 IN cur", Kind.MOVE, Direction.BACKWARD, 2, "cur");
        fetch("MOVE ABSOLUTE 0 FROM \"my cursor\"", Kind.MOVE, Direction.ABSOLUTE, 0, "my cursor");
        fetch("move -2 from scroller", Kind.MOVE, Direction.FORWARD, -2, "scroller");
    }

    @Test
    void declareTellsScrolling() {
        assertTrue(cursor("DECLARE c NO SCROLL CURSOR FOR SELECT 1").noScroll());
        assertEquals(false, cursor("DECLARE c SCROLL CURSOR WITH HOLD FOR SELECT 1").noScroll());
        CoilgunParser.parseStatements("SELECT move FROM t"); // MOVE stays a name
    }
}
