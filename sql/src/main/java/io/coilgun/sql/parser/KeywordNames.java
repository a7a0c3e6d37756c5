package io.coilgun.sql.parser;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The words Postgres takes as names but Calcite's grammar needs as keywords ({@code time}, {@code timestamp},
 * {@code values}, {@code rows}, …: see {@link #WORDS}) are quoted where they can only be names, so that a stream may
 * have a column {@code time} and {@code SELECT time FROM s} works as in Postgres. The text grows by the two quotes of
 * each; {@link PgSyntax.Rewritten} maps positions back.
 *
 * <p>A word is a name when:
 * <ul>
 *   <li>it follows {@code .} ({@code s.time}) or a word that names a relation next ({@code FROM}, {@code INTO},
 *       {@code JOIN}, {@code STREAM}, …);</li>
 *   <li>it stands alone in an expression: after a word or sign that starts one ({@code SELECT}, {@code WHERE},
 *       {@code ,}, {@code (}, {@code =}, …) and before one that ends one ({@code ,}, {@code )}, {@code FROM},
 *       {@code AND}, {@code =}, the end, …). As a keyword each of these words is followed by something else (a
 *       literal, {@code (}, {@code BY}, {@code ZONE}, …) or comes after a word (CURRENT ROW, IS UNKNOWN, FETCH
 *       NEXT, {@code ::time});</li>
 *   <li>it opens a column definition of a CREATE statement ({@code (time TIMESTAMP, …}).</li>
 * </ul>
 * Anywhere else it stays a keyword; quoting it ({@code "time"}) always makes it a name.
 */
final class KeywordNames {
    private KeywordNames() {
    }

    /** The words PostgreSQL 15 does not reserve that Calcite's grammar cannot give up (PostgresKeywordsTest). */
    static final Set<String> WORDS = Set.of("CALL", "CURRENT", "CURSOR", "DELETE", "DROP", "ESCAPE", "EXISTS",
            "EXPLAIN", "GROUPING", "INSERT", "INTERVAL", "MATCH", "MERGE", "NEW", "NEXT", "OVER", "PARTITION", "RANGE",
            "ROLLUP", "ROW", "ROWS", "SET", "SKIP", "TIME", "TIMESTAMP", "UNKNOWN", "UPDATE", "VALUES");

    /** After these a relation's name follows. */
    private static final Set<String> RELATION_BEFORE = Set.of("INTO", "TABLE", "STREAM", "METRIC", "JOIN", "COPY",
            "TRUNCATE");
    /** After these (and the signs in {@link #EXPRESSION_SIGNS}) an expression starts. */
    private static final Set<String> EXPRESSION_BEFORE = Set.of("SELECT", "DISTINCT", "WHERE", "AND", "OR", "NOT",
            "BY", "ON", "HAVING", "WHEN", "THEN", "ELSE", "CASE", "RETURNING", "IN", "LIKE", "ILIKE", "BETWEEN");
    private static final String EXPRESSION_SIGNS = ",(=<>!+-*/%|[";
    /** Before these (and the signs in {@link #END_SIGNS}, or the end) an expression ends. */
    private static final Set<String> EXPRESSION_AFTER = Set.of("FROM", "AS", "AND", "OR", "IS", "IN", "NOT", "LIKE",
            "ILIKE", "SIMILAR", "BETWEEN", "ASC", "DESC", "NULLS", "WHERE", "GROUP", "ORDER", "HAVING", "LIMIT",
            "OFFSET", "UNION", "EXCEPT", "INTERSECT", "WINDOW", "THEN", "ELSE", "END", "WHEN", "FETCH", "OVER", "ROWS",
            "RANGE");
    private static final String END_SIGNS = ",);=<>!+-*/%|:.[";
    /** Types a column definition may name: the word before one opens the definition. */
    private static final Set<String> TYPES = Set.of("BIGINT", "INT", "INTEGER", "SMALLINT", "INT2", "INT4", "INT8",
            "TEXT", "VARCHAR", "CHARACTER", "CHAR", "DOUBLE", "FLOAT", "FLOAT4", "FLOAT8", "REAL", "NUMERIC", "DECIMAL",
            "BOOLEAN", "BOOL", "TIMESTAMP", "TIMESTAMPTZ", "DATE", "TIME", "INTERVAL", "BYTEA", "UUID", "JSON", "JSONB");

    /** A token of the text: a word (upper-cased in {@code text}), a sign, a literal or a quoted name. */
    private record Token(char kind, int start, int end, String text) {
        static final char WORD = 'w';
        static final char SIGN = 's';
        static final char OTHER = 'o';

        boolean is(String word) {
            return kind == WORD && text.equals(word);
        }

        boolean isSign(String signs) {
            return kind == SIGN && signs.indexOf(text.charAt(0)) >= 0;
        }
    }

    /** {@code sql} with the words that stand for names quoted, and the char indices (in it) of the quotes added. */
    static PgSyntax.Rewritten quote(String sql) {
        List<Token> tokens = tokens(sql);
        StringBuilder out = null;
        List<Integer> inserted = new ArrayList<>();
        int copied = 0;
        String first = null;
        for (int t = 0; t < tokens.size(); t++) {
            Token token = tokens.get(t);
            Token prev = t > 0 ? tokens.get(t - 1) : null;
            if (prev == null || prev.isSign(";")) {
                first = token.text();
            }
            Token next = t + 1 < tokens.size() ? tokens.get(t + 1) : null;
            if (token.kind() != Token.WORD || !(WORDS.contains(token.text()) && isName(token, prev, next, first)
                    || isAttribute(token, t > 1 ? tokens.get(t - 2) : null, prev, next)
                    || isBareLabel(token, prev, next))) {
                continue;
            }
            if (out == null) {
                out = new StringBuilder(sql.length() + 16);
            }
            out.append(sql, copied, token.start());
            inserted.add(out.length());
            out.append('"').append(token.text().toLowerCase(Locale.ROOT));
            inserted.add(out.length());
            out.append('"');
            copied = token.end();
        }
        if (out == null) {
            return new PgSyntax.Rewritten(sql, new int[0]);
        }
        out.append(sql, copied, sql.length());
        return new PgSyntax.Rewritten(out.toString(), inserted.stream().mapToInt(Integer::intValue).toArray());
    }

    /**
     * A word Calcite reserves after a qualifier's dot, where Postgres takes any word as a column's name
     * ({@code t.user}, {@code t.order}), unless it names a function ({@code pg_catalog.substring(…)}) or a type of
     * Postgres' catalog ({@code ::pg_catalog.varchar}).
     */
    private static boolean isAttribute(Token word, Token qualifier, Token prev, Token next) {
        return prev != null && prev.isSign(".") && (next == null || !next.isSign("("))
                && (qualifier == null || !qualifier.is("PG_CATALOG")) && ReservedWords.isReserved(word.text());
    }

    /**
     * The reserved words Postgres 15 takes as a column label without AS ({@code SELECT 1 select}: its keywords marked
     * BARE_LABEL), less those that may end an expression themselves (END, NULL, TRUE, ASC, …).
     */
    private static final Set<String> BARE_LABELS = Set.of("ANALYSE", "ANALYZE", "AND", "ANY", "ASYMMETRIC",
            "BOTH", "CASE", "CAST", "CHECK", "COLLATE", "COLUMN", "CONSTRAINT", "DEFAULT", "DEFERRABLE", "DISTINCT",
            "DO", "ELSE", "FOREIGN", "IN", "INITIALLY", "LATERAL", "LEADING", "NOT", "OR", "PLACING", "PRIMARY",
            "REFERENCES", "SELECT", "SOME", "SYMMETRIC", "TABLE", "THEN", "TRAILING", "UNIQUE", "USING", "VARIADIC",
            "WHEN");
    /** Words that start the clause after a select list. */
    private static final Set<String> CLAUSE_AFTER_ITEM = Set.of("FROM", "WHERE", "GROUP", "HAVING", "ORDER", "LIMIT",
            "OFFSET", "UNION", "EXCEPT", "INTERSECT", "WINDOW", "FETCH", "INTO");

    /**
     * A reserved word as a select item's label without AS ({@code SELECT 1 select, x table FROM t}), as Postgres takes
     * it: right after an expression's end (a literal, a name, {@code )}) and at the item's end.
     */
    private static boolean isBareLabel(Token word, Token prev, Token next) {
        if (!BARE_LABELS.contains(word.text()) || !ReservedWords.isReserved(word.text()) || prev == null) {
            return false;
        }
        boolean afterExpression = prev.kind() == Token.OTHER || prev.isSign(")")
                || prev.kind() == Token.WORD && !ReservedWords.isReserved(prev.text()) && !WORDS.contains(prev.text());
        boolean itemEnds = next == null || next.isSign(",);")
                || next.kind() == Token.WORD && CLAUSE_AFTER_ITEM.contains(next.text());
        return afterExpression && itemEnds;
    }

    private static boolean isName(Token word, Token prev, Token next, String first) {
        if (prev == null || prev.isSign(";")) {
            return false; // a statement: SET …, DELETE …, VALUES …, EXPLAIN …
        }
        if (prev.isSign(".")) {
            return true;
        }
        // a relation's name is followed by a word, a sign or nothing; not by a literal (FROM TIMESTAMP '…') nor,
        // after FROM, by "(" (a function in FROM)
        boolean literalNext = next != null && next.kind() == Token.OTHER;
        if (prev.kind() == Token.WORD && RELATION_BEFORE.contains(prev.text()) && !literalNext
                || prev.is("FROM") && !literalNext && (next == null || !next.isSign("("))) {
            return true;
        }
        if (prev.isSign("(,") && next != null && next.kind() == Token.WORD && TYPES.contains(next.text())
                && "CREATE".equals(first)) {
            return true;
        }
        boolean startsExpression = prev.kind() == Token.WORD ? EXPRESSION_BEFORE.contains(prev.text())
                : prev.isSign(EXPRESSION_SIGNS) && !prev.text().equals("::");
        boolean endsExpression = next == null || next.kind() == Token.WORD && EXPRESSION_AFTER.contains(next.text())
                || next.isSign(END_SIGNS);
        if (!startsExpression || !endsExpression) {
            return false;
        }
        String w = word.text();
        if ((w.equals("ROWS") || w.equals("RANGE")) && next != null && next.is("BETWEEN") && prev.isSign("(")) {
            return false; // a window frame: OVER (ROWS BETWEEN …)
        }
        if (w.equals("INTERVAL") && next != null && next.isSign("+-")) {
            return false; // a signed literal: INTERVAL -'5' MINUTE
        }
        return !(w.equals("UNKNOWN") && prev.is("NOT")); // x IS NOT UNKNOWN
    }

    private static List<Token> tokens(String sql) {
        List<Token> tokens = new ArrayList<>();
        int n = sql.length();
        int i = 0;
        while (i < n) {
            char c = sql.charAt(i);
            int start = i;
            if (Character.isWhitespace(c)) {
                i++;
            } else if (PgSyntax.commentEnd(sql, i) > i) {
                i = PgSyntax.commentEnd(sql, i);
            } else if (c == '\'' || c == '"') {
                i = PgSyntax.skipQuoted(sql, i, c);
                tokens.add(new Token(Token.OTHER, start, i, ""));
            } else if (PgSyntax.isIdentifierStart(c)) {
                while (i < n && PgSyntax.isIdentifierPart(sql.charAt(i))) {
                    i++;
                }
                tokens.add(new Token(Token.WORD, start, i, sql.substring(start, i).toUpperCase(Locale.ROOT)));
            } else if (Character.isDigit(c) || c == '$') {
                i++;
                while (i < n && (Character.isLetterOrDigit(sql.charAt(i)) || sql.charAt(i) == '.')) {
                    i++;
                }
                tokens.add(new Token(Token.OTHER, start, i, ""));
            } else if (c == ':' && i + 1 < n && sql.charAt(i + 1) == ':') {
                i += 2;
                tokens.add(new Token(Token.SIGN, start, i, "::"));
            } else {
                i++;
                tokens.add(new Token(Token.SIGN, start, i, String.valueOf(c)));
            }
        }
        return tokens;
    }
}
