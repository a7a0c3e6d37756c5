package io.coilgun.pgwire.types;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/** numeric_send / numeric_recv directly: base-10000 digits, weight, sign, display scale. */
class PgNumericBinaryTest {
    /** A numeric's bytes from its header and base-10000 digits. */
    private static byte[] numeric(int weight, int sign, int dscale, int... digits) {
        ByteBuffer out = ByteBuffer.allocate(8 + 2 * digits.length).putShort((short) digits.length)
                .putShort((short) weight).putShort((short) sign).putShort((short) dscale);
        for (int digit : digits) {
            out.putShort((short) digit);
        }
        return out.array();
    }

    private static BigDecimal decode(byte[] bytes) {
        return PgNumericBinary.decode(ByteBuffer.wrap(bytes));
    }

    @Test
    void encodesBase10000DigitsWithWeightAndScale() {
        assertArrayEquals(numeric(1, 0, 3, 1, 2345, 6780), PgNumericBinary.encode(new BigDecimal("12345.678")));
        assertArrayEquals(numeric(0, 0x4000, 0, 42), PgNumericBinary.encode(-42L));
        assertArrayEquals(numeric(5, 0, 0, 1), PgNumericBinary.encode(BigInteger.TEN.pow(20)));
        assertArrayEquals(numeric(0, 0, 2), PgNumericBinary.encode(new BigDecimal("0.00")));
        assertArrayEquals(numeric(0, 0xC000, 0), PgNumericBinary.encode(Double.NaN));
        assertArrayEquals(numeric(0, 0xF000, 0), PgNumericBinary.encode(Float.NEGATIVE_INFINITY));
        assertArrayEquals(numeric(-1, 0, 1, 1000), PgNumericBinary.encode(0.1)); // a double by its shortest decimal
    }

    @Test
    void decodesAndTruncatesToTheDisplayScale() {
        assertEquals(new BigDecimal("12345.678"), decode(numeric(1, 0, 3, 1, 2345, 6780)));
        assertEquals(new BigDecimal("-12345.67"), decode(numeric(1, 0x4000, 2, 1, 2345, 6789)));
        assertEquals(new BigDecimal("0.000"), decode(numeric(0, 0, 3)));
        assertEquals(new BigDecimal("100000000"), decode(numeric(2, 0, 0, 1)));
    }

    @Test
    void refusesWhatNumericRecvRefuses() {
        assertEquals("22P03", assertThrows(PgInputException.class, () -> decode(new byte[6])).sqlState());
        assertEquals("invalid sign in external \"numeric\" value",
                assertThrows(PgInputException.class, () -> decode(numeric(0, 0x1234, 0, 1))).getMessage());
        assertEquals("invalid digit in external \"numeric\" value",
                assertThrows(PgInputException.class, () -> decode(numeric(0, 0, 0, 10000))).getMessage());
        assertEquals("0A000", assertThrows(PgInputException.class, () -> decode(numeric(0, 0xD000, 0))).sqlState());
    }
}
