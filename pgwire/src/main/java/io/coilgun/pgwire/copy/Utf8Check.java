package io.coilgun.pgwire.copy;

/**
 * UTF-8 checked as Postgres checks it ({@code pg_utf_mblen}, {@code pg_utf8_islegal}, {@code pg_utf8_verifystr},
 * {@code report_invalid_encoding}): what COPY FROM accepts, and how it names the bytes it refuses.
 */
final class Utf8Check {

    private Utf8Check() {
    }

    /** Postgres' pg_utf_mblen: the length a UTF-8 character's first byte announces (1 for a stray byte). */
    static int length(int first) {
        if (first < 0x80) {
            return 1;
        }
        if ((first & 0xe0) == 0xc0) {
            return 2;
        }
        if ((first & 0xf0) == 0xe0) {
            return 3;
        }
        if ((first & 0xf8) == 0xf0) {
            return 4;
        }
        return 1;
    }

    /** Postgres' pg_utf8_islegal for a character of {@code length} bytes (no NUL check). */
    static boolean isLegal(byte[] s, int offset, int length) {
        int first = s[offset] & 0xff;
        if (length >= 2) {
            for (int i = 2; i < length; i++) {
                int b = s[offset + i] & 0xff;
                if (b < 0x80 || b > 0xbf) {
                    return false;
                }
            }
            int second = s[offset + 1] & 0xff;
            int low = 0x80;
            int high = 0xbf;
            switch (first) {
                case 0xe0 -> low = 0xa0;
                case 0xed -> high = 0x9f;
                case 0xf0 -> low = 0x90;
                case 0xf4 -> high = 0x8f;
                default -> {
                }
            }
            if (second < low || second > high) {
                return false;
            }
        }
        return !(first >= 0x80 && first < 0xc2) && first <= 0xf4;
    }

    /** Postgres' pg_utf8_verifystr: how many leading bytes are valid UTF-8 without NUL. */
    static int validPrefix(byte[] s, int offset, int length) {
        int i = offset;
        int end = offset + length;
        while (i < end) {
            int b = s[i] & 0xff;
            if (b < 0x80) {
                if (b == 0) {
                    break;
                }
                i++;
                continue;
            }
            int l = length(b);
            if (l > end - i || !isLegal(s, i, l)) {
                break;
            }
            i += l;
        }
        return i - offset;
    }

    /**
     * Postgres' report_invalid_encoding message for the bad character at {@code offset}: its bytes in hex, as many
     * as its first byte announces and {@code available} allows, e.g. {@code invalid byte sequence for encoding
     * "UTF8": 0xe2 0x28}.
     */
    static String invalidSequenceMessage(byte[] bytes, int offset, int available) {
        int shown = Math.min(length(bytes[offset] & 0xff), available);
        StringBuilder message = new StringBuilder("invalid byte sequence for encoding \"UTF8\": ");
        for (int i = 0; i < shown; i++) {
            if (i > 0) {
                message.append(' ');
            }
            message.append(String.format("0x%02x", bytes[offset + i] & 0xff));
        }
        return message.toString();
    }
}
