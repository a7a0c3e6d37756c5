package io.coilgun.sql.compile;

import io.coilgun.planner.error.CoilgunException;
import io.coilgun.planner.error.SqlState;
import io.coilgun.sql.parser.CoilgunParser;
import org.apache.calcite.sql.SqlNode;

/** The query string a statement was parsed from: turns a node into the error position Postgres would report. */
record SqlText(String query) {
    CoilgunException error(SqlState state, String message, SqlNode at) {
        return new CoilgunException(state, message, at == null ? 0 : CoilgunParser.offsetOf(query, at.getParserPosition()));
    }

    CoilgunException error(SqlState state, String message) {
        return new CoilgunException(state, message);
    }
}
