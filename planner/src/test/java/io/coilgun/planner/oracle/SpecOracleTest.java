package io.coilgun.planner.oracle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The oracle on cases computed by hand from docs/sql.md (Window semantics, CREATE METRIC). */
class SpecOracleTest {
    static final long SECOND = 1_000_000L;
    static final long MINUTE = 60 * SECOND;

    record Payment(String card, long time, Double amount) {
    }

    /** Microseconds since midnight of {@code hh:mm:ss}. */
    static long at(String time) {
        return LocalTime.parse(time).toSecondOfDay() * SECOND;
    }

    static SpecOracle<Payment> oracle(Window.Kind kind, long size, long delay) {
        return new SpecOracle<>(new Window(kind, size, delay), Payment::time, Payment::card);
    }

    static Object sum(WindowEvents<Payment> w) {
        return w.aggregate(Aggregation.SUM, Payment::amount);
    }

    @Test
    void theSlidingExampleOfTheDocs() {
        // card_5m over 5 minutes, card c1: 10:00:00 -> (10, 1); 10:04:59 -> (15, 2); 10:05:00 -> (6, 2)
        SpecOracle<Payment> o = oracle(Window.Kind.SLIDING, 5 * MINUTE, 0);
        WindowEvents<Payment> w = o.accept(new Payment("c1", at("10:00:00"), 10.0));
        assertEquals(List.of(10.0, 1L), List.of(sum(w), w.count()));
        w = o.accept(new Payment("c1", at("10:04:59"), 5.0));
        assertEquals(List.of(15.0, 2L), List.of(sum(w), w.count()));
        w = o.accept(new Payment("c1", at("10:05:00"), 1.0));
        assertEquals(List.of(6.0, 2L), List.of(sum(w), w.count()));
    }

    @Test
    void everyIntervalOfTheTable() {
        // events at 10:00, 10:07, 10:12 and 10:14; the clock T is 10:14
        long[] times = {at("10:00:00"), at("10:07:00"), at("10:12:00"), at("10:14:00")};
        assertEquals(List.of(1.0, 1.0, 1.0, 1.0), amountsIn(Window.Kind.INFINITE, 0, 0, times));
        assertEquals(List.of(1.0, 1.0, 1.0), amountsIn(Window.Kind.INFINITE, 0, 2 * MINUTE, times)); // t <= 10:12
        assertEquals(List.of(1.0, 1.0), amountsIn(Window.Kind.SLIDING, 7 * MINUTE, 0, times)); // 10:07 < t <= 10:14
        // 10:14 - 2 - 7 = 10:05 < t <= 10:12
        assertEquals(List.of(1.0, 1.0), amountsIn(Window.Kind.SLIDING, 7 * MINUTE, 2 * MINUTE, times));
        // aligned to the epoch: floor(10:14 / 10 min) * 10 min = 10:10 <= t <= 10:14
        assertEquals(List.of(1.0, 1.0), amountsIn(Window.Kind.TUMBLING, 10 * MINUTE, 0, times));
        // floor((10:14 - 5 min) / 10 min) * 10 min = 10:00 <= t <= 10:09
        assertEquals(List.of(1.0, 1.0), amountsIn(Window.Kind.TUMBLING, 10 * MINUTE, 5 * MINUTE, times));
        // a tumbling bucket's start is in it
        assertTrue(new Window(Window.Kind.TUMBLING, 10 * MINUTE, 0).contains(at("10:10:00"), at("10:10:00")));
        assertFalse(new Window(Window.Kind.TUMBLING, 10 * MINUTE, 0).contains(at("10:09:59"), at("10:10:00")));
    }

    private static List<Object> amountsIn(Window.Kind kind, long size, long delay, long[] times) {
        SpecOracle<Payment> o = oracle(kind, size, delay);
        WindowEvents<Payment> w = null;
        for (long t : times) {
            w = o.accept(new Payment("c1", t, 1.0));
        }
        List<Object> amounts = new ArrayList<>();
        w.events().forEach(p -> amounts.add(p.amount()));
        return amounts;
    }

    @Test
    void theClockIsTheGroupsNewestEventTimeAndAnOlderEventDoesNotMoveIt() {
        SpecOracle<Payment> o = oracle(Window.Kind.SLIDING, 5 * SECOND, 0);
        o.accept(new Payment("c1", at("10:00:10"), 1.0));
        o.accept(new Payment("c2", at("10:00:30"), 2.0)); // another group: c1's clock stays
        WindowEvents<Payment> w = o.accept(new Payment("c1", at("10:00:04"), 4.0)); // out of order: 6 s old
        assertEquals(at("10:00:10"), o.clock("c1"));
        assertEquals(1L, w.count(), "the old event is counted but out of its own window");
        assertEquals(1.0, sum(w));
        assertEquals(at("10:00:30"), o.streamTime());
        assertTrue(o.late(at("10:00:19"), 10 * SECOND));
        assertFalse(o.late(at("10:00:20"), 10 * SECOND));
        assertEquals(Set.of("c1", "c2"), o.groups());
    }

