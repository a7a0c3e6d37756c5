package io.coilgun.sql.parser;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coilgun.planner.error.CoilgunException;
import io.coilgun.planner.error.SqlState;
import java.util.List;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.util.Litmus;

final class ParserTestSupport {
    private ParserTestSupport() {}

    /** Parses exactly one statement. */
    static SqlNode parseOne(String sql) {
        List<SqlNode> nodes = CoilgunParser.parseStatements(sql);
        assertEquals(1, nodes.size(), () -> "statements in " + sql);
        return nodes.get(0);
    }

    static <T extends SqlNode> T parseOne(String sql, Class<T> type) {
        return assertInstanceOf(type, parseOne(sql));
    }

    /**
     * Parses {@code sql}, unparses, parses again: the trees must be deep-equal and the second unparse
     * identical to the first. Returns the first tree.
     */
    static <T extends SqlNode> T roundTrip(String sql, Class<T> type) {
        T node = parseOne(sql, type);
        String text = CoilgunParser.toSql(node);
        SqlNode again = parseOne(text, type);
        assertTrue(node.equalsDeep(again, Litmus.IGNORE), () -> "not equal after round trip:\n" + sql + "\n" + text);
        assertEquals(text, CoilgunParser.toSql(again));
        // clone() (and SqlShuttle) rebuild calls through their operator's createCall.
        SqlNode copy = node.clone(SqlParserPos.ZERO);
        assertEquals(node.getClass(), copy.getClass());
        assertTrue(node.equalsDeep(copy, Litmus.IGNORE), () -> "clone differs: " + sql);
        return node;
    }

    static CoilgunException parseError(String sql) {
        return assertThrows(CoilgunException.class, () -> CoilgunParser.parseStatements(sql));
    }

    static void assertSyntaxError(String sql, int position, String messageStart) {
        CoilgunException e = parseError(sql);
        assertEquals(SqlState.SYNTAX_ERROR, e.state(), e::getMessage);
        assertEquals(position, e.position(), e::getMessage);
        assertTrue(e.getMessage().startsWith(messageStart), e::getMessage);
        assertTrue(!e.getMessage().contains("\n"), e::getMessage);
    }
}
