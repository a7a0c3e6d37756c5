package io.coilgun.sql.parser;

import io.coilgun.planner.error.CoilgunException;
import io.coilgun.planner.error.SqlState;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.calcite.avatica.util.TimeUnit;
import org.apache.calcite.sql.SqlBasicCall;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlInsert;
import org.apache.calcite.sql.SqlIntervalLiteral;
import org.apache.calcite.sql.SqlIntervalQualifier;
import org.apache.calcite.sql.SqlLiteral;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNodeList;
import org.apache.calcite.sql.SqlNumericLiteral;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlSelect;
import org.apache.calcite.sql.SqlSyntax;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.sql.parser.SqlParserUtil;

/**
 * Java helpers called from the grammar actions in {@code src/main/codegen/includes/parserImpls.ftl}
 * (kept here so the grammar stays small and this logic is compiled and tested as ordinary Java).
 * Not part of the API.
 */
public final class ParserSupport {
    private ParserSupport() {}

    /** {@code SHOW STREAMS} or {@code SHOW METRICS}; anything else after SHOW is not supported (yet). */
    public static SqlShowObjects show(SqlParserPos pos, List<SqlIdentifier> words) {
        List<String> names = new ArrayList<>();
        for (SqlIdentifier word : words) {
            names.add(word.getSimple().toLowerCase(Locale.ROOT));
        }
        String what = String.join(" ", names);
        // Postgres' multi-word spellings of parameters.
        what = switch (what) {
            case "transaction isolation level" -> "transaction_isolation";
            case "time zone" -> "timezone";
            case "session authorization" -> "session_authorization";
            default -> what;
        };
        if (what.contains(" ")) {
            throw new CoilgunParseError(SqlState.SYNTAX_ERROR, "syntax error at or near \""
                + words.get(1).getSimple() + "\"", words.get(1).getParserPosition());
        }
        return new SqlShowObjects(pos, what);
    }

    /**
     * Turns the short window-size form {@code <number> <unit>} (for example {@code 5 MINUTES},
     * {@code 500 MILLISECONDS}) into the equivalent standard interval literal.
     *
     * <ul>
     *   <li>MILLISECOND(S) becomes a SECOND interval with a fractional value ({@code 500 MILLISECONDS}
     *       is {@code INTERVAL '0.5' SECOND}), since Calcite's interval literals have no millisecond unit;
     *   <li>SECOND(S) and MILLISECOND(S) accept a fractional number, the other units need an integer;
     *   <li>WEEK(S), MONTH(S), YEAR(S) stay as Calcite's WEEK, MONTH and YEAR intervals.
     * </ul>
     *
     * @param number the unsigned number
     * @param unitImage the unit token as written, singular or plural, any case
     * @param pos the position of the whole short form
     */
    public static SqlIntervalLiteral shortInterval(SqlNumericLiteral number, String unitImage, SqlParserPos pos) {
        String unit = unitImage.toUpperCase(Locale.ROOT);
        if (unit.endsWith("S")) {
            unit = unit.substring(0, unit.length() - 1);
        }
        BigDecimal value = number.getValueAs(BigDecimal.class);
        TimeUnit timeUnit;
        switch (unit) {
            case "MILLISECOND":
                timeUnit = TimeUnit.SECOND;
                value = value.movePointLeft(3);
                break;
            case "SECOND":
                timeUnit = TimeUnit.SECOND;
                break;
            case "MINUTE":
                timeUnit = TimeUnit.MINUTE;
                break;
            case "HOUR":
                timeUnit = TimeUnit.HOUR;
                break;
            case "DAY":
                timeUnit = TimeUnit.DAY;
                break;
            case "WEEK":
                timeUnit = TimeUnit.WEEK;
                break;
            case "MONTH":
                timeUnit = TimeUnit.MONTH;
                break;
            case "YEAR":
                timeUnit = TimeUnit.YEAR;
                break;
            default:
                throw new CoilgunParseError(SqlState.SYNTAX_ERROR, "unknown interval unit \"" + unitImage + "\"", pos);
        }
        value = value.stripTrailingZeros();
        if (timeUnit != TimeUnit.SECOND && value.scale() > 0) {
            throw new CoilgunParseError(SqlState.INVALID_PARAMETER_VALUE,
                "interval value " + number.toValue() + " " + unitImage
                    + " must be a whole number; use a smaller unit",
                pos);
        }
        SqlIntervalQualifier qualifier = new SqlIntervalQualifier(timeUnit, null, pos);
        SqlLiteral literal = SqlParserUtil.parseIntervalLiteral(pos, 1, value.toPlainString(), qualifier);
        return (SqlIntervalLiteral) literal;
    }

    /** Casts an interval literal parsed by Calcite's {@code IntervalLiteral()} production. */
    public static SqlIntervalLiteral interval(SqlLiteral literal) {
        if (literal instanceof SqlIntervalLiteral) {
            return (SqlIntervalLiteral) literal;
        }
        throw new CoilgunParseError(SqlState.SYNTAX_ERROR, "interval literal expected", literal.getParserPosition());
    }

    /** Checks that a window size or delay is a positive duration Coilgun supports. */
    public static SqlIntervalLiteral checkWindowInterval(SqlIntervalLiteral literal) {
        try {
            Intervals.toMicros(literal);
        } catch (CoilgunException e) {
            throw new CoilgunParseError(e.state(), e.getMessage(), literal.getParserPosition(), e);
        }
        return literal;
    }

