package io.coilgun.sql.parser;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.util.Locale;
import java.util.Set;

/**
 * The constant expressions Postgres takes as a LIMIT or OFFSET where Calcite's grammar takes only an unsigned
 * integer or a parameter: what pgjdbc's {@code preferQueryMode=simple} inlines for a parameter ({@code LIMIT
 * ('10'::int4)}), a string ({@code LIMIT '10'}), parentheses, a cast to a number type, {@code NULL} (no limit; an
 * offset of 0). Each is read to its integer, written in its place and padded to its length (Postgres rounds a
 * fraction: {@code LIMIT 2.5} is 3). Anything else is left for the parser to refuse.
 */
final class LimitConstants {
    private static final Set<String> INTEGER_TYPES = Set.of("int2", "int4", "int8", "smallint", "integer", "int",
            "bigint");
    private static final Set<String> NUMBER_TYPES = Set.of("numeric", "decimal", "float4", "float8", "real", "text",
            "varchar");

    private final String sql;
    private int at;

    private LimitConstants(String sql, int at) {
        this.sql = sql;
        this.at = at;
    }

    /**
     * After LIMIT or OFFSET ({@code wordEnd}, the end of the word): the expression up to its end rewritten in {@code
     * out} as its integer (or ALL), returning where it ends; {@code wordEnd} when it is not one to rewrite.
     */
    static int rewrite(String sql, int wordEnd, boolean limit, StringBuilder out) {
        int start = PgSyntax.skipSpaceAt(sql, wordEnd);
        if (start >= sql.length() || Character.isDigit(sql.charAt(start))
                && !sql.substring(start).matches("(?s)\\d+\\s*(::|\\.).*")) {
            return wordEnd; // a plain integer: Calcite's own
        }
        LimitConstants reader = new LimitConstants(sql, start);
        BigDecimal value;
        try {
            value = reader.expression();
        } catch (IllegalArgumentException | ArithmeticException e) {
            return wordEnd;
        }
        int end = reader.at;
        String text;
        if (value == null) {
            text = limit ? "ALL" : "0";
        } else {
            BigInteger n = value.setScale(0, RoundingMode.HALF_UP).toBigIntegerExact();
            if (n.signum() < 0 || n.bitLength() > 63) {
                return wordEnd;
            }
            text = n.toString();
        }
        if (text.length() > end - start) {
            return wordEnd;
        }
        for (int k = start; k < end; k++) {
            out.setCharAt(k, ' ');
        }
        out.replace(start, start + text.length(), text);
        return end;
    }

    /** {@code ( expr ) | number | 'text' | NULL}, each followed by any {@code ::type}; null for NULL. */
    private BigDecimal expression() {
        skip();
        BigDecimal value;
        boolean isNull = false;
        char c = peek();
        if (c == '(') {
            at++;
            value = expression();
            isNull = value == null;
            skip();
            expect(')');
        } else if (c == '\'') {
            int close = PgSyntax.skipQuoted(sql, at, '\'');
            String text = sql.substring(at + 1, close - 1).replace("''", "'").trim();
            at = close;
            value = new BigDecimal(text); // NumberFormatException: not a number
            if (!castsAllow(value)) {
                throw new IllegalArgumentException(text);
            }
            return value;
        } else if (Character.isDigit(c) || c == '.' || c == '-' || c == '+') {
            int from = at;
            at++;
            while (at < sql.length() && (Character.isDigit(sql.charAt(at)) || sql.charAt(at) == '.')) {
                at++;
            }
            value = new BigDecimal(sql.substring(from, at));
        } else if (sql.regionMatches(true, at, "NULL", 0, 4)
                && (at + 4 >= sql.length() || !Character.isLetterOrDigit(sql.charAt(at + 4)))) {
            at += 4;
            value = null;
            isNull = true;
        } else {
            throw new IllegalArgumentException("not a constant");
        }
        while (castFollows()) {
            String type = castType();
            if (!isNull && INTEGER_TYPES.contains(type)) {
                value = value.setScale(0, RoundingMode.HALF_UP);
            } else if (!INTEGER_TYPES.contains(type) && !NUMBER_TYPES.contains(type)) {
                throw new IllegalArgumentException(type);
            }
        }
        return value;
    }

    /**
     * After a string: its casts. A string cast to an integer type must be an integer (Postgres: 22P02 otherwise,
     * left to the parser); a string without a cast is read as the LIMIT's bigint, so an integer too.
     */
    private boolean castsAllow(BigDecimal value) {
        int save = at;
        boolean integral = true;
        while (castFollows()) {
            String type = castType();
            if (NUMBER_TYPES.contains(type)) {
                integral = false;
            } else if (!INTEGER_TYPES.contains(type)) {
                return false;
            } else if (!integral) {
                break;
            }
        }
        at = save;
        if (integral && value.stripTrailingZeros().scale() > 0) {
            return false;
        }
        while (castFollows()) {
            castType();
        }
        return true;
    }

    private boolean castFollows() {
        skip();
        return sql.startsWith("::", at);
    }

    private String castType() {
        at += 2;
        skip();
        int from = at;
        while (at < sql.length() && (Character.isLetterOrDigit(sql.charAt(at)) || sql.charAt(at) == '_'
                || sql.charAt(at) == '.')) {
            at++;
        }
        String type = sql.substring(from, at).toLowerCase(Locale.ROOT);
        return type.startsWith("pg_catalog.") ? type.substring(11) : type;
    }

    private void skip() {
        at = PgSyntax.skipSpaceAt(sql, at);
    }

    private char peek() {
        if (at >= sql.length()) {
            throw new IllegalArgumentException("end");
        }
        return sql.charAt(at);
    }

    private void expect(char c) {
        if (peek() != c) {
            throw new IllegalArgumentException("expected " + c);
        }
        at++;
    }
}
