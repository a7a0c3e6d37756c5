package io.coilgun.pgwire.types;

/** What Postgres' input functions share: the white space they skip and their syntax error. */
final class InputSyntax {

    private InputSyntax() {
    }

    /** {@code invalid input syntax for type <typeName>: "<text>"} with {@code sqlState}. */
    static PgInputException syntax(String sqlState, String typeName, String text) {
        return new PgInputException(sqlState, "invalid input syntax for type " + typeName + ": \"" + text + "\"");
    }

    /** Strips what C's isspace() calls white space (Postgres' input functions do), not all controls. */
    static String trim(String text) {
        int start = 0;
        int end = text.length();
        while (start < end && isSpace(text.charAt(start))) {
            start++;
        }
        while (end > start && isSpace(text.charAt(end - 1))) {
            end--;
        }
        return text.substring(start, end);
    }

    /** C's isspace(): space, tab, newline, carriage return, vertical tab, form feed. */
    static boolean isSpace(char c) {
        return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\u000B' || c == '\f';
    }
}
