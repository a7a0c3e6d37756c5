package io.coilgun.sql.query;

import io.coilgun.planner.error.CoilgunException;
import io.coilgun.planner.error.SqlState;

/**
 * Postgres' {@code format(formatstr, args...)}: {@code %s} (the value as text, NULL as nothing), {@code %I} (an
 * identifier, double-quoted when it needs to be), {@code %L} (a literal, single-quoted, NULL as {@code NULL}),
 * {@code %%}; an argument position {@code %2$s} and a width {@code %-10s} / {@code %10s} as Postgres reads them.
 */
final class PgFormat {
    private PgFormat() {
    }

    static String format(String format, Object... args) {
        if (format == null) {
            return null;
        }
        StringBuilder out = new StringBuilder();
        int next = 0;
        for (int i = 0; i < format.length(); i++) {
            char c = format.charAt(i);
            if (c != '%') {
                out.append(c);
                continue;
            }
            if (++i >= format.length()) {
                throw error("unterminated format() type specifier");
            }
            if (format.charAt(i) == '%') {
                out.append('%');
                continue;
            }
            int start = i;
            while (i < format.length() && Character.isDigit(format.charAt(i))) {
                i++;
            }
            int position = -1;
            if (i < format.length() && format.charAt(i) == '$' && i > start) {
                position = Integer.parseInt(format.substring(start, i)) - 1;
                i++;
            } else {
                i = start;
            }
            boolean left = i < format.length() && format.charAt(i) == '-';
            if (left) {
                i++;
            }
            int widthStart = i;
            while (i < format.length() && Character.isDigit(format.charAt(i))) {
                i++;
            }
            int width = i > widthStart ? Integer.parseInt(format.substring(widthStart, i)) : 0;
            if (i >= format.length()) {
                throw error("unterminated format() type specifier");
            }
            char type = format.charAt(i);
            int index = position >= 0 ? position : next;
            if (index >= args.length) {
                throw error("too few arguments for format()");
            }
            next = index + 1;
            Object arg = args[index];
            String text = switch (type) {
                case 's' -> arg == null ? "" : String.valueOf(arg);
                case 'I' -> {
                    if (arg == null) {
                        throw new CoilgunException(SqlState.NULL_VALUE_NOT_ALLOWED,
                                "null values cannot be formatted as an SQL identifier", 0);
                    }
                    yield PgFunctions.quote_ident(String.valueOf(arg));
                }
                case 'L' -> arg == null ? "NULL" : "'" + String.valueOf(arg).replace("'", "''") + "'";
                default -> throw error("unrecognized format() type specifier \"" + type + "\"");
            };
            String pad = " ".repeat(Math.max(0, width - text.length()));
            out.append(left ? text + pad : pad + text);
        }
        return out.toString();
    }

    private static CoilgunException error(String message) {
        return new CoilgunException(SqlState.INVALID_PARAMETER_VALUE, message, 0);
    }
}
