package io.coilgun.pgwire.types;

import io.coilgun.pgwire.spi.SqlStates;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * The binary format of numeric, as Postgres' {@code numeric_send}/{@code numeric_recv} lay it out, for
 * {@link PgBinaryCodec}.
 *
 * <p>Postgres' own layout: int16 count of base-10000 digits, int16 weight (the power of 10000 of
 * the first digit), uint16 sign ({@code 0x0000} +, {@code 0x4000} −, {@code 0xC000} NaN, {@code 0xD000}
 * +Infinity, {@code 0xF000} −Infinity), uint16 display scale (decimal digits after the point), then the
 * digits, most significant first, without leading or trailing zero digits. 12345.678 is {@code 3, 1, 0, 3,
 * [1, 2345, 6780]}.
 */
final class PgNumericBinary {
    private static final int NUMERIC_POS = 0x0000;
    private static final int NUMERIC_NEG = 0x4000;
    private static final int NUMERIC_NAN = 0xC000;
    private static final int NUMERIC_PINF = 0xD000;
    private static final int NUMERIC_NINF = 0xF000;
    private static final int NUMERIC_DSCALE_MAX = 0x3FFF;
    private static final int NBASE_DIGITS = 4; // decimal digits per base-10000 digit

    private PgNumericBinary() {
    }

    /** numeric_send of a {@link BigDecimal}, a {@link BigInteger}, an integer, a float or a double (NaN, ±Infinity). */
    static byte[] encode(Number value) {
        if (value instanceof Double || value instanceof Float) {
            double d = value.doubleValue();
            if (Double.isNaN(d)) {
                return numericHeader(0, 0, NUMERIC_NAN, 0).array();
            }
            if (Double.isInfinite(d)) {
                return numericHeader(0, 0, d > 0 ? NUMERIC_PINF : NUMERIC_NINF, 0).array();
            }
        }
        return encode(toBigDecimal(value));
    }

    private static BigDecimal toBigDecimal(Number value) {
        if (value instanceof BigDecimal) {
            return (BigDecimal) value;
        }
        if (value instanceof BigInteger) {
            return new BigDecimal((BigInteger) value);
        }
        if (value instanceof Long || value instanceof Integer || value instanceof Short || value instanceof Byte) {
            return BigDecimal.valueOf(value.longValue());
        }
        try {
            return new BigDecimal(value.toString()); // Double and Float by their shortest decimal, like the text
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("cannot encode " + value + " as numeric", e);
        }
    }

    private static byte[] encode(BigDecimal value) {
        int dscale = Math.max(value.scale(), 0);
        if (dscale > NUMERIC_DSCALE_MAX) {
            throw new IllegalArgumentException("value overflows numeric format: scale " + dscale);
        }
        if (value.signum() == 0) {
            return numericHeader(0, 0, NUMERIC_POS, dscale).array();
        }
        // value = unscaled * 10^-exp with no trailing decimal zeros; move the point right to a multiple of
        // 4 digits (fractionDigits base-10000 digits after it) so the decimal digits group into base 10000.
        BigDecimal stripped = value.stripTrailingZeros();
        int exp = stripped.scale();
        int fractionDigits = Math.floorDiv(exp + NBASE_DIGITS - 1, NBASE_DIGITS);
        String decimal = stripped.unscaledValue().abs().toString() + "000".substring(0,
                fractionDigits * NBASE_DIGITS - exp);
        int ndigits = (decimal.length() + NBASE_DIGITS - 1) / NBASE_DIGITS;
        int weight = ndigits - 1 - fractionDigits;
        if (ndigits > 0xFFFF || weight > Short.MAX_VALUE || weight < Short.MIN_VALUE) {
            throw new IllegalArgumentException("value overflows numeric format");
        }
        short[] digits = new short[ndigits];
        int end = decimal.length();
        for (int i = ndigits - 1; i >= 0; i--, end -= NBASE_DIGITS) {
            digits[i] = Short.parseShort(decimal.substring(Math.max(end - NBASE_DIGITS, 0), end));
        }
        while (digits[ndigits - 1] == 0) { // the last group holds the last non-zero digit; kept as a guard
            ndigits--;
        }
        ByteBuffer out = numericHeader(ndigits, weight, value.signum() < 0 ? NUMERIC_NEG : NUMERIC_POS, dscale);
        for (int i = 0; i < ndigits; i++) {
            out.putShort(digits[i]);
        }
        return Arrays.copyOf(out.array(), out.position());
    }

    private static ByteBuffer numericHeader(int ndigits, int weight, int sign, int dscale) {
        return ByteBuffer.allocate(8 + 2 * ndigits).putShort((short) ndigits).putShort((short) weight)
                .putShort((short) sign).putShort((short) dscale);
    }

    /** numeric_recv: checks the header and digits, then truncates digits the display scale hides. */
    static BigDecimal decode(ByteBuffer in) {
        if (in.remaining() < 8) {
            throw PgBinaryCodec.binaryError("numeric needs at least 8 bytes, got " + in.remaining());
        }
        int ndigits = Short.toUnsignedInt(in.getShort());
        int weight = in.getShort();
        int sign = Short.toUnsignedInt(in.getShort());
        int dscale = Short.toUnsignedInt(in.getShort());
        if (in.remaining() != 2 * ndigits) {
            throw PgBinaryCodec.binaryError("numeric with " + ndigits + " digits needs " + (8 + 2 * ndigits) + " bytes, got "
                    + (8 + in.remaining()));
        }
        if (sign == NUMERIC_NAN || sign == NUMERIC_PINF || sign == NUMERIC_NINF) {
            throw new PgInputException(SqlStates.FEATURE_NOT_SUPPORTED, "numeric "
                    + (sign == NUMERIC_NAN ? "NaN" : sign == NUMERIC_PINF ? "Infinity" : "-Infinity")
                    + " is not supported (no BigDecimal for it)");
        }
        if (sign != NUMERIC_POS && sign != NUMERIC_NEG) {
            throw PgBinaryCodec.binaryError("invalid sign in external \"numeric\" value");
        }
        if (dscale > NUMERIC_DSCALE_MAX) {
            throw PgBinaryCodec.binaryError("invalid scale in external \"numeric\" value");
        }
        StringBuilder decimal = new StringBuilder(ndigits * NBASE_DIGITS + 1).append(sign == NUMERIC_NEG ? "-" : "");
        for (int i = 0; i < ndigits; i++) {
            short digit = in.getShort();
            if (digit < 0 || digit > 9999) {
                throw PgBinaryCodec.binaryError("invalid digit in external \"numeric\" value");
            }
            String group = Integer.toString(digit);
            decimal.append("0000", group.length(), NBASE_DIGITS).append(group);
        }
        if (ndigits == 0) {
            return BigDecimal.ZERO.setScale(dscale);
        }
        // The digits read as an integer, the last one being the (weight - ndigits + 1)-th power of 10000.
        BigDecimal result = new BigDecimal(new BigInteger(decimal.toString()),
                (ndigits - 1 - weight) * NBASE_DIGITS);
        return result.setScale(dscale, RoundingMode.DOWN);
    }
}
