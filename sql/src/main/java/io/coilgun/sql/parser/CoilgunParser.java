package io.coilgun.sql.parser;

import static org.apache.calcite.util.Static.RESOURCE;

import io.coilgun.planner.error.CoilgunException;
import io.coilgun.planner.error.SqlState;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import org.apache.calcite.avatica.util.Casing;
import org.apache.calcite.avatica.util.Quoting;
import org.apache.calcite.runtime.CalciteContextException;
import org.apache.calcite.sql.SqlDialect;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.parser.SqlAbstractParserImpl;
import org.apache.calcite.sql.parser.SqlParseException;
import org.apache.calcite.sql.parser.SqlParser;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.util.SourceStringReader;

/**
 * Entry point of Coilgun's SQL parser: Calcite's grammar extended with CREATE STREAM, CREATE METRIC
 * and INSERT ... RETURNING * (see {@code src/main/codegen}).
 *
 * <p>Identifiers follow Postgres: unquoted ones are folded to lower case, double-quoted ones are kept
 * as written. The conformance is {@link PostgresConformance}: Calcite's most lenient, less what Postgres
 * refuses.
 *
 * <p>Every error is a {@link CoilgunException} whose position is a 1-based character offset into the
 * whole query string, as Postgres reports it: syntax errors are SYNTAX_ERROR (42601) with a message such
 * as {@code syntax error at or near "FROMM"} or {@code syntax error at end of input} (then the position is
 * one past the last character); errors the grammar detects itself carry their own state (for example
 * FEATURE_NOT_SUPPORTED for {@code RETURNING a}, INVALID_PARAMETER_VALUE for a window of size 0).
 *
 * <p>Offsets count Unicode code points (as Postgres counts characters); a tab counts as one character,
 * and {@code \r\n}, {@code \n} and a lone {@code \r} each end a line.
 */
public final class CoilgunParser {
    private static final SqlParser.Config CONFIG = SqlParser.config()
        .withParserFactory(CoilgunSqlParserImpl.FACTORY)
        .withQuoting(Quoting.DOUBLE_QUOTE)
        .withUnquotedCasing(Casing.TO_LOWER)
        .withQuotedCasing(Casing.UNCHANGED)
        .withCaseSensitive(true)
        .withConformance(PostgresConformance.INSTANCE);

    /** Unparses the way {@link #CONFIG} parses: identifiers double-quoted, case kept. */
    private static final SqlDialect DIALECT = new SqlDialect(SqlDialect.EMPTY_CONTEXT
        .withDatabaseProduct(SqlDialect.DatabaseProduct.POSTGRESQL)
        .withIdentifierQuoteString("\"")
        .withUnquotedCasing(Casing.TO_LOWER)
        .withQuotedCasing(Casing.UNCHANGED)
        .withCaseSensitive(true));

    private static final String NON_QUERY_EXPRESSION = RESOURCE.illegalNonQueryExpression().str();

    /** Expected-token lists longer than this are left out of syntax error messages. */
    private static final int MAX_EXPECTED = 8;

    private CoilgunParser() {}

    /**
     * The Calcite parser configuration this parser uses (parser factory, casing, quoting, conformance),
     * for code that wants to build a {@link SqlParser} or a validator consistent with it.
     */
    public static SqlParser.Config config() {
        return CONFIG;
    }

    /** A dialect whose {@link SqlNode#toSqlString(SqlDialect)} output this parser reads back to an equal tree. */
    public static SqlDialect dialect() {
        return DIALECT;
    }

    /** {@code node} as SQL text in {@link #dialect()} (identifiers quoted), which this parser reads back. */
    public static String toSql(SqlNode node) {
        return node.toSqlString(DIALECT).getSql();
    }

    /**
     * Parses a query string holding zero or more statements separated by {@code ;} (a trailing {@code ;}
     * and empty statements are allowed; an empty, blank or comment-only string gives an empty list).
     *
     * @throws CoilgunException on any error, with its position in {@code sql}
     */
    public static List<SqlNode> parseStatements(String sql) {
        List<ParsedStatement> parsed = parse(sql);
        List<SqlNode> nodes = new ArrayList<>(parsed.size());
        for (ParsedStatement statement : parsed) {
            nodes.add(statement.node());
        }
        return Collections.unmodifiableList(nodes);
    }

    /** Like {@link #parseStatements(String)}, also giving each statement's own text and offset. */
    public static List<ParsedStatement> parse(String query) {
        Objects.requireNonNull(query, "sql");
        PgSyntax.Rewritten rewritten = PgSyntax.rewrite(query);
        try {
            return parseRewritten(rewritten.sql());
        } catch (CoilgunException e) {
            int position = rewritten.originalPosition(e.position());
            throw position == e.position() ? e : e.at(position);
        }
    }

