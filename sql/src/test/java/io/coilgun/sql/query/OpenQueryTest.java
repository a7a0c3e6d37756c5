package io.coilgun.sql.query;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coilgun.planner.error.CoilgunException;
import io.coilgun.planner.error.SqlState;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A query read a batch at a time: what a cursor reads through. */
class OpenQueryTest {
    private static OpenQuery open(String sql, Object... parameters) {
        return QueryEngineTest.engine().open(sql, List.of(), List.of(parameters), "coilgun", "coilgun",
                QuerySession.NONE, new QueryEngine.Cancel());
    }

    @Test
    void readsInBatchesToTheEndThenCloses() {
        try (OpenQuery rows = open("SELECT x, x * 2 AS y FROM generate_series(1, 25) AS t(x) WHERE x > $1", 5)) {
            assertEquals(List.of("x", "y"), rows.columns().names());
            List<Object[]> first = rows.next(10, new QueryEngine.Cancel());
            assertEquals(10, first.size());
            assertArrayEquals(new Object[] {6, 12}, first.get(0));
            assertEquals(10, rows.next(10, new QueryEngine.Cancel()).size());
            List<Object[]> last = rows.next(10, new QueryEngine.Cancel());
            assertEquals(0, last.size());
            assertTrue(rows.done());
        }
    }

    @Test
    void aMillionRowsReadABatchAtATime() {
        long seen = 0;
        long sum = 0;
        try (OpenQuery rows = open("SELECT generate_series FROM generate_series(1, 1000000)")) {
            while (!rows.done()) {
                for (Object[] r : rows.next(10_000, new QueryEngine.Cancel())) {
                    sum += (Integer) r[0];
                    seen++;
                }
            }
        }
        assertEquals(1_000_000, seen);
        assertEquals(1_000_000L * 1_000_001L / 2, sum);
    }

    @Test
    void aCanceledReadFailsAndClosesTheQuery() {
        try (OpenQuery rows = open("SELECT * FROM generate_series(1, 100)")) {
            QueryEngine.Cancel cancel = new QueryEngine.Cancel();
            cancel.cancel();
            CoilgunException e = assertThrows(CoilgunException.class, () -> rows.next(10, cancel));
            assertEquals(SqlState.QUERY_CANCELED, e.state());
            assertTrue(rows.done());
        }
    }
}
