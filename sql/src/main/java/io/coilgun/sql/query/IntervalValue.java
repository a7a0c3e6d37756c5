package io.coilgun.sql.query;

import java.time.temporal.ChronoUnit;
import java.time.temporal.Temporal;
import java.time.temporal.TemporalAmount;
import java.time.temporal.TemporalUnit;
import java.time.temporal.UnsupportedTemporalTypeException;
import java.util.List;

/**
 * An interval of a result as Postgres keeps it: months, days and microseconds, each apart (Postgres prints
 * {@code INTERVAL '25' HOUR} as {@code 25:00:00}, {@code INTERVAL '1' DAY} as {@code 1 day}). It leaves the sql
 * layer as a {@link TemporalAmount} of the units {@link ChronoUnit#MONTHS}, {@link ChronoUnit#DAYS} and
 * {@link ChronoUnit#MICROS}, which is all the protocol layer reads of it (a JDK interface: no type is shared).
 */
public record IntervalValue(int months, int days, long micros) implements TemporalAmount {
    private static final long MICROS_PER_DAY = 86_400_000_000L;
    private static final List<TemporalUnit> UNITS = List.of(ChronoUnit.MONTHS, ChronoUnit.DAYS, ChronoUnit.MICROS);

    /**
     * A day-time interval of the engine (one count of microseconds) as Postgres would hold it: whole days and the
     * rest when its type has a day field ({@code INTERVAL '1' DAY}, {@code ts - ts}: {@code 1 day 01:00:00}), all
     * of it time when not ({@code INTERVAL '25' HOUR}: {@code 25:00:00}); as {@code EXTRACT} reads it
     * (DatetimeFields#ofInterval).
     */
    static IntervalValue ofMicros(long micros, boolean withDays) {
        return withDays ? new IntervalValue(0, Math.toIntExact(micros / MICROS_PER_DAY), micros % MICROS_PER_DAY)
                : new IntervalValue(0, 0, micros);
    }

    @Override
    public long get(TemporalUnit unit) {
        if (unit == ChronoUnit.MONTHS) {
            return months;
        }
        if (unit == ChronoUnit.DAYS) {
            return days;
        }
        if (unit == ChronoUnit.MICROS) {
            return micros;
        }
        throw new UnsupportedTemporalTypeException("Unsupported unit: " + unit);
    }

    @Override
    public List<TemporalUnit> getUnits() {
        return UNITS;
    }

    @Override
    public Temporal addTo(Temporal temporal) {
        return temporal.plus(months, ChronoUnit.MONTHS).plus(days, ChronoUnit.DAYS).plus(micros, ChronoUnit.MICROS);
    }

    @Override
    public Temporal subtractFrom(Temporal temporal) {
        return temporal.minus(months, ChronoUnit.MONTHS).minus(days, ChronoUnit.DAYS)
                .minus(micros, ChronoUnit.MICROS);
    }

    /** As Postgres prints it (IntervalStyle {@code postgres}). */
    @Override
    public String toString() {
        return IntervalText.of(months, days, micros);
    }
}
