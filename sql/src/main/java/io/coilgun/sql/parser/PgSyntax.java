package io.coilgun.sql.parser;

import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Postgres spellings that Calcite's lexer cannot read, rewritten before parsing into ones it can, most keeping every
 * character at its offset (replacements are padded with spaces):
 * <ul>
 *   <li>{@code OPERATOR(pg_catalog.~)} becomes {@code ~} (psql qualifies its regular-expression matches);</li>
 *   <li>{@code COLLATE pg_catalog.default} and {@code COLLATE "C"} go: Coilgun compares text by code point;</li>
 *   <li>escape strings {@code E'a\nb'} become standard literals with the escapes resolved;</li>
 *   <li>{@code current_schema}, {@code current_schema()} and {@code current_catalog} become calls of functions
 *       Coilgun defines (see {@link #CURRENT_SCHEMA});</li>
 *   <li>{@code CAST(x AS regclass)} and casts to the other types only Postgres names ({@code text}, {@code int8},
 *       {@code regtype}, …) become {@code (x)::regclass}, which {@link PgCast} reads;</li>
 *   <li>an alias after {@code AS} that Calcite reserves and Postgres takes ({@code SELECT 1 AS one}, {@code AS
 *       table}, {@code AS year}: after AS Postgres takes any word) becomes the quoted lower-case name, {@code AS}
 *       dropped to make room ({@code SELECT 1 "one"});</li>
 *   <li>a constant expression as a LIMIT or OFFSET ({@code LIMIT ('10'::int4)}, what pgjdbc's simple mode sends)
 *       becomes its integer ({@link LimitConstants});</li>
 *   <li>the words Postgres takes as names and Calcite as keywords are quoted where they are names
 *       ({@code SELECT time FROM s}: see {@link KeywordNames}). This adds characters: {@link Rewritten} maps a
 *       position in the rewritten text back to the client's.</li>
 * </ul>
 * String literals, quoted identifiers and comments are left alone. Rewriting a rewritten text changes nothing.
 */
public final class PgSyntax {
    private PgSyntax() {
    }

    /**
     * A client's text as the parser reads it.
     *
     * @param inserted the char indices in {@code sql} of the characters added (the others are the client's, or
     *     stand in their place)
     */
    public record Rewritten(String sql, int[] inserted) {
        /** The 1-based position (in code points) in the client's text of {@code position} in {@link #sql}. */
        public int originalPosition(int position) {
            if (position <= 0 || inserted.length == 0) {
                return position;
            }
            int index = sql.offsetByCodePoints(0, Math.min(position - 1, sql.codePointCount(0, sql.length())));
            int before = 0;
            while (before < inserted.length && inserted[before] < index) {
                before++;
            }
            return position - before;
        }
    }

    public static Rewritten rewrite(String sql) {
        return KeywordNames.quote(sameLength(sql));
    }

    /** {@link #rewrite(String)}'s text. */
    public static String normalize(String sql) {
        return rewrite(sql).sql();
    }

    private static String sameLength(String sql) {
        if (!mayNeed(sql)) {
            return sql;
        }
        StringBuilder out = new StringBuilder(searchPathSchemas(sql));
        int n = sql.length();
        int i = 0;
        while (i < n) {
            char c = sql.charAt(i);
            if ((c == 'E' || c == 'e') && i + 1 < n && sql.charAt(i + 1) == '\''
                    && (i == 0 || !isIdentifierPart(sql.charAt(i - 1)))) {
                i = escapeString(sql, i, out);
            } else if (c == '\'' || c == '"') {
                i = skipQuoted(sql, i, c);
            } else if (commentEnd(sql, i) > i) {
                i = commentEnd(sql, i);
            } else if (isIdentifierStart(c) && (i == 0 || !isIdentifierPart(sql.charAt(i - 1)))) {
                int end = i;
                while (end < n && isIdentifierPart(sql.charAt(end))) {
                    end++;
                }
                String word = sql.substring(i, end).toUpperCase(Locale.ROOT);
                if (word.equals("OPERATOR")) {
                    i = operator(sql, i, end, out);
                } else if (word.equals("AS")) {
                    i = alias(sql, i, end, out);
                } else if (word.equals("CAST")) {
                    i = cast(sql, i, end, out);
                } else if (word.equals("COLLATE")) {
                    i = collate(sql, i, end, out);
                } else if (word.equals("LIMIT") || word.equals("OFFSET")) {
                    i = LimitConstants.rewrite(sql, end, word.equals("LIMIT"), out);
                } else if (CONTEXT_FUNCTIONS.containsKey(word)) {
                    i = contextFunction(sql, i, end, CONTEXT_FUNCTIONS.get(word), out);
                } else {
                    i = end;
                }
            } else {
                i++;
            }
        }
        return out.toString();
    }

    /**
     * The functions {@code current_schema} and {@code current_catalog} stand for (Calcite parses both as context
     * variables it cannot evaluate); names no longer than the words, so the text keeps its length.
     */
    public static final String CURRENT_SCHEMA = "pgcurschema";
    public static final String CURRENT_CATALOG = "pgcurcatalog";
    public static final String CURRENT_USER = "pgcuruser";
    public static final String SESSION_USER = "pgsessuser";
    private static final Map<String, String> CONTEXT_FUNCTIONS = Map.of(
            "CURRENT_SCHEMA", CURRENT_SCHEMA, "CURRENT_CATALOG", CURRENT_CATALOG, "CURRENT_USER", CURRENT_USER,
            "SESSION_USER", SESSION_USER);

    /** The name Postgres gives a result column computed by one of those functions, or null. */
    public static String contextFunctionColumn(String function) {
        for (var e : CONTEXT_FUNCTIONS.entrySet()) {
            if (e.getValue().equalsIgnoreCase(function)) {
                return e.getKey().toLowerCase(Locale.ROOT);
            }
        }
        return null;
    }

    /**
     * Grafana's query editor lists tables and columns of the schemas on the search path with a subquery Calcite
     * cannot run (an array-valued function and a series over its bounds in FROM, {@code s[i]}). Coilgun's search
     * path is fixed ({@code "$user", public}), so the subquery is replaced by the rows it gives, padded.
     */
    private static final Pattern SEARCH_PATH_SCHEMAS = Pattern.compile(
            "SELECT\\s+CASE\\s+WHEN\\s+trim\\(s\\[i\\]\\)\\s*=\\s*'\"\\$user\"'\\s+THEN\\s+user\\s+ELSE\\s+"
                    + "trim\\(s\\[i\\]\\)\\s+END\\s+FROM\\s+generate_series\\(\\s*"
                    + "array_lower\\(\\s*string_to_array\\(\\s*current_setting\\(\\s*'search_path'\\s*\\)\\s*,\\s*','\\s*\\)"
                    + "\\s*,\\s*1\\s*\\)\\s*,\\s*array_upper\\(\\s*string_to_array\\(\\s*current_setting\\(\\s*"
                    + "'search_path'\\s*\\)\\s*,\\s*','\\s*\\)\\s*,\\s*1\\s*\\)\\s*\\)\\s+as\\s+i\\s*,\\s*"
                    + "string_to_array\\(\\s*current_setting\\(\\s*'search_path'\\s*\\)\\s*,\\s*','\\s*\\)\\s+s",
            Pattern.CASE_INSENSITIVE);
    private static final String SEARCH_PATH_ROWS = "SELECT " + CURRENT_USER + "() UNION ALL SELECT 'public'";

    private static String searchPathSchemas(String sql) {
        if (!sql.toLowerCase(Locale.ROOT).contains("search_path")) {
            return sql;
        }
        Matcher m = SEARCH_PATH_SCHEMAS.matcher(sql);
        StringBuilder out = new StringBuilder(sql);
        while (m.find()) {
            String rows = SEARCH_PATH_ROWS + " ".repeat(m.end() - m.start() - SEARCH_PATH_ROWS.length());
            out.replace(m.start(), m.end(), rows);
        }
        return out.toString();
    }

    private static boolean mayNeed(String sql) {
        String upper = sql.toUpperCase(Locale.ROOT);
        return upper.contains("OPERATOR") || upper.contains("COLLATE") || upper.contains("E'") || upper.contains("CAST")
                || upper.contains("SEARCH_PATH")
                || upper.contains("AS") || upper.contains("LIMIT") || upper.contains("OFFSET")
                || upper.contains("CURRENT_") || upper.contains("SESSION_USER");
    }

    /** {@code current_schema [()]} at {@code start}: a call of {@code function}, padded. */
    private static int contextFunction(String sql, int start, int wordEnd, String function, StringBuilder out) {
        int end = wordEnd;
        int at = skipSpace(sql, wordEnd);
        if (at < sql.length() && sql.charAt(at) == '(') {
            int close = skipSpace(sql, at + 1);
            if (close < sql.length() && sql.charAt(close) == ')') {
                end = close + 1;
            }
        }
        blank(out, start, end);
        out.replace(start, start + function.length() + 2, function + "()");
        return end;
    }

    /**
     * After AS, these start a statement (CREATE METRIC m AS SELECT …), not an alias, unless the select item ends
     * after them ({@code SELECT 1 AS select}, {@code … AS returning FROM t}).
     */
    private static final Set<String> NOT_ALIASES = Set.of("SELECT", "WITH", "VALUES", "RETURNING");
    /** Words that start the clause after a select list, or after a statement's select list ends. */
    private static final Set<String> CLAUSE_STARTS = Set.of("FROM", "WHERE", "GROUP", "HAVING", "ORDER", "LIMIT",
            "OFFSET", "UNION", "EXCEPT", "INTERSECT", "WINDOW", "FETCH", "INTO");

    /**
     * {@code AS word} at {@code start} where Calcite reserves the word: {@code "word"} (lower case, as Postgres folds
     * it), padded; left alone inside {@code CAST( … AS type)} and before a statement.
     */
    private static int alias(String sql, int start, int wordEnd, StringBuilder out) {
        int at = skipSpace(sql, wordEnd);
        if (at >= sql.length() || !isIdentifierStart(sql.charAt(at))) {
            return wordEnd;
        }
        int end = at;
        while (end < sql.length() && isIdentifierPart(sql.charAt(end))) {
            end++;
        }
        String word = sql.substring(at, end).toUpperCase(Locale.ROOT);
        boolean statement = NOT_ALIASES.contains(word) && !endsItem(sql, end)
                || word.equals("RETURNING") && afterFrom(sql, start);
        if (!ReservedWords.isReserved(word) || statement || insideCast(sql, start)) {
            return wordEnd;
        }
        String quoted = "\"" + word.toLowerCase(Locale.ROOT) + "\"";
        blank(out, start, end);
        out.replace(start, start + quoted.length(), quoted);
        return end;
    }

    /**
     * Whether a select item ends at {@code at} ({@code , ) ;}, the end or a clause's word follow): {@code 'select')
     * AS select,} is Metabase's alias, {@code AS SELECT x} a statement.
     */
    private static boolean endsItem(String sql, int at) {
        int next = skipSpace(sql, at);
        if (next >= sql.length() || ",);".indexOf(sql.charAt(next)) >= 0) {
            return true;
        }
        int end = next;
        while (end < sql.length() && isIdentifierPart(sql.charAt(end))) {
            end++;
        }
        return end > next && CLAUSE_STARTS.contains(sql.substring(next, end).toUpperCase(Locale.ROOT));
    }

    /**
     * Whether the last of SELECT and FROM before {@code at} is FROM: an AS there names a table, and Postgres reserves
     * RETURNING for table aliases ({@code INSERT … RETURNING}) though not for column labels.
     */
    private static boolean afterFrom(String sql, int at) {
        String before = sql.substring(0, at).toUpperCase(Locale.ROOT);
        return LAST_FROM.matcher(before).find();
    }

    private static final Pattern LAST_FROM = Pattern.compile("\\bFROM\\b(?!.*\\bSELECT\\b)", Pattern.DOTALL);

    /** Whether {@code at} is inside the parentheses of a {@code CAST(}: its AS names a type, not an alias. */
    private static boolean insideCast(String sql, int at) {
        int depth = 0;
        for (int i = at - 1; i >= 0; i--) {
            char c = sql.charAt(i);
            if (c == ')') {
                depth++;
            } else if (c == '(') {
                if (depth == 0) {
                    int w = i - 1;
                    while (w >= 0 && Character.isWhitespace(sql.charAt(w))) {
                        w--;
                    }
                    int from = w;
                    while (from >= 0 && isIdentifierPart(sql.charAt(from))) {
                        from--;
                    }
                    String word = sql.substring(from + 1, w + 1);
                    return word.equalsIgnoreCase("CAST") || word.equalsIgnoreCase("TRY_CAST");
                }
                depth--;
            }
        }
        return false;
    }

    /** Type names only Postgres has (Calcite's CAST does not know them; {@link PgCast}'s {@code ::} does). */
    private static final Set<String> POSTGRES_TYPES = Set.of("regclass", "regtype",
            "regnamespace", "regrole", "regproc", "regprocedure", "regoper", "regconfig", "text", "name", "bpchar",
            "citext", "oid", "xid", "cid", "int2", "int4", "int8", "float4", "float8", "bool", "timestamptz", "bytea");

    /**
     * {@code CAST ( expr AS type )} at {@code start} with a type only Postgres names: {@code (expr)::type}, padded
     * (the cast's parentheses and its expression stay where they are). Other casts are left to Calcite.
     */
    private static int cast(String sql, int start, int wordEnd, StringBuilder out) {
        int open = skipSpace(sql, wordEnd);
        if (open >= sql.length() || sql.charAt(open) != '(') {
            return wordEnd;
        }
        int depth = 0;
        int as = -1;
        int close = -1;
        for (int i = open + 1; i < sql.length() && close < 0; ) {
            char c = sql.charAt(i);
            if (c == '\'' || c == '"') {
                i = skipQuoted(sql, i, c);
            } else if (c == '(') {
                depth++;
                i++;
            } else if (c == ')') {
                if (depth == 0) {
                    close = i;
                }
                depth--;
                i++;
            } else if (depth == 0 && (c == 'A' || c == 'a') && i + 2 < sql.length()
                    && (sql.charAt(i + 1) == 'S' || sql.charAt(i + 1) == 's')
                    && !isIdentifierPart(sql.charAt(i - 1)) && !isIdentifierPart(sql.charAt(i + 2))) {
                as = i;
                i += 2;
            } else {
                i++;
            }
        }
        if (as < 0 || close < 0) {
            return wordEnd;
        }
        String type = sql.substring(as + 2, close).trim();
        String base = type.replaceAll("\\s*\\[\\s*\\]$", "");
        String last = base.substring(base.lastIndexOf('.') + 1).toLowerCase(Locale.ROOT);
        if (!base.matches("[A-Za-z_][A-Za-z0-9_]*(\\.[A-Za-z_][A-Za-z0-9_]*)?") || !POSTGRES_TYPES.contains(last)) {
            return wordEnd;
        }
        blank(out, start, open);
        blank(out, as, close + 1);
        out.replace(as, as + 3 + type.length(), ")::" + type);
        return open + 1;
    }

    /** {@code OPERATOR ( [schema .] op )} at {@code start}: the operator alone, padded. */
    private static int operator(String sql, int start, int wordEnd, StringBuilder out) {
        int at = skipSpace(sql, wordEnd);
        if (at >= sql.length() || sql.charAt(at) != '(') {
            return wordEnd;
        }
        int close = sql.indexOf(')', at);
        if (close < 0) {
            return wordEnd;
        }
        String inside = sql.substring(at + 1, close).trim();
        int dot = inside.lastIndexOf('.');
        String op = dot < 0 ? inside : inside.substring(dot + 1).trim();
        if (op.isEmpty() || !op.chars().allMatch(ch -> "+-*/<>=~!@#%^&|`?".indexOf(ch) >= 0)) {
            return wordEnd;
        }
        blank(out, start, close + 1);
        out.replace(start, start + op.length(), op);
        return close + 1;
    }

    /** {@code COLLATE name} (qualified or quoted) at {@code start}: blanked. */
    private static int collate(String sql, int start, int wordEnd, StringBuilder out) {
        int at = skipSpace(sql, wordEnd);
        int end = at;
        while (end < sql.length()) {
            char c = sql.charAt(end);
            if (c == '"') {
                end = skipQuoted(sql, end, '"');
            } else if (isIdentifierPart(c) || c == '.') {
                end++;
            } else {
                break;
            }
        }
        if (end == at) {
            return wordEnd;
        }
        blank(out, start, end);
        return end;
    }

    /** {@code E'...'} at {@code start}: a standard literal with the escapes resolved, padded to the same length. */
    private static int escapeString(String sql, int start, StringBuilder out) {
        int n = sql.length();
        StringBuilder value = new StringBuilder();
        int i = start + 2;
        while (i < n) {
            char c = sql.charAt(i);
            if (c == '\\' && i + 1 < n) {
                char e = sql.charAt(i + 1);
                i += 2;
                switch (e) {
                    case 'n' -> value.append('\n');
                    case 't' -> value.append('\t');
                    case 'r' -> value.append('\r');
                    case 'b' -> value.append('\b');
                    case 'f' -> value.append('\f');
                    default -> value.append(e); // \\ \' and any other character stand for themselves
                }
            } else if (c == '\'') {
                if (i + 1 < n && sql.charAt(i + 1) == '\'') {
                    value.append('\'');
                    i += 2;
                } else {
                    i++;
                    break;
                }
            } else {
                value.append(c);
                i++;
            }
        }
        String literal = "'" + value.toString().replace("'", "''") + "'";
        if (literal.length() > i - start) {
            return i; // cannot happen: every escape is longer than what it stands for
        }
        blank(out, start, i);
        out.replace(start, start + literal.length(), literal);
        return i;
    }

    private static void blank(StringBuilder out, int from, int to) {
        for (int k = from; k < to; k++) {
            out.setCharAt(k, ' ');
        }
    }

    static int skipSpaceAt(String sql, int i) {
        return skipSpace(sql, i);
    }

    private static int skipSpace(String sql, int i) {
        while (i < sql.length() && Character.isWhitespace(sql.charAt(i))) {
            i++;
        }
        return i;
    }

    /** The end of the comment ({@code -- …} to the line's end, or {@code /* … *}{@code /}) at {@code i}; {@code i} if none. */
    static int commentEnd(String sql, int i) {
        int n = sql.length();
        if (i + 1 >= n) {
            return i;
        }
        if (sql.charAt(i) == '-' && sql.charAt(i + 1) == '-') {
            int end = i;
            while (end < n && sql.charAt(end) != '\n' && sql.charAt(end) != '\r') {
                end++;
            }
            return end;
        }
        if (sql.charAt(i) == '/' && sql.charAt(i + 1) == '*') {
            int end = sql.indexOf("*/", i + 2);
            return end < 0 ? n : end + 2;
        }
        return i;
    }

    static int skipQuoted(String sql, int i, char quote) {
        int n = sql.length();
        i++;
        while (i < n) {
            if (sql.charAt(i) == quote) {
                if (i + 1 < n && sql.charAt(i + 1) == quote) {
                    i += 2;
                    continue;
                }
                return i + 1;
            }
            i++;
        }
        return n;
    }

    static boolean isIdentifierStart(char c) {
        return Character.isLetter(c) || c == '_';
    }

    static boolean isIdentifierPart(char c) {
        return Character.isLetterOrDigit(c) || c == '_' || c == '$';
    }
}
