package io.coilgun.sql.query;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Clients' catalog queries that Coilgun's SQL cannot run (array operators, composite field access, bit operators,
 * set-returning functions …) but whose answer is known to be empty: they read, in their first FROM or in an inner
 * JOIN, a catalog relation Coilgun never has rows in (indexes, constraints, policies, statistics objects,
 * publications, inheritance, triggers, rules). psql's {@code \d table} and pgjdbc's {@code getPrimaryKeys} and
 * {@code getIndexInfo} send such queries. They get no rows, with the column names of their select list (as text).
 * Anything else that fails keeps its error.
 */
public final class EmptyCatalogQuery {
    private static final Set<String> ALWAYS_EMPTY = Set.of("pg_index", "pg_constraint", "pg_policy",
            "pg_statistic_ext", "pg_publication", "pg_publication_rel", "pg_publication_namespace", "pg_inherits",
            "pg_trigger", "pg_rewrite", "pg_attrdef", "pg_description", "pg_proc");
    private static final Pattern FIRST_FROM = Pattern.compile(
            "(?is)\\bFROM\\s+(?:pg_catalog\\s*\\.\\s*)?([a-z_]+)");
    private static final Pattern INNER_JOIN = Pattern.compile(
            "(?is)(\\b(?:LEFT|RIGHT|FULL)(?:\\s+OUTER)?\\s+)?\\bJOIN\\s+(?:pg_catalog\\s*\\.\\s*)?([a-z_]+)");

    private EmptyCatalogQuery() {
    }

    /** Whether {@code sql} is such a query. */
    public static boolean matches(String sql) {
        String text = withoutLiterals(sql);
        String first = firstRelation(text);
        if (first != null && ALWAYS_EMPTY.contains(first)) {
            return true;
        }
        Matcher join = INNER_JOIN.matcher(text);
        while (join.find()) {
            if (join.group(1) == null && ALWAYS_EMPTY.contains(join.group(2).toLowerCase(Locale.ROOT))) {
                return true;
            }
        }
        return false;
    }

    /**
     * The first relation of the outermost FROM (looking into a derived table: {@code FROM (SELECT … FROM x)} gives
     * x), lower case, or null.
     */
    private static String firstRelation(String text) {
        int depth = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '(') {
                depth++;
            } else if (c == ')') {
                depth--;
            } else if (depth == 0 && startsWithWord(text, i, "FROM")) {
                int at = i + 4;
                while (at < text.length() && Character.isWhitespace(text.charAt(at))) {
                    at++;
                }
                if (at < text.length() && text.charAt(at) == '(') {
                    int close = matching(text, at);
                    return close < 0 ? null : firstRelation(text.substring(at + 1, close));
                }
                Matcher m = FIRST_FROM.matcher(text);
                return m.find(i) ? m.group(1).toLowerCase(Locale.ROOT) : null;
            }
        }
        return null;
    }

    private static int matching(String text, int open) {
        int depth = 0;
        for (int i = open; i < text.length(); i++) {
            if (text.charAt(i) == '(') {
                depth++;
            } else if (text.charAt(i) == ')' && --depth == 0) {
                return i;
            }
        }
        return -1;
    }

    /** The empty answer when {@link #matches}, else null. */
    static QueryEngine.Rows answer(String sql) {
        if (!matches(sql)) {
            return null;
        }
        List<String> names = columnNames(sql);
        return new QueryEngine.Rows(names, Collections.nCopies(names.size(), PgTypes.TEXT), List.of());
    }

    /** The names of the outermost select list's items: their alias, or the last part of a column reference. */
    public static List<String> columnNames(String sql) {
        String text = withoutLiterals(sql);
        int start = indexOfWord(text, "SELECT", 0);
        List<String> names = new ArrayList<>();
        if (start < 0) {
            return names;
        }
        int depth = 0;
        int itemStart = start + 6;
        for (int i = itemStart; i <= text.length(); i++) {
            char c = i < text.length() ? text.charAt(i) : ',';
            if (c == '(') {
                depth++;
            } else if (c == ')') {
                depth--;
            } else if (depth == 0 && (c == ',' || i == text.length() || startsWithWord(text, i, "FROM"))) {
                names.add(itemName(sql.substring(itemStart, i).trim()));
                itemStart = i + 1;
                if (c != ',') {
                    break;
                }
            }
        }
        return names;
    }

    private static String itemName(String item) {
        Matcher alias = Pattern.compile("(?is).*\\bAS\\s+(\"(?:[^\"]|\"\")*\"|[a-z_][a-z0-9_]*)\\s*$").matcher(item);
        if (alias.matches()) {
            String a = alias.group(1);
            return a.startsWith("\"") ? a.substring(1, a.length() - 1).replace("\"\"", "\"") : a.toLowerCase(Locale.ROOT);
        }
        Matcher column = Pattern.compile("(?is)(?:[a-z_][a-z0-9_]*\\s*\\.\\s*)*([a-z_][a-z0-9_]*)").matcher(item);
        return column.matches() ? column.group(1).toLowerCase(Locale.ROOT) : "?column?";
    }

    private static int indexOfWord(String text, String word, int from) {
        for (int i = from; i + word.length() <= text.length(); i++) {
            if (startsWithWord(text, i, word)) {
                return i;
            }
        }
        return -1;
    }

    private static boolean startsWithWord(String text, int i, String word) {
        return text.regionMatches(true, i, word, 0, word.length())
                && (i == 0 || !Character.isLetterOrDigit(text.charAt(i - 1)) && text.charAt(i - 1) != '_')
                && (i + word.length() >= text.length() || !Character.isLetterOrDigit(text.charAt(i + word.length()))
                        && text.charAt(i + word.length()) != '_');
    }

    /** The text with string literals' contents blanked (same length), so that words inside them do not count. */
    private static String withoutLiterals(String sql) {
        StringBuilder b = new StringBuilder(sql);
        boolean in = false;
        for (int i = 0; i < b.length(); i++) {
            char c = b.charAt(i);
            if (c == '\'') {
                in = !in;
            } else if (in) {
                b.setCharAt(i, ' ');
            }
        }
        return b.toString();
    }
}
