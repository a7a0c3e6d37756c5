package io.coilgun.sql.parser;

import java.util.Arrays;

/**
 * Postgres' parameter markers {@code $1, $2, ...} for Calcite, whose parser knows only {@code ?}: each marker is
 * replaced by {@code ?} padded with spaces to the same length (so error positions stay right), and the number of
 * each {@code ?} in order of appearance is remembered. Markers inside string literals, quoted identifiers and
 * comments are left alone; a {@code ?} the client wrote itself gets number 0 (not a parameter: the compiler
 * reports it as a syntax error).
 */
public final class ParameterMarkers {
    private static final int[] NONE = new int[0];

    private final String sql;
    private final int[] numbers;

    private ParameterMarkers(String sql, int[] numbers) {
        this.sql = sql;
        this.numbers = numbers;
    }

    /** The text Calcite parses. */
    public String sql() {
        return sql;
    }

    /** The Postgres parameter number ($n) of each {@code ?} by ordinal, 0 for a literal {@code ?}. */
    public int[] numbers() {
        return numbers;
    }

    public static ParameterMarkers rewrite(String sql) {
        if (sql.indexOf('$') < 0 && sql.indexOf('?') < 0) {
            return new ParameterMarkers(sql, NONE);
        }
        StringBuilder out = null;
        int[] numbers = new int[4];
        int count = 0;
        int n = sql.length();
        int i = 0;
        while (i < n) {
            char c = sql.charAt(i);
            if (c == '\'' || c == '"') {
                i = skipQuoted(sql, i, c, c == '\'' && i > 0 && (sql.charAt(i - 1) == 'E' || sql.charAt(i - 1) == 'e')
                        && (i < 2 || !Character.isLetterOrDigit(sql.charAt(i - 2))));
            } else if (c == '-' && i + 1 < n && sql.charAt(i + 1) == '-') {
                while (i < n && sql.charAt(i) != '\n' && sql.charAt(i) != '\r') {
                    i++;
                }
            } else if (c == '/' && i + 1 < n && sql.charAt(i + 1) == '*') {
                i = skipComment(sql, i);
            } else if (c == '$' && i + 1 < n && isDigit(sql.charAt(i + 1))
                    && (i == 0 || !isIdentifierPart(sql.charAt(i - 1)))) {
                int end = i + 1;
                long number = 0;
                while (end < n && isDigit(sql.charAt(end))) {
                    number = Math.min(Integer.MAX_VALUE, number * 10 + (sql.charAt(end) - '0'));
                    end++;
                }
                if (out == null) {
                    out = new StringBuilder(sql);
                }
                out.setCharAt(i, '?');
                for (int k = i + 1; k < end; k++) {
                    out.setCharAt(k, ' ');
                }
                numbers = add(numbers, count++, (int) number);
                i = end;
            } else if (c == '?') {
                numbers = add(numbers, count++, 0);
                i++;
            } else {
                i++;
            }
        }
        return new ParameterMarkers(out == null ? sql : out.toString(), Arrays.copyOf(numbers, count));
    }

    private static int[] add(int[] numbers, int at, int value) {
        int[] result = at < numbers.length ? numbers : Arrays.copyOf(numbers, numbers.length * 2);
        result[at] = value;
        return result;
    }

    /** Index after a quoted literal or identifier opened at {@code start} (doubled quotes, E'' backslashes). */
    private static int skipQuoted(String sql, int start, char quote, boolean backslashEscapes) {
        int i = start + 1;
        while (i < sql.length()) {
            char c = sql.charAt(i);
            if (backslashEscapes && c == '\\') {
                i += 2;
            } else if (c == quote) {
                if (i + 1 < sql.length() && sql.charAt(i + 1) == quote) {
                    i += 2;
                } else {
                    return i + 1;
                }
            } else {
                i++;
            }
        }
        return sql.length();
    }

    /** Index after a (nestable) block comment opened at {@code start}. */
    private static int skipComment(String sql, int start) {
        int depth = 0;
        int i = start;
        while (i < sql.length()) {
            if (sql.startsWith("/*", i)) {
                depth++;
                i += 2;
            } else if (sql.startsWith("*/", i)) {
                depth--;
                i += 2;
                if (depth == 0) {
                    return i;
                }
            } else {
                i++;
            }
        }
        return sql.length();
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }

    private static boolean isIdentifierPart(char c) {
        return Character.isLetterOrDigit(c) || c == '_' || c == '$';
    }
}
