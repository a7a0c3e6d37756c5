package io.coilgun.server.session;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.coilgun.sql.query.IntervalValue;
import java.math.BigDecimal;
import java.time.LocalDateTime;
import java.time.Period;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A spilled row reads back as it was written, each value of the classes a query gives. */
class RowSpoolTest {
    @Test
    void spilledValuesReadBackAsTheyWere() {
        // an interval of 25 hours stays 25 hours (no day), as Postgres holds INTERVAL '25' HOUR
        Object[] row = {1L, "a", new BigDecimal("1.50"), LocalDateTime.of(2026, 1, 2, 10, 0, 0, 5000),
            new IntervalValue(0, 0, 90_000_000_000L), new IntervalValue(0, 1, 3_600_000_000L), Period.ofMonths(14),
            null, List.of("x", "y")};
        try (RowSpool spool = new RowSpool(0)) {
            spool.add(row);
            spool.add(row);
            assertEquals(Arrays.asList(row), Arrays.asList(spool.get(2)));
            assertEquals(Arrays.asList(row), Arrays.asList(spool.get(1)));
        }
    }
}
