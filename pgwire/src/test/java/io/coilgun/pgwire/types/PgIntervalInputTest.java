package io.coilgun.pgwire.types;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/** interval_in directly: Postgres' format, the SQL standard's, ISO 8601, fractions spilling, fields given twice. */
class PgIntervalInputTest {
    private static PgInterval read(String text) {
        return new PgIntervalInput(text).read();
    }

    @Test
    void postgresFormat() {
        assertEquals(new PgInterval(14, 3, 14_706_500_000L), read("1 year 2 mons 3 days 04:05:06.5"));
        assertEquals(new PgInterval(0, -1, -3_600_000_000L), read("@ 1 day 1 hour ago"));
        assertEquals(new PgInterval(0, 0, 1_500_000), read("1.5")); // a lone number is seconds
    }

    @Test
    void sqlStandardAndIso8601() {
        assertEquals(new PgInterval(14, 0, 0), read("1-2"));
        assertEquals(new PgInterval(0, 3, 14_706_000_000L), read("3 4:05:06"));
        assertEquals(new PgInterval(14, 10, 14_706_500_000L), read("P1Y2M1W3DT4H5M6.5S"));
    }

    @Test
    void fractionsSpillIntoSmallerFields() {
        assertEquals(new PgInterval(0, 15, 0), read("0.5 months"));
        assertEquals(new PgInterval(0, 1, 43_200_000_000L), read("1.5 days"));
        assertEquals(new PgInterval(6, 0, 0), read("0.5 years"));
    }

    @Test
    void refusals() {
        assertEquals("invalid input syntax for type interval: \"1 day 2 days\"",
                assertThrows(PgInputException.class, () -> read("1 day 2 days")).getMessage());
        assertEquals("22007", assertThrows(PgInputException.class, () -> read("P")).sqlState());
        assertEquals("22015", assertThrows(PgInputException.class, () -> read("1:60")).sqlState());
    }
}