    /** Builds {@code INSERT ... RETURNING *}; any other RETURNING list is not supported (0A000). */
    public static SqlInsertReturning insertReturning(SqlParserPos pos, SqlInsert insert, List<SqlNode> returning) {
        SqlNode first = returning.get(0);
        boolean star = returning.size() == 1
            && first instanceof SqlIdentifier
            && ((SqlIdentifier) first).isStar()
            && ((SqlIdentifier) first).names.size() == 1;
        if (!star) {
            throw new CoilgunParseError(SqlState.FEATURE_NOT_SUPPORTED,
                "only RETURNING * is supported", first.getParserPosition());
        }
        return new SqlInsertReturning(pos, insert);
    }

    /*
     * CREATE METRIC ... AS <select> OVER <window>: when the SELECT ends with a function call, as in
     * "GROUP BY lower(merchant_id) OVER SLIDING 5 MINUTES", Calcite's function-call production has
     * already taken "OVER sliding" as a reference to a named window (f(x) OVER w). The grammar then
     * finds no OVER; these two methods let it take the window keyword back out of the SELECT.
     */

    /** Whether {@code select} ends with {@code f(...) OVER sliding|tumbling|infinite}. */
    public static boolean endsWithWindowKeyword(SqlSelect select) {
        return takeBack(select, false) != null;
    }

    /**
     * Removes the trailing {@code OVER sliding|tumbling|infinite} from {@code select} (keeping the call)
     * and returns the window keyword as an identifier, with its position.
     */
    public static SqlIdentifier takeBackWindowKeyword(SqlSelect select) {
        SqlIdentifier keyword = takeBack(select, true);
        if (keyword == null) {
            throw new IllegalStateException("SELECT does not end with a window keyword");
        }
        return keyword;
    }

    /** The window kind a keyword names: SLIDING, TUMBLING or INFINITE. */
    public static SqlWindowSpec.Kind windowKind(SqlIdentifier keyword) {
        return SqlWindowSpec.Kind.valueOf(keyword.getSimple().toUpperCase(Locale.ROOT));
    }

    private static SqlIdentifier takeBack(SqlSelect select, boolean remove) {
        // The clause that ends the SELECT's text, in the order WHERE, GROUP BY, HAVING, WINDOW, QUALIFY.
        if (select.getQualify() != null) {
            SqlNode[] out = new SqlNode[1];
            SqlIdentifier keyword = takeBack(select.getQualify(), out, remove);
            if (keyword != null && remove) {
                select.setQualify(out[0]);
            }
            return keyword;
        }
        if (select.getWindowList() != null && !select.getWindowList().isEmpty()) {
            return null;
        }
        if (select.getHaving() != null) {
            SqlNode[] out = new SqlNode[1];
            SqlIdentifier keyword = takeBack(select.getHaving(), out, remove);
            if (keyword != null && remove) {
                select.setHaving(out[0]);
            }
            return keyword;
        }
        SqlNodeList group = select.getGroup();
        if (group != null && !group.isEmpty()) {
            SqlNode[] out = new SqlNode[1];
            SqlIdentifier keyword = takeBack(group.get(group.size() - 1), out, remove);
            if (keyword != null && remove) {
                group.set(group.size() - 1, out[0]);
            }
            return keyword;
        }
        if (select.getWhere() != null) {
            SqlNode[] out = new SqlNode[1];
            SqlIdentifier keyword = takeBack(select.getWhere(), out, remove);
            if (keyword != null && remove) {
                select.setWhere(out[0]);
            }
            return keyword;
        }
        return null;
    }

    /**
     * Looks for {@code f(...) OVER <window keyword>} at the textual end of {@code node}: the node itself,
     * or down the last operand of binary and prefix operators ({@code a AND f(x) OVER sliding}). If found
     * and {@code remove}, {@code out[0]} gets the node to use instead.
     */
    private static SqlIdentifier takeBack(SqlNode node, SqlNode[] out, boolean remove) {
        if (!(node instanceof SqlCall)) {
            return null;
        }
        SqlCall call = (SqlCall) node;
        if (call.getKind() == SqlKind.OVER) {
            SqlNode window = call.operand(1);
            if (window instanceof SqlIdentifier && ((SqlIdentifier) window).isSimple()) {
                String name = ((SqlIdentifier) window).getSimple().toUpperCase(Locale.ROOT);
                for (SqlWindowSpec.Kind kind : SqlWindowSpec.Kind.values()) {
                    if (kind.name().equals(name)) {
                        out[0] = call.operand(0);
                        return (SqlIdentifier) window;
                    }
                }
            }
            return null;
        }
        SqlSyntax syntax = call.getOperator().getSyntax();
        if (!(call instanceof SqlBasicCall) || (syntax != SqlSyntax.BINARY && syntax != SqlSyntax.PREFIX)) {
            return null;
        }
        int last = call.operandCount() - 1;
        if (last < 0) {
            return null;
        }
        SqlIdentifier keyword = takeBack(call.operand(last), out, remove);
        if (keyword != null) {
            if (remove) {
                call.setOperand(last, out[0]);
            }
            out[0] = call;
        }
        return keyword;
    }
}
