package io.coilgun.planner.event;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;

/**
 * A NUMERIC value in bytes, as events and state keep it: {@code short scale, unsigned short length, length bytes}
 * of the unscaled value in two's complement, big-endian (BigInteger's form: the fewest bytes that hold it). The
 * value is {@code unscaled × 10^-scale}; the scale is never negative, so {@code 1.50} keeps its two digits and
 * {@code 1E+3} is written {@code 1000}. A value of up to 8 bytes is read as a long without allocating.
 */
public final class NumericBytes {
    /** The bytes before the unscaled value: scale and length. */
    public static final int HEADER = 4;
    private static final double[] POWERS_OF_TEN = new double[23];

    static {
        double p = 1;
        for (int i = 0; i < POWERS_OF_TEN.length; i++) {
            POWERS_OF_TEN[i] = p; // exact up to 10^22
            p *= 10;
        }
    }

    private NumericBytes() {
    }

    /** The unscaled bytes of {@code v}, which must have a scale of at least 0 (see {@link #normal}). */
    public static byte[] unscaled(BigDecimal v) {
        if (v.scale() < 0) {
            throw new IllegalArgumentException("a NUMERIC value with a negative scale: " + v);
        }
        byte[] b = v.unscaledValue().toByteArray();
        if (b.length > 0xffff) {
            throw new IllegalArgumentException("a NUMERIC value of more than 65,535 bytes");
        }
        return b;
    }

    /** Writes {@code v} (of a scale of at least 0) at {@code b}'s position. */
    public static void write(ByteBuffer b, BigDecimal v) {
        byte[] unscaled = unscaled(v);
        b.putShort((short) v.scale()).putShort((short) unscaled.length).put(unscaled);
    }

    /** {@code v} with a scale of at least 0 (the form events keep). */
    public static BigDecimal normal(BigDecimal v) {
        return v.scale() < 0 ? v.setScale(0) : v;
    }

    /** How many bytes the value at {@code at} takes, header included. */
    public static int size(byte[] b, int at) {
        return HEADER + length(b, at);
    }

    public static int scale(byte[] b, int at) {
        return (short) (((b[at] & 0xff) << 8) | (b[at + 1] & 0xff));
    }

    private static int length(byte[] b, int at) {
        return ((b[at + 2] & 0xff) << 8) | (b[at + 3] & 0xff);
    }

    /** Whether the unscaled value at {@code at} fits in a long ({@link #unscaledLong}). */
    public static boolean fitsLong(byte[] b, int at) {
        return length(b, at) <= 8;
    }

    /** The unscaled value at {@code at}, which {@link #fitsLong fits in a long}. */
    public static long unscaledLong(byte[] b, int at) {
        int n = length(b, at);
        int p = at + HEADER;
        long v = n == 0 ? 0 : b[p]; // sign-extended
        for (int i = 1; i < n; i++) {
            v = (v << 8) | (b[p + i] & 0xff);
        }
        return v;
    }

    public static BigDecimal read(byte[] b, int at) {
        int n = length(b, at);
        int scale = scale(b, at);
        if (n <= 8) {
            return BigDecimal.valueOf(unscaledLong(b, at), scale);
        }
        return new BigDecimal(new BigInteger(b, at + HEADER, n), scale);
    }

    /** {@code unscaled × 10^-scale}, correctly rounded to a double. */
    public static double doubleValue(long unscaled, int scale) {
        if (scale < POWERS_OF_TEN.length && Math.abs(unscaled) < (1L << 53)) {
            return unscaled / POWERS_OF_TEN[scale]; // both exact: one rounding
        }
        return BigDecimal.valueOf(unscaled, scale).doubleValue();
    }
}
