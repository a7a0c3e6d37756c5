package io.coilgun.pgwire.copy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** COPY errors with Postgres' CONTEXT: without the line while reading it, with it (cut at 100 bytes) after. */
class CopyErrorsTest {
    private final CopyErrors errors = new CopyErrors("payments");

    @Test
    void errorWhileReadingHasNoLineText() {
        CopyFormatException e = errors.reading(3, "22P04", "literal newline found in data", "a hint");
        assertEquals("22P04", e.sqlState());
        assertEquals("literal newline found in data", e.getMessage());
        assertEquals("a hint", e.hint());
        assertEquals(3, e.lineNumber());
        assertEquals("COPY payments, line 3", e.context());
    }

    @Test
    void errorInAReadLineShowsIt() {
        byte[] line = "1\tx\tmore".getBytes(StandardCharsets.UTF_8);
        CopyFormatException e = errors.inLine(2, line, 3, "22P04", "extra data after last expected column");
        assertEquals("COPY payments, line 2: \"1\tx\"", e.context());
        assertNull(e.hint());
    }

    @Test
    void longLinesAreCutAtWholeCharacters() {
        String text = "a".repeat(99) + "é" + "tail"; // é takes bytes 100 and 101: it is left out
        byte[] line = text.getBytes(StandardCharsets.UTF_8);
        assertEquals("COPY t, line 1: \"" + "a".repeat(99) + "...\"",
                new CopyErrors("t").lineContext(1, line, line.length));
        byte[] exact = "b".repeat(100).getBytes(StandardCharsets.UTF_8);
        assertEquals("COPY t, line 1: \"" + "b".repeat(100) + "\"", new CopyErrors("t").lineContext(1, exact, 100));
    }

    @Test
    void invalidEncodingIsCharacterNotInRepertoire() {
        CopyFormatException reading = errors.invalidEncoding(4, new byte[] {(byte) 0xff}, 0, 1, null);
        assertEquals("22021", reading.sqlState());
        assertEquals("invalid byte sequence for encoding \"UTF8\": 0xff", reading.getMessage());
        assertEquals("COPY payments, line 4", reading.context());
        CopyFormatException inLine = errors.invalidEncoding(4, new byte[] {(byte) 0xff}, 0, 1, "the context");
        assertEquals("the context", inLine.context());
    }
}
