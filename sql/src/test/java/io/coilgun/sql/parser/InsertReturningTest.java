package io.coilgun.sql.parser;

import static io.coilgun.sql.parser.ParserTestSupport.assertSyntaxError;
import static io.coilgun.sql.parser.ParserTestSupport.parseError;
import static io.coilgun.sql.parser.ParserTestSupport.roundTrip;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.coilgun.planner.error.CoilgunException;
import io.coilgun.planner.error.SqlState;
import org.apache.calcite.sql.SqlBasicCall;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlInsert;
import org.apache.calcite.sql.SqlKind;
import org.junit.jupiter.api.Test;

class InsertReturningTest {
    private static final String ROW1 = "(1, TIMESTAMP '2026-01-01 10:00:00', 'c1', 'm1', 10.0)";
    private static final String ROW2 = "(2, TIMESTAMP '2026-01-01 10:00:05', 'c2', 'm1', 25.5)";

    @Test
    void plainInsertStaysCalciteInsert() {
        SqlInsert insert = roundTrip("INSERT INTO payments VALUES " + ROW1 + ", " + ROW2, SqlInsert.class);
        assertEquals("payments", ((SqlIdentifier) insert.getTargetTable()).getSimple());
        assertNull(insert.getTargetColumnList());
        assertEquals(SqlKind.VALUES, insert.getSource().getKind());
        assertEquals(2, ((SqlBasicCall) insert.getSource()).operandCount());
    }

    @Test
    void returningStar() {
        SqlInsertReturning r = roundTrip("INSERT INTO payments VALUES " + ROW1 + ", " + ROW2 + " RETURNING *",
            SqlInsertReturning.class);
        assertEquals("payments", ((SqlIdentifier) r.insert().getTargetTable()).getSimple());
        assertEquals(2, ((SqlBasicCall) r.insert().getSource()).operandCount());
    }

    @Test
    void returningWithColumnList() {
        SqlInsertReturning r = roundTrip("INSERT INTO payments (id, ts, card_id, merchant_id, amount) VALUES "
            + ROW1 + " RETURNING *", SqlInsertReturning.class);
        assertEquals(5, r.insert().getTargetColumnList().size());
        assertEquals("card_id", ((SqlIdentifier) r.insert().getTargetColumnList().get(2)).getSimple());
    }

    @Test
    void returningAfterSelectSource() {
        // RETURNING is reserved, so it cannot be read as an alias of t.
        SqlInsertReturning r = roundTrip("INSERT INTO payments (id, amount) SELECT a, b FROM t RETURNING *",
            SqlInsertReturning.class);
        assertEquals(SqlKind.SELECT, r.insert().getSource().getKind());
        roundTrip("INSERT INTO payments SELECT 1, 2 RETURNING *", SqlInsertReturning.class);
    }

    @Test
    void onlyReturningStarIsSupported() {
        String sql = "INSERT INTO p VALUES (1) RETURNING a, b";
        CoilgunException e = parseError(sql);
        assertEquals(SqlState.FEATURE_NOT_SUPPORTED, e.state());
        assertEquals(sql.indexOf("a, b") + 1, e.position());

        e = parseError("INSERT INTO p VALUES (1) RETURNING *, a");
        assertEquals(SqlState.FEATURE_NOT_SUPPORTED, e.state());
    }

    @Test
    void syntaxErrors() {
        assertSyntaxError("INSERT INTO p VALUES (1,", 25, "syntax error at end of input");
        assertSyntaxError("INSERT INTO p VALUES (1) RETURNING", 35, "syntax error at end of input");
        assertSyntaxError("INSERT p VALUES (1)", 8, "syntax error at or near \"p\"");
    }
}
