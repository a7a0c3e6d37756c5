package io.coilgun.sql.compile;

import io.coilgun.sql.parser.CoilgunParser;
import io.coilgun.sql.parser.ParsedStatement;
import java.util.ArrayList;
import java.util.List;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;

/**
 * One statement of a query string, as the SQL front door hands it out: what a session keeps between Parse, Bind
 * and Execute. Its parse tree stays inside {@code sql}; the {@link StatementCompiler} compiles it, infers its
 * parameter types and tells its {@link ResultShape}.
 */
public final class SqlStatement {
    private final String query;
    private final ParsedStatement parsed;

    private SqlStatement(String query, ParsedStatement parsed) {
        this.query = query;
        this.parsed = parsed;
    }

    /**
     * The statements of a query string, in order.
     *
     * @throws io.coilgun.planner.error.CoilgunException for a syntax error (with its position in {@code query})
     */
    public static List<SqlStatement> parse(String query) {
        List<SqlStatement> statements = new ArrayList<>();
        for (ParsedStatement p : CoilgunParser.parse(query)) {
            statements.add(new SqlStatement(query, p));
        }
        return statements;
    }

    /** The whole query string the statement came from (error positions point into it). */
    public String query() {
        return query;
    }

    /** The statement's own text, from its first token to its last. */
    public String text() {
        return parsed.text();
    }

    /** The $n of each parameter marker of the whole query string (see {@link ParsedStatement#parameterNumbers()}). */
    public int[] parameterNumbers() {
        return parsed.parameterNumbers();
    }

    /** The highest $n the query string uses (0 when none). */
    public int parameterCount() {
        return parsed.parameterCount();
    }

    /** Whether it is a query (SELECT and the other query forms), which runs in Calcite. */
    public boolean isQuery() {
        return node().isA(SqlKind.QUERY);
    }

    SqlNode node() {
        return parsed.node();
    }

    @Override
    public String toString() {
        return text();
    }
}
