package io.coilgun.sql.query;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.coilgun.planner.error.CoilgunException;
import io.coilgun.planner.error.SqlState;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.LocalDateTime;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Date and time arithmetic, EXTRACT, date_trunc and intervals to the microsecond, with Postgres 15's values. */
class DatetimeQueryTest {
    private static final String TS = "TIMESTAMP '2026-01-02 10:00:01.000005'";

    private static List<Object> row(String sql, Object... parameters) {
        return Arrays.asList(QueryEngineTest.run(sql, parameters).rows().get(0));
    }

    private static Object one(String sql, Object... parameters) {
        return row(sql, parameters).get(0);
    }

    /** An interval of days and a time, as a result holds it. */
    private static IntervalValue iv(int days, Duration time) {
        return new IntervalValue(0, days, time.toNanos() / 1000);
    }

    /** An interval of time only (no days), as a result holds it. */
    private static IntervalValue time(Duration time) {
        return iv(0, time);
    }

    @Test
    void theDifferenceOfTwoTimestampsIsAnIntervalToTheMicrosecond() {
        // days and a time of day, as Postgres' timestamp_mi gives them
        assertEquals(iv(1, Duration.ofHours(1).plusSeconds(1).plusNanos(5000)),
                one("SELECT " + TS + " - TIMESTAMP '2026-01-01 09:00:00'"));
        assertEquals(time(Duration.ofNanos(-5000)), one("SELECT TIMESTAMP '2026-01-02 10:00:01' - " + TS));
        assertEquals(iv(1, Duration.ofHours(1).plusSeconds(1).plusNanos(5000)),
                one("SELECT (" + TS + " - TIMESTAMP '2026-01-01 09:00:00') DAY TO SECOND"));
        assertEquals(4, one("SELECT DATE '2026-01-05' - DATE '2026-01-01'"));
        assertEquals(List.of(2, new BigDecimal("1.5"), 0.5), row("SELECT 5 - 3, 2.5 - 1, 1.5::float8 - 1"));
        assertEquals(null, one("SELECT " + TS + " - CAST(NULL AS TIMESTAMP)"));
        // with a parameter, and as an argument of EXTRACT
        assertEquals(new BigDecimal("90001.000005"), one("SELECT EXTRACT(EPOCH FROM " + TS + " - $1)",
                LocalDateTime.of(2026, 1, 1, 9, 0)));
    }

    @Test
    void intervalsKeepTheirMicroseconds() {
        assertEquals(time(Duration.ofSeconds(1, 5000)), one("SELECT INTERVAL '1.000005' SECOND"));
        assertEquals(time(Duration.ofNanos(-5000)), one("SELECT INTERVAL -'0.000005' SECOND"));
        assertEquals(LocalDateTime.of(2026, 1, 2, 10, 0, 0, 1000),
                one("SELECT TIMESTAMP '2026-01-02 10:00:00' + INTERVAL '0.000001' SECOND"));
        assertEquals(List.of(time(Duration.ofMillis(2500)), time(Duration.ofSeconds(3)),
                time(Duration.ofNanos(333_333_000)), time(Duration.ofHours(8)), time(Duration.ofSeconds(1, 5000)),
                time(Duration.ofHours(-1))),
                row("SELECT INTERVAL '1' SECOND * 2.5, 3 * INTERVAL '1' SECOND, INTERVAL '1' SECOND / 3, "
                        + "INTERVAL '1' DAY / 3, INTERVAL '1' SECOND + INTERVAL '0.000005' SECOND, -INTERVAL '1' HOUR"));
        assertEquals(List.of(time(Duration.ofHours(1)), time(Duration.ofMinutes(2))), List.of(
                QueryEngineTest.run("SELECT * FROM (VALUES (INTERVAL '1' HOUR), (INTERVAL '2' MINUTE)) t(i)")
                        .rows().get(0)[0],
                QueryEngineTest.run("SELECT * FROM (VALUES (INTERVAL '1' HOUR), (INTERVAL '2' MINUTE)) t(i)")
                        .rows().get(1)[0]));
        assertEquals(List.of("01:30:00", "1 day 00:00:00.5", "-1 years -2 mons", "00:00:00"),
                row("SELECT CAST(INTERVAL '90' MINUTE AS VARCHAR), CAST(INTERVAL '1 00:00:00.5' DAY TO SECOND AS "
                        + "VARCHAR), CAST(INTERVAL '-1-2' YEAR TO MONTH AS VARCHAR), CAST(INTERVAL '0' MONTH AS VARCHAR)"));
        assertThrows(CoilgunException.class, () -> one("SELECT INTERVAL '1' SECOND / 0"));
    }

