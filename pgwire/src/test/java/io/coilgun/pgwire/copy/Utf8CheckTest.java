package io.coilgun.pgwire.copy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** UTF-8 as Postgres checks it: lengths by first byte, the legal ranges, the valid prefix, the error message. */
class Utf8CheckTest {
    private static byte[] bytes(int... values) {
        byte[] bytes = new byte[values.length];
        for (int i = 0; i < values.length; i++) {
            bytes[i] = (byte) values[i];
        }
        return bytes;
    }

    @Test
    void lengthFromTheFirstByte() {
        assertEquals(1, Utf8Check.length('a'));
        assertEquals(2, Utf8Check.length(0xc3));
        assertEquals(3, Utf8Check.length(0xe2));
        assertEquals(4, Utf8Check.length(0xf0));
        assertEquals(1, Utf8Check.length(0x80)); // a continuation byte alone
        assertEquals(1, Utf8Check.length(0xf8));
    }

    @Test
    void legalCharactersAndTheOnesPostgresRefuses() {
        assertTrue(Utf8Check.isLegal(bytes(0xc3, 0xa9), 0, 2)); // é
        assertTrue(Utf8Check.isLegal(bytes(0xe2, 0x82, 0xac), 0, 3)); // €
        assertTrue(Utf8Check.isLegal(bytes(0xf0, 0x9f, 0x98, 0x80), 0, 4)); // an emoji
        assertFalse(Utf8Check.isLegal(bytes(0xc0, 0x80), 0, 2)); // overlong NUL
        assertFalse(Utf8Check.isLegal(bytes(0xe0, 0x80, 0x80), 0, 3)); // overlong
        assertFalse(Utf8Check.isLegal(bytes(0xed, 0xa0, 0x80), 0, 3)); // a surrogate
        assertFalse(Utf8Check.isLegal(bytes(0xf4, 0x90, 0x80, 0x80), 0, 4)); // past U+10FFFF
        assertFalse(Utf8Check.isLegal(bytes(0xe2, 0x28, 0xa1), 0, 3)); // not a continuation byte
    }

    @Test
    void validPrefixStopsAtTheFirstBadCharacterOrNul() {
        byte[] good = "añb€".getBytes(StandardCharsets.UTF_8);
        assertEquals(good.length, Utf8Check.validPrefix(good, 0, good.length));
        assertEquals(1, Utf8Check.validPrefix(bytes('a', 0, 'b'), 0, 3));
        assertEquals(2, Utf8Check.validPrefix(bytes('a', 'b', 0xe2, 0x82), 0, 4)); // cut short
        assertEquals(1, Utf8Check.validPrefix(bytes('x', 'a', 0xff), 1, 2));
    }

    @Test
    void invalidSequenceMessageShowsTheCharactersBytes() {
        assertEquals("invalid byte sequence for encoding \"UTF8\": 0xe2 0x28 0xa1",
                Utf8Check.invalidSequenceMessage(bytes('a', 0xe2, 0x28, 0xa1, 'b'), 1, 4));
        assertEquals("invalid byte sequence for encoding \"UTF8\": 0xe2 0x82",
                Utf8Check.invalidSequenceMessage(bytes(0xe2, 0x82), 0, 2)); // as many as there are
        assertEquals("invalid byte sequence for encoding \"UTF8\": 0x00", Utf8Check.invalidSequenceMessage(bytes(0), 0, 1));
    }
}
