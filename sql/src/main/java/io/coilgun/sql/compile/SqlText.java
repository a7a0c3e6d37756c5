package io.coilgun.sql.compile;

import io.coilgun.planner.error.CoilgunException;
import io.coilgun.planner.error.SqlState;
import io.coilgun.sql.parser.CoilgunParser;
import java.util.List;
import org.apache.calcite.sql.SqlDynamicParam;
import org.apache.calcite.sql.SqlNode;

/**
 * The query string a statement was parsed from, and the values bound to its parameters: turns a node into the
 * error position Postgres would report, and a parameter marker into its value.
 *
 * @param parameterNumbers the $n of each dynamic parameter by index (see
 *     {@link io.coilgun.sql.parser.ParsedStatement#parameterNumbers()})
 * @param parameters the values of $1..$n (Java objects as pgwire decodes them, null = NULL)
 */
record SqlText(String query, int[] parameterNumbers, List<Object> parameters) {
    SqlText(String query) {
        this(query, new int[0], List.of());
    }

    CoilgunException error(SqlState state, String message, SqlNode at) {
        return new CoilgunException(state, message, at == null ? 0 : CoilgunParser.offsetOf(query, at.getParserPosition()));
    }

    CoilgunException error(SqlState state, String message) {
        return new CoilgunException(state, message);
    }

    /** The $n a parameter marker stands for; a {@code ?} that is no marker is a syntax error, as in Postgres. */
    int number(SqlDynamicParam param) {
        int index = param.getIndex();
        int n = index < parameterNumbers.length ? parameterNumbers[index] : 0;
        if (n <= 0) {
            throw error(SqlState.SYNTAX_ERROR, "syntax error at or near \"?\"", param);
        }
        return n;
    }

    /** The value bound to a parameter marker. */
    Object value(SqlDynamicParam param) {
        int n = number(param);
        if (n > parameters.size()) {
            throw error(SqlState.UNDEFINED_PARAMETER, "there is no parameter $" + n, param);
        }
        return parameters.get(n - 1);
    }
}