    /**
     * Days apart from time when the interval's type has a day field, as Postgres 15 holds them: {@code INTERVAL
     * '25' HOUR} is {@code 25:00:00} (it was {@code 1 day 01:00:00}), {@code INTERVAL '1' DAY} is {@code 1 day}.
     */
    @Test
    void intervalsHoldDaysOnlyWhenTheirTypeHasDays() {
        assertEquals(List.of(time(Duration.ofHours(25)), iv(1, Duration.ZERO), time(Duration.ofMinutes(90)),
                time(Duration.ofHours(50)), iv(1, Duration.ofHours(12)), time(Duration.ofMinutes(49 * 30)),
                iv(1, Duration.ofHours(2))),
                row("SELECT INTERVAL '25' HOUR, INTERVAL '1' DAY, INTERVAL '90' MINUTE, INTERVAL '25' HOUR * 2, "
                        + "INTERVAL '1' DAY * 1.5, INTERVAL '49' HOUR / 2, INTERVAL '1 2' DAY TO HOUR"));
        assertEquals(List.of("25:00:00", "1 day", "1 day 01:00:00", "-1 days -01:00:00", "25:00:00"),
                row("SELECT CAST(INTERVAL '25' HOUR AS VARCHAR), CAST(INTERVAL '1' DAY AS VARCHAR), "
                        + "CAST(TIMESTAMP '2020-01-02 01:00:00' - TIMESTAMP '2020-01-01 00:00:00' AS VARCHAR), "
                        + "CAST(TIMESTAMP '2020-01-01 00:00:00' - TIMESTAMP '2020-01-02 01:00:00' AS VARCHAR), "
                        + "(INTERVAL '25' HOUR)::text"));
        assertEquals("1 day 01:00:00", one("SELECT TIMESTAMP '2020-01-02 01:00:00' - TIMESTAMP '2020-01-01 00:00:00'")
                .toString());
        assertEquals("-1 years -2 mons +3 days -00:00:01", new IntervalValue(-14, 3, -1_000_000).toString());
        // inside an expression one length of time: a sum that mixes days and hours is split by its type
        // (Postgres: 1 day 25:00:00 and 1 day -00:00:01), as docs/sql.md says
        assertEquals(List.of("2 days 01:00:00", "23:59:59"), row("SELECT CAST(INTERVAL '1' DAY + INTERVAL '25' HOUR "
                + "AS VARCHAR), CAST(INTERVAL '1' DAY - INTERVAL '1' SECOND AS VARCHAR)"));
    }

    @Test
    void extractIsANumericWithPostgresFields() {
        assertEquals(List.of(new BigDecimal("1000005"), new BigDecimal("1000.005"), new BigDecimal("1.000005"),
                new BigDecimal("1767348001.000005"), new BigDecimal("2026"), new BigDecimal("0"), new BigDecimal("7"),
                new BigDecimal("4"), new BigDecimal("1"), new BigDecimal("1"), new BigDecimal("202"),
                new BigDecimal("21"), new BigDecimal("3")),
                row("SELECT EXTRACT(MICROSECOND FROM " + TS + "), EXTRACT(MILLISECOND FROM " + TS + "), "
                        + "EXTRACT(SECOND FROM " + TS + "), EXTRACT(EPOCH FROM " + TS + "), EXTRACT(YEAR FROM " + TS
                        + "), EXTRACT(DOW FROM TIMESTAMP '2026-01-04 10:00:00'), "
                        + "EXTRACT(ISODOW FROM TIMESTAMP '2026-01-04 10:00:00'), "
                        + "EXTRACT(DOY FROM TIMESTAMP '2026-01-04 10:00:00'), "
                        + "EXTRACT(WEEK FROM TIMESTAMP '2026-01-04 10:00:00'), EXTRACT(QUARTER FROM " + TS + "), "
                        + "EXTRACT(DECADE FROM " + TS + "), EXTRACT(CENTURY FROM " + TS + "), "
                        + "EXTRACT(MILLENNIUM FROM " + TS + ")"));
        // an interval's: hours past a day when its type has no days; Postgres' year of 365.25 days
        assertEquals(List.of(new BigDecimal("86400.000000"), new BigDecimal("25"), new BigDecimal("1"),
                new BigDecimal("1"), new BigDecimal("31557600.000000"), new BigDecimal("2")),
                row("SELECT EXTRACT(EPOCH FROM INTERVAL '1' DAY), EXTRACT(HOUR FROM INTERVAL '25' HOUR), "
                        + "EXTRACT(HOUR FROM INTERVAL '1 01:00' DAY TO MINUTE), "
                        + "EXTRACT(DAY FROM INTERVAL '1 01:00' DAY TO MINUTE), EXTRACT(EPOCH FROM INTERVAL '1' YEAR), "
                        + "EXTRACT(MONTH FROM INTERVAL '1-2' YEAR TO MONTH)"));
        assertEquals(List.of(new BigDecimal("0"), new BigDecimal("1767484800")),
                row("SELECT EXTRACT(DOW FROM DATE '2026-01-04'), EXTRACT(EPOCH FROM DATE '2026-01-04')"));
        CoilgunException e = assertThrows(CoilgunException.class,
                () -> one("SELECT EXTRACT(HOUR FROM DATE '2026-01-04')"));
        assertEquals(SqlState.FEATURE_NOT_SUPPORTED, e.state());
        assertEquals("unit \"hour\" not supported for type date", e.getMessage());
    }

    @Test
    void dateTruncAndDatePartAsPostgres() {
        assertEquals(List.of(LocalDateTime.of(2026, 1, 2, 10, 0, 1), LocalDateTime.of(2026, 1, 2, 10, 0),
                LocalDateTime.of(2025, 12, 29, 0, 0), LocalDateTime.of(2026, 1, 1, 0, 0),
                LocalDateTime.of(2001, 1, 1, 0, 0), LocalDateTime.of(2026, 1, 5, 0, 0)),
                row("SELECT date_trunc('second', " + TS + "), date_trunc('hour', " + TS + "), date_trunc('week', "
                        + TS + "), date_trunc('year', " + TS + "), date_trunc('century', " + TS + "), "
                        + "date_trunc('week', DATE '2026-01-08')"));
        assertEquals(List.of(1.000005, 1.767348001000005E9, 25.0),
                row("SELECT date_part('second', " + TS + "), date_part('epoch', " + TS + "), "
                        + "date_part('hours', INTERVAL '25' HOUR)"));
        CoilgunException e = assertThrows(CoilgunException.class, () -> one("SELECT date_trunc('fortnight', " + TS
                + ")"));
        assertEquals(SqlState.INVALID_PARAMETER_VALUE, e.state());
    }
}
