package io.coilgun.pgwire.types;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A growable byte array that Postgres text values are written into as UTF-8, with no String in between for the
 * common types (see {@code PgTextEncoder.encode(type, value, out)}). Not thread-safe.
 */
public final class TextBuffer {
    private byte[] bytes;
    private int length;

    public TextBuffer(int capacity) {
        this.bytes = new byte[Math.max(16, capacity)];
    }

    /** The array written so far (valid up to {@link #length()}); it may be replaced as the buffer grows. */
    public byte[] array() {
        return bytes;
    }

    public int length() {
        return length;
    }

    /** Forgets everything written after {@code length} bytes. */
    public void truncate(int length) {
        if (length < 0 || length > this.length) {
            throw new IndexOutOfBoundsException(length);
        }
        this.length = length;
    }

    /** Room for {@code n} more bytes. */
    public void ensure(int n) {
        if (length + n > bytes.length) {
            bytes = Arrays.copyOf(bytes, Math.max(length + n, bytes.length * 2));
        }
    }

    public TextBuffer put(byte b) {
        ensure(1);
        bytes[length++] = b;
        return this;
    }

    /** Four bytes, big-endian, at {@code at} (already written): a message length patched in afterwards. */
    public void putIntAt(int at, int value) {
        bytes[at] = (byte) (value >>> 24);
        bytes[at + 1] = (byte) (value >>> 16);
        bytes[at + 2] = (byte) (value >>> 8);
        bytes[at + 3] = (byte) value;
    }

    public TextBuffer put(byte[] b) {
        ensure(b.length);
        System.arraycopy(b, 0, bytes, length, b.length);
        length += b.length;
        return this;
    }

    /** {@code s} as UTF-8: byte per char while it is ASCII (the usual case), the JDK's encoder otherwise. */
    public TextBuffer utf8(CharSequence s) {
        int n = s.length();
        ensure(n);
        int start = length;
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (c >= 0x80) {
                length = start;
                return put(s.toString().getBytes(StandardCharsets.UTF_8));
            }
            bytes[start + i] = (byte) c;
        }
        length = start + n;
        return this;
    }

    /** The decimal digits of {@code v}, as {@link Long#toString(long)} gives them. */
    public TextBuffer decimal(long v) {
        if (v == Long.MIN_VALUE) {
            return utf8("-9223372036854775808");
        }
        ensure(20);
        if (v < 0) {
            bytes[length++] = '-';
            v = -v;
        }
        int digits = 1;
        for (long t = v; t >= 10; t /= 10) {
            digits++;
        }
        int at = length + digits;
        length = at;
        do {
            bytes[--at] = (byte) ('0' + (int) (v % 10));
            v /= 10;
        } while (v != 0);
        return this;
    }

    /** The bytes from {@code from} to the end, read back as UTF-8. */
    public String string(int from) {
        return new String(bytes, from, length - from, StandardCharsets.UTF_8);
    }
}
