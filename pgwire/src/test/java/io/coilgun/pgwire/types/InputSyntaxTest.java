package io.coilgun.pgwire.types;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** C's isspace() white space, which Postgres' input functions skip, and their syntax error. */
class InputSyntaxTest {
    @Test
    void trimsWhatIsspaceCallsWhiteSpaceOnly() {
        assertEquals("1 2", InputSyntax.trim(" \t\n\r\u000B\f1 2\f "));
        assertEquals("\u00A01\u0001", InputSyntax.trim("\u00A01\u0001")); // no-break space and controls stay
        assertEquals("", InputSyntax.trim(" \t "));
    }

    @Test
    void syntaxErrorQuotesTheText() {
        PgInputException e = InputSyntax.syntax("22P02", "integer", " abc");
        assertEquals("22P02", e.sqlState());
        assertEquals("invalid input syntax for type integer: \" abc\"", e.getMessage());
    }
}
