package io.coilgun.sql.parser;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.DateTimeException;
import java.time.LocalDateTime;
import org.junit.jupiter.api.Test;

/** Timestamps as drivers write them, read as Postgres reads a timestamp without time zone. */
class TimestampTextTest {
    @Test
    void readsWhatDriversWrite() {
        LocalDateTime t = LocalDateTime.of(2026, 11, 24, 19, 30, 5, 123_456_000);
        for (String text : new String[] {"2026-11-24 19:30:05.123456", "2026-11-24T19:30:05.123456",
            " 2026-11-24T19:30:05.123456+00:00 ", "2026-11-24 19:30:05.123456+01", "2026-11-24T19:30:05.123456Z",
            "2026-11-24 19:30:05.123456-0530"}) {
            assertEquals(t, TimestampText.parse(text), text);
        }
        assertEquals(LocalDateTime.of(2026, 11, 24, 0, 0), TimestampText.parse("2026-11-24"));
        assertEquals(LocalDateTime.of(2026, 11, 24, 19, 30), TimestampText.parse("2026-11-24 19:30"));
        assertEquals("2026-11-24 19:30:05.123456", TimestampText.canonical(t));
        assertEquals("2026-11-24 00:00:00", TimestampText.canonical(LocalDateTime.of(2026, 11, 24, 0, 0)));
        for (String bad : new String[] {"soon", "2026-13-01", "2026-11-24 25:00", "24/11/2026"}) {
            assertThrows(DateTimeException.class, () -> TimestampText.parse(bad), bad);
        }
    }
}
