package io.coilgun.server.session;

import io.coilgun.pgwire.spi.PgType;
import io.coilgun.pgwire.spi.Statement;
import java.util.List;
import org.apache.calcite.sql.SqlNode;

/**
 * One statement of a query string: its parse tree, its own text, the whole query string (error positions
 * point into it), the $n of each of its parameter markers, and (once prepared) the parameter types.
 */
record ParsedSqlStatement(String query, SqlNode node, String text, int[] parameterNumbers,
        List<PgType> parameterTypes) implements Statement {
    @Override
    public String sql() {
        return text;
    }

    ParsedSqlStatement withParameterTypes(List<PgType> types) {
        return new ParsedSqlStatement(query, node, text, parameterNumbers, List.copyOf(types));
    }
}
