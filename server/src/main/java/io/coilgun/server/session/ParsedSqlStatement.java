package io.coilgun.server.session;

import io.coilgun.pgwire.spi.Statement;
import org.apache.calcite.sql.SqlNode;

/**
 * One statement of a query string: its parse tree, its own text, and the whole query string (error positions
 * point into it).
 */
record ParsedSqlStatement(String query, SqlNode node, String text) implements Statement {
    @Override
    public String sql() {
        return text;
    }
}