    /** The statements' texts and positions are in {@code sql}, which {@link PgSyntax} wrote. */
    private static List<ParsedStatement> parseRewritten(String sql) {
        if (sql.isEmpty()) {
            // The generated char stream is sized to the input and cannot read from a 0-length buffer.
            return List.of();
        }
        ParameterMarkers markers = ParameterMarkers.rewrite(sql);
        CoilgunSqlParserImpl parser = newParser(markers.sql());
        List<SqlNode> nodes = new ArrayList<>();
        List<SqlParserPos> extents = new ArrayList<>();
        try {
            parser.CoilgunStmtList(nodes, extents);
        } catch (CoilgunParseError e) {
            throw new CoilgunException(e.state(), e.getMessage(), offsetOf(sql, e.pos()), e);
        } catch (CalciteContextException e) {
            throw contextError(sql, e);
        } catch (ParseException e) {
            throw syntaxError(sql, parser, e);
        } catch (Exception | TokenMgrError e) {
            throw syntaxError(sql, parser, parser.normalizeException(e));
        } catch (StackOverflowError e) {
            // The parser is recursive descent: thousands of nested parentheses exhaust the stack.
            throw new CoilgunException(SqlState.SYNTAX_ERROR, "statement is too deeply nested", 0, e);
        }
        List<ParsedStatement> statements = new ArrayList<>(nodes.size());
        for (int i = 0; i < nodes.size(); i++) {
            SqlParserPos extent = extents.get(i);
            int begin = charIndex(sql, extent.getLineNum(), extent.getColumnNum());
            int end = charIndex(sql, extent.getEndLineNum(), extent.getEndColumnNum()) + 1;
            // a statement ending in $12 ends, for the parser, at the "?" that stands for it: take the digits too
            while (end < sql.length() && markers.sql().charAt(end) == ' ' && sql.charAt(end) != ' ') {
                end++;
            }
            statements.add(new ParsedStatement(nodes.get(i), sql.substring(begin, Math.min(end, sql.length())),
                sql.codePointCount(0, begin) + 1, markers.numbers()));
        }
        return Collections.unmodifiableList(statements);
    }

    /**
     * The 1-based character offset in {@code sql} of the start of {@code pos} (a position of a node parsed
     * from {@code sql}), or 0 if {@code pos} is null or {@link SqlParserPos#ZERO}. A position past the end of
     * the text gives one past the last character.
     */
    public static int offsetOf(String sql, SqlParserPos pos) {
        if (pos == null) {
            return 0;
        }
        return offsetOf(sql, pos.getLineNum(), pos.getColumnNum());
    }

    /** The indexes in {@code sql} where the node at {@code pos} begins and ends (exclusive). */
    public static int[] span(String sql, SqlParserPos pos) {
        return new int[] {charIndex(sql, pos.getLineNum(), pos.getColumnNum()),
            Math.min(charIndex(sql, pos.getEndLineNum(), pos.getEndColumnNum()) + 1, sql.length())};
    }

    /** The text of {@code sql} from the token at {@code start} on. */
    public static String textFrom(String sql, SqlParserPos start) {
        return sql.substring(charIndex(sql, start.getLineNum(), start.getColumnNum()));
    }

    /** The text of {@code sql} strictly between the tokens at {@code open} and {@code close}. */
    public static String textBetween(String sql, SqlParserPos open, SqlParserPos close) {
        int from = charIndex(sql, open.getEndLineNum(), open.getEndColumnNum()) + 1;
        int to = charIndex(sql, close.getLineNum(), close.getColumnNum());
        return from <= to ? sql.substring(from, to) : "";
    }

    private static int offsetOf(String sql, int line, int column) {
        if (sql == null || line <= 0 || column <= 0) {
            return 0;
        }
        return sql.codePointCount(0, charIndex(sql, line, column)) + 1;
    }

    /**
     * The 0-based char index in {@code sql} of a 1-based (line, column) as JavaCC counts them with tab size
     * 1, clamped to {@code sql.length()}.
     */
    private static int charIndex(String sql, int line, int column) {
        int n = sql.length();
        int i = 0;
        for (int l = 1; l < line; l++) {
            while (i < n && sql.charAt(i) != '\n' && sql.charAt(i) != '\r') {
                i++;
            }
            if (i >= n) {
                return n;
            }
            if (sql.charAt(i) == '\r' && i + 1 < n && sql.charAt(i + 1) == '\n') {
                i++;
            }
            i++;
        }
        return (int) Math.min((long) i + column - 1, n);
    }

    @SuppressWarnings("deprecation") // timeUnitCodes: set exactly as SqlParser does
    private static CoilgunSqlParserImpl newParser(String sql) {
        SqlAbstractParserImpl parser = CONFIG.parserFactory().getParser(new SourceStringReader(sql));
        // The same set-up as org.apache.calcite.sql.parser.SqlParser's constructor.
        parser.setTabSize(1);
        parser.setQuotedCasing(CONFIG.quotedCasing());
        parser.setUnquotedCasing(CONFIG.unquotedCasing());
        parser.setIdentifierMaxLength(CONFIG.identifierMaxLength());
        parser.setTimeUnitCodes(CONFIG.timeUnitCodes());
        parser.setConformance(CONFIG.conformance());
        parser.switchTo(SqlAbstractParserImpl.LexicalState.forConfig(CONFIG));
        return (CoilgunSqlParserImpl) parser;
    }

