package io.coilgun.pgwire.types;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.coilgun.pgwire.spi.PgType;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

/** date_in / timestamp_in / timestamptz_in directly: forms, zones, eras, ranges and the fraction's rounding. */
class PgDateTimeInputTest {
    private static PgInputException refused(PgType type, String text) {
        return assertThrows(PgInputException.class, () -> PgDateTimeInput.read(type, text));
    }

    @Test
    void dateIgnoresTimeAndZone() {
        assertEquals(LocalDate.of(2024, 2, 29), PgDateTimeInput.read(PgType.DATE, " 2024-02-29 23:59:59+05 "));
        assertEquals(LocalDate.of(-43, 3, 15), PgDateTimeInput.read(PgType.DATE, "0044-03-15 BC")); // no year 0
        assertEquals(LocalDate.of(2024, 1, 1), PgDateTimeInput.read(PgType.DATE, "2024-01-01 12:00 Nowhere/Land"));
        assertEquals("22008", refused(PgType.DATE, "2023-02-29").sqlState());
        assertEquals("22007", refused(PgType.DATE, "29.02.2024").sqlState());
    }

    @Test
    void timestampKeepsTheWallTimeAndChecksTheZoneTimestamptzMovesToUtc() {
        assertEquals(LocalDateTime.of(2024, 1, 2, 0, 0), PgDateTimeInput.read(PgType.TIMESTAMP, "2024-01-01 24:00"));
        assertEquals(LocalDateTime.of(2024, 1, 1, 10, 0), PgDateTimeInput.read(PgType.TIMESTAMP, "2024-01-01 10:00+05"));
        assertEquals(OffsetDateTime.of(2024, 1, 1, 5, 0, 0, 0, ZoneOffset.UTC),
                PgDateTimeInput.read(PgType.TIMESTAMPTZ, "2024-01-01T10:00:00+05:00"));
        assertEquals("22023", refused(PgType.TIMESTAMP, "2024-01-01 12:00 Nowhere/Land").sqlState()); // checked
        assertEquals("22009", refused(PgType.TIMESTAMPTZ, "2024-01-01 10:00+16").sqlState());
        assertEquals(LocalDateTime.MAX, PgDateTimeInput.read(PgType.TIMESTAMP, "Infinity"));
    }

    @Test
    void fractionsRoundHalfToEvenToMicroseconds() {
        assertEquals(0, PgDateTimeInput.fractionMicros(null));
        assertEquals(500_000, PgDateTimeInput.fractionMicros("5"));
        assertEquals(2, PgDateTimeInput.fractionMicros("0000025"));
        assertEquals(4, PgDateTimeInput.fractionMicros("0000035"));
        assertEquals(1_000_000, PgDateTimeInput.fractionMicros("9999999")); // rounds up to a whole second
    }
}