    @Test
    void selectReadsTheWindowAtTheStreamTimeAndAnEmptyWindowIsZeroAndNulls() {
        SpecOracle<Payment> o = oracle(Window.Kind.SLIDING, 5 * SECOND, 0);
        o.accept(new Payment("c1", at("10:00:00"), 3.0));
        WindowEvents<Payment> later = o.at("c1", at("10:00:05"));
        assertEquals(0L, later.count());
        for (Aggregation a : Aggregation.values()) {
            Object v = later.aggregate(a, Payment::amount);
            if (a == Aggregation.COUNT || a == Aggregation.COUNT_DISTINCT) {
                assertEquals(0L, v, a.name());
            } else {
                assertNull(v, a.name());
            }
        }
        assertEquals(1L, o.at("c1", at("10:00:04")).count());
        assertThrows(IllegalArgumentException.class, () -> o.at("c9", 0));
    }

    @Test
    void aFilterKeepsEventsOutOfTheWindowButNotOutOfTheClock() {
        // big_card_1h_delayed: COUNT(*), SUM(amount * 2) WHERE amount > 100 OVER SLIDING 1 HOUR DELAYED BY 10 MINUTES
        SpecOracle<Payment> o = oracle(Window.Kind.SLIDING, 60 * MINUTE, 10 * MINUTE);
        o.accept(new Payment("c1", at("10:00:00"), 150.0));
        o.accept(new Payment("c1", at("10:05:00"), 50.0));
        o.accept(new Payment("c1", at("10:08:00"), null));
        // the clock is 10:20 though the event is filtered out: the window is 09:10 < t <= 10:10
        WindowEvents<Payment> w = o.accept(new Payment("c1", at("10:20:00"), 20.0))
                .where(p -> p.amount() != null && p.amount() > 100);
        assertEquals(1L, w.count());
        assertEquals(300.0, w.aggregate(Aggregation.SUM, p -> p.amount() * 2));
    }

    @Test
    void nullArgumentsAreIgnored() {
        SpecOracle<Payment> o = oracle(Window.Kind.INFINITE, 0, 0);
        o.accept(new Payment("c1", 1, 4.0));
        o.accept(new Payment("c1", 2, null));
        WindowEvents<Payment> w = o.accept(new Payment("c1", 3, null));
        assertEquals(3L, w.count());
        assertEquals(1L, w.aggregate(Aggregation.COUNT, Payment::amount));
        assertEquals(4.0, w.aggregate(Aggregation.AVG, Payment::amount));
        assertEquals(4.0, w.aggregate(Aggregation.LAST, Payment::amount), "the newest event with a value");
        assertNull(w.aggregate(Aggregation.PREV, Payment::amount));
        assertNull(w.aggregate(Aggregation.STDDEV, Payment::amount), "one value");
        assertEquals(0.0, w.aggregate(Aggregation.STDDEV_POP, Payment::amount));
    }

    @Test
    void lastAndPrevOrderByEventTimeThenArrival() {
        SpecOracle<Payment> o = oracle(Window.Kind.INFINITE, 0, 0);
        o.accept(new Payment("c1", 10, 1.0));
        o.accept(new Payment("c1", 30, 2.0));
        o.accept(new Payment("c1", 20, 3.0)); // older than the newest: not LAST
        WindowEvents<Payment> w = o.accept(new Payment("c1", 30, 4.0)); // same time, arrived later: LAST
        assertEquals(4.0, w.aggregate(Aggregation.LAST, Payment::amount));
        assertEquals(2.0, w.aggregate(Aggregation.PREV, Payment::amount));
        assertEquals(List.of(1.0, 3.0, 2.0, 4.0), w.events().stream().map(Payment::amount).toList());
    }

    @Test
    void aggregationsOverHandComputedValues() {
        List<Object> values = List.of(2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0);
        assertEquals(8L, Aggregation.COUNT.over(values));
        assertEquals(5L, Aggregation.COUNT_DISTINCT.over(values));
        assertEquals(40.0, Aggregation.SUM.over(values));
        assertEquals(5.0, Aggregation.AVG.over(values));
        assertEquals(2.0, Aggregation.STDDEV_POP.over(values)); // sqrt(32 / 8)
        assertEquals(Math.sqrt(32.0 / 7), (Double) Aggregation.STDDEV.over(values), 1e-15);
        assertEquals(2.0, Aggregation.MIN.over(values));
        assertEquals(9.0, Aggregation.MAX.over(values));
        assertEquals(9.0, Aggregation.LAST.over(values));
        assertEquals(7.0, Aggregation.PREV.over(values));
    }

    @Test
    void sumsAreOfTheirSqlTypeAndIntegerSumsExact() {
        assertEquals(6L, Aggregation.SUM.over(List.of(1, 2, 3)), "integer: bigint");
        assertEquals(0, new BigDecimal("18000000000000000000").compareTo(
                (BigDecimal) Aggregation.SUM.over(List.of(9_000_000_000_000_000_000L, 9_000_000_000_000_000_000L))),
                "bigint: numeric, never wraps");
        assertEquals(2.5, Aggregation.AVG.over(List.of(2, 3)));
        assertThrows(IllegalArgumentException.class, () -> Aggregation.SUM.over(List.of("a")));
    }

    @Test
    void textComparesInTheCCollation() {
        // by code point: é (U+00E9) after z, U+1F600 after U+FFFD (in UTF-16 its surrogates come before U+FFFD)
        List<Object> texts = List.of("z", "é", "\uFFFD", "\uD83D\uDE00", "B", "a", "");
        assertEquals("", Aggregation.MIN.over(texts));
        assertEquals("\uD83D\uDE00", Aggregation.MAX.over(texts));
        assertEquals("B", Aggregation.MIN.over(List.of("a", "B")));
        assertThrows(IllegalArgumentException.class, () -> Aggregation.MIN.over(List.of(true, false)));
    }
}
