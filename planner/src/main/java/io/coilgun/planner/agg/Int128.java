package io.coilgun.planner.agg;

import java.math.BigInteger;
import java.nio.ByteBuffer;

/**
 * A signed 128-bit integer kept in a state buffer as two longs (high, then low, two's complement), with the
 * arithmetic a decimal sum needs: adding a 128-bit term and multiplying by a power of ten, each reporting overflow
 * instead of wrapping.
 */
final class Int128 {
    static final int BYTES = 16;
    /** 10^0 .. 10^18: the powers of ten a long holds. */
    static final long[] POWERS_OF_TEN = new long[19];
    private static final BigInteger MIN = BigInteger.ONE.shiftLeft(127).negate();
    private static final BigInteger MAX = BigInteger.ONE.shiftLeft(127).subtract(BigInteger.ONE);

    static {
        long p = 1;
        for (int i = 0; i < POWERS_OF_TEN.length; i++) {
            POWERS_OF_TEN[i] = p;
            p *= 10;
        }
    }

    private Int128() {
    }

    /** Adds {@code (hi, lo)} to the value at {@code at}; false (the value unchanged) when the sum leaves 128 bits. */
    static boolean add(ByteBuffer b, int at, long hi, long lo) {
        long h = b.getLong(at);
        long l = b.getLong(at + 8);
        long sumLo = l + lo;
        long carry = Long.compareUnsigned(sumLo, l) < 0 ? 1 : 0;
        long t = h + hi;
        boolean wrapped = ((h ^ t) & (hi ^ t)) < 0;
        long sumHi = t + carry;
        if (wrapped != (((t ^ sumHi) & (carry ^ sumHi)) < 0)) {
            return false;
        }
        b.putLong(at, sumHi);
        b.putLong(at + 8, sumLo);
        return true;
    }

    /** Subtracts {@code (hi, lo)}; see {@link #add}. */
    static boolean subtract(ByteBuffer b, int at, long hi, long lo) {
        // -(hi, lo) = (~hi, ~lo) + 1
        long nlo = -lo;
        long nhi = ~hi + (lo == 0 ? 1 : 0);
        if (hi == Long.MIN_VALUE && lo == 0) {
            return false; // -2^127 has no negation
        }
        return add(b, at, nhi, nlo);
    }

    /** Multiplies the value at {@code at} by 10^k; false (unchanged) when the product leaves 128 bits. */
    static boolean multiplyByPowerOfTen(ByteBuffer b, int at, int k) {
        long h = b.getLong(at);
        long l = b.getLong(at + 8);
        while (k > 0) {
            int step = Math.min(k, 18);
            long m = POWERS_OF_TEN[step];
            // (h * 2^64 + l) * m, l unsigned: l * m = (carry, low) unsigned
            long low = l * m;
            long carry = Math.multiplyHigh(l, m) + ((l >> 63) & m);
            try {
                h = Math.addExact(Math.multiplyExact(h, m), carry);
            } catch (ArithmeticException e) {
                return false;
            }
            l = low;
            k -= step;
        }
        b.putLong(at, h);
        b.putLong(at + 8, l);
        return true;
    }

    static BigInteger get(ByteBuffer b, int at) {
        long h = b.getLong(at);
        long l = b.getLong(at + 8);
        if (h == l >> 63) {
            return BigInteger.valueOf(l);
        }
        return BigInteger.valueOf(h).shiftLeft(64).add(new BigInteger(Long.toUnsignedString(l)));
    }

    /** Writes {@code v} at {@code at}; false (unchanged) when it does not fit in 128 bits. */
    static boolean set(ByteBuffer b, int at, BigInteger v) {
        if (v.compareTo(MIN) < 0 || v.compareTo(MAX) > 0) {
            return false;
        }
        b.putLong(at, v.shiftRight(64).longValue());
        b.putLong(at + 8, v.longValue());
        return true;
    }

    /** {@code v} as (high, low) in {@code out}; false when it does not fit in 128 bits. */
    static boolean split(BigInteger v, long[] out) {
        if (v.compareTo(MIN) < 0 || v.compareTo(MAX) > 0) {
            return false;
        }
        out[0] = v.shiftRight(64).longValue();
        out[1] = v.longValue();
        return true;
    }
}
