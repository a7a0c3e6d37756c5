package io.coilgun.sql.query;

import io.coilgun.planner.error.CoilgunException;
import io.coilgun.planner.error.SqlState;
import java.sql.SQLException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.calcite.runtime.CalciteContextException;

/** Errors of queries as Postgres reports them: SQLSTATE by kind of error, position in the statement's text. */
final class QueryErrors {
    private static final Pattern POSITION = Pattern.compile("From line (\\d+), column (\\d+)");

    private QueryErrors() {
    }

    /**
     * What a query's failure tells its client: the engine's own error, a value it could not read, a cancel, or an
     * internal error (never a reason to drop the client).
     */
    static CoilgunException failure(String statement, Throwable e, QueryEngine.Cancel cancel) {
        if (e instanceof SQLException sql) {
            if (cancel.canceled()) {
                // canceled while it was planned (before it ran): Calcite's statement refused to start
                return new CoilgunException(SqlState.QUERY_CANCELED, "canceling statement due to user request", 0,
                        e);
            }
            return toCoilgun(statement, sql);
        }
        if (e instanceof AssertionError) {
            // Calcite's own checks (enabled with -ea): a query it cannot handle
            return new CoilgunException(SqlState.INTERNAL_ERROR, "query failed: " + e, 0, e);
        }
        if (e instanceof ExceptionInInitializerError) {
            // a constant Calcite folded into its generated code failed to compute (a cast of a literal)
            CoilgunException data = dataError(e.getCause());
            return data != null ? data
                    : new CoilgunException(SqlState.INTERNAL_ERROR, "query failed: " + e.getCause(), 0, e);
        }
        CoilgunException ce = find(e);
        if (ce != null) {
            return ce;
        }
        CoilgunException data = dataError(e);
        if (data != null) {
            return data;
        }
        if (e instanceof ArithmeticException) {
            return new CoilgunException(SqlState.DIVISION_BY_ZERO, "division by zero", 0, e);
        }
        return new CoilgunException(SqlState.INTERNAL_ERROR, "query failed: " + e, 0, e);
    }

    static CoilgunException find(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof CoilgunException ce) {
                return ce;
            }
        }
        return null;
    }

    /**
     * A value the query could not read (a string that is not a number or a timestamp, a number out of range),
     * from the cause chain of what Calcite's generated code threw: Postgres' data exception, or null.
     */
    static CoilgunException dataError(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            String m = t.getMessage() == null ? "" : t.getMessage();
            if (t instanceof NumberFormatException) {
                Matcher input = Pattern.compile("For input string: \"(.*)\"").matcher(m);
                return new CoilgunException(SqlState.INVALID_TEXT_REPRESENTATION, "invalid input syntax for a "
                        + "number: \"" + (input.find() ? input.group(1) : m) + "\"", 0, e);
            }
            if (t instanceof IllegalArgumentException
                    && (m.startsWith("Invalid DATE value") || m.startsWith("Invalid TIMESTAMP value")
                            || m.startsWith("Invalid TIME value"))) {
                return new CoilgunException(SqlState.INVALID_DATETIME_FORMAT, "invalid input syntax for type "
                        + "timestamp: " + m.substring(m.indexOf(',') + 1).trim(), 0, e);
            }
            if (t instanceof ArithmeticException && m.contains("cannot be represented as a DECIMAL")) {
                // a value rounded to a numeric(p, s) with more than p - s digits before the point
                return new CoilgunException(SqlState.NUMERIC_VALUE_OUT_OF_RANGE, "numeric field overflow", 0, e);
            }
            if (m.contains("due to overflow") || m.contains("out of range")) {
                return new CoilgunException(SqlState.NUMERIC_VALUE_OUT_OF_RANGE, "value out of range: " + m, 0,
                        e);
            }
        }
        return null;
    }

    /** A Calcite error as Postgres would report it: SQLSTATE by kind of error, position from Calcite's. */
    static CoilgunException toCoilgun(String sql, SQLException e) {
        CoilgunException inner = find(e);
        if (inner != null) {
            return inner;
        }
        CoilgunException data = dataError(e);
        if (data != null) {
            return data;
        }
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof ArithmeticException) {
                return new CoilgunException(SqlState.DIVISION_BY_ZERO, "division by zero", 0, e);
            }
        }
        String message = rootMessage(e);
        int position = 0;
        StringBuilder all = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause()) {
            all.append(t.getMessage()).append('\n');
            if (t instanceof CalciteContextException cce && cce.getPosLine() > 0) {
                all.append("From line ").append(cce.getPosLine()).append(", column ").append(cce.getPosColumn())
                        .append('\n');
            }
        }
        Matcher m = POSITION.matcher(all);
        if (m.find()) {
            position = offset(sql, Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)));
        }
        SqlState state = SqlState.SYNTAX_ERROR_OR_ACCESS_RULE_VIOLATION;
        String text = message;
        Matcher table = Pattern.compile("Object '([^']+)' not found").matcher(message);
        Matcher column = Pattern.compile("Column '([^']+)' not found").matcher(message);
        Matcher function = Pattern.compile("No match found for function signature ([^(]+)\\(").matcher(message);
        if (table.find()) {
            state = SqlState.UNDEFINED_TABLE;
            text = "relation \"" + table.group(1) + "\" does not exist";
        } else if (column.find()) {
            state = SqlState.UNDEFINED_COLUMN;
            text = "column \"" + column.group(1) + "\" does not exist";
        } else if (function.find()) {
            state = SqlState.UNDEFINED_FUNCTION;
            text = "function " + function.group(1).toLowerCase(Locale.ROOT) + " does not exist";
        } else if (message.contains("Cannot apply") || message.contains("cannot be converted")) {
            state = SqlState.UNDEFINED_FUNCTION;
        } else if (message.contains("Encountered") || message.contains("parse failed")) {
            state = SqlState.SYNTAX_ERROR;
        } else if (message.contains("ambiguous")) {
            state = SqlState.AMBIGUOUS_COLUMN;
        }
        return new CoilgunException(state, text, position, e);
    }

    private static String rootMessage(Throwable e) {
        String message = e.getMessage();
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t.getMessage() != null) {
                message = t.getMessage();
            }
        }
        return message == null ? e.toString() : message;
    }

    private static int offset(String sql, int line, int column) {
        int i = 0;
        for (int l = 1; l < line && i < sql.length(); l++) {
            int nl = sql.indexOf('\n', i);
            i = nl < 0 ? sql.length() : nl + 1;
        }
        return Math.min(i + column, sql.length());
    }
}