    private static CoilgunException contextError(String sql, CalciteContextException e) {
        Throwable cause = e.getCause() != null && e.getCause().getMessage() != null ? e.getCause() : e;
        int position = offsetOf(sql, e.getPosLine(), e.getPosColumn());
        if (NON_QUERY_EXPRESSION.equals(cause.getMessage()) && position > 0) {
            // e.g. "SELEC 1": Calcite reads SELEC as an expression, then finds it cannot be a statement.
            return nearError(sql, position, e);
        }
        return new CoilgunException(SqlState.SYNTAX_ERROR, firstLine(cause.getMessage()), position, e);
    }

    /** A JavaCC parse error: the token it stopped at, and what it expected when that list is short. */
    private static CoilgunException syntaxError(String sql, CoilgunSqlParserImpl parser, ParseException e) {
        if (e.currentToken == null || e.currentToken.next == null) {
            // Thrown by a grammar action with a message of its own.
            return syntaxError(sql, parser, parser.normalizeException(e));
        }
        Token token = e.currentToken.next;
        String expected = expected(e.expectedTokenSequences, e.tokenImage);
        if (token.kind == CoilgunSqlParserImplConstants.EOF) {
            return new CoilgunException(SqlState.SYNTAX_ERROR, "syntax error at end of input" + expected,
                sql.codePointCount(0, sql.length()) + 1, e);
        }
        return new CoilgunException(SqlState.SYNTAX_ERROR,
            "syntax error at or near \"" + token.image + "\"" + expected,
            offsetOf(sql, token.beginLine, token.beginColumn), e);
    }

    /** Any other failure, as Calcite's parser normalized it. */
    private static CoilgunException syntaxError(String sql, CoilgunSqlParserImpl parser, SqlParseException e) {
        Throwable cause = e.getCause();
        if (cause instanceof CoilgunParseError) {
            CoilgunParseError error = (CoilgunParseError) cause;
            return new CoilgunException(error.state(), error.getMessage(), offsetOf(sql, error.pos()), error);
        }
        if (cause instanceof CalciteContextException) {
            return contextError(sql, (CalciteContextException) cause);
        }
        int position = offsetOf(sql, e.getPos());
        if (position == 0 && parser.token != null) {
            position = offsetOf(sql, parser.token.beginLine, parser.token.beginColumn);
        }
        if (cause instanceof TokenMgrError && position > 0) {
            return nearError(sql, position, e);
        }
        return new CoilgunException(SqlState.SYNTAX_ERROR, firstLine(e.getMessage()), position, e);
    }

    /** {@code syntax error at or near "<the word at position>"}. */
    private static CoilgunException nearError(String sql, int position, Throwable cause) {
        int start = sql.offsetByCodePoints(0, Math.min(position - 1, sql.codePointCount(0, sql.length())));
        if (start >= sql.length()) {
            return new CoilgunException(SqlState.SYNTAX_ERROR, "syntax error at end of input", position, cause);
        }
        int end = start;
        if (Character.isLetter(sql.codePointAt(start)) || sql.charAt(start) == '_') {
            while (end < sql.length()
                && (Character.isLetterOrDigit(sql.codePointAt(end)) || sql.charAt(end) == '_' || sql.charAt(end) == '$')) {
                end += Character.charCount(sql.codePointAt(end));
            }
        } else {
            end += Character.charCount(sql.codePointAt(start));
        }
        return new CoilgunException(SqlState.SYNTAX_ERROR,
            "syntax error at or near \"" + sql.substring(start, end) + "\"", position, cause);
    }

    /** {@code " (expected A, B, C)"} when the list of expected tokens is short, else "". */
    private static String expected(int[][] sequences, String[] images) {
        if (sequences == null || images == null) {
            return "";
        }
        Set<String> names = new LinkedHashSet<>();
        for (int[] sequence : sequences) {
            if (sequence.length > 0 && sequence[0] < images.length) {
                names.add(describe(images[sequence[0]]));
            }
        }
        if (names.isEmpty() || names.size() > MAX_EXPECTED) {
            return "";
        }
        return " (expected " + String.join(", ", names) + ")";
    }

    private static String describe(String image) {
        if (image.length() >= 2 && image.startsWith("\"") && image.endsWith("\"")) {
            String text = image.substring(1, image.length() - 1);
            return text.matches("[A-Za-z_][A-Za-z_0-9]*") ? text.toUpperCase(Locale.ROOT) : "\"" + text + "\"";
        }
        if (image.startsWith("<") && image.endsWith(">")) {
            String name = image.substring(1, image.length() - 1);
            if (name.equals("EOF")) {
                return "end of input";
            }
            if (name.contains("STRING")) {
                return "string";
            }
            if (name.contains("NUMERIC") || name.contains("INTEGER")) {
                return "number";
            }
            if (name.contains("IDENTIFIER")) {
                return "identifier";
            }
            return name.toLowerCase(Locale.ROOT);
        }
        return image;
    }

    private static String firstLine(String message) {
        if (message == null) {
            return "syntax error";
        }
        int newline = message.indexOf('\n');
        return (newline < 0 ? message : message.substring(0, newline)).trim();
    }
}
