package io.coilgun.planner.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coilgun.planner.event.EventCodec;
import io.coilgun.planner.model.AggregationDef;
import io.coilgun.planner.model.AggregationKind;
import io.coilgun.planner.model.ColumnType;
import io.coilgun.planner.model.Durations;
import io.coilgun.planner.model.MetricDef;
import io.coilgun.planner.model.WindowSpec;
import io.coilgun.planner.oracle.Aggregation;
import io.coilgun.planner.oracle.SpecOracle;
import io.coilgun.planner.oracle.Window;
import io.coilgun.planner.oracle.WindowEvents;
import io.coilgun.storage.reservoir.ReservoirStats;
import io.coilgun.storage.reservoir.ChunkCache;
import io.coilgun.storage.reservoir.ReservoirIO;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import net.jqwik.api.lifecycle.AfterContainer;

/**
 * Every window kind (SLIDING, TUMBLING, INFINITE, each with and without DELAYED BY) and every invertible
 * aggregation (COUNT(*), COUNT(x), SUM of doubles and of integers, AVG, STDDEV, STDDEV_POP, MIN, MAX, LAST,
 * PREV, COUNT(DISTINCT)), and a second metric with a WHERE filter and an expression argument, against the shared
 * {@link SpecOracle}: random streams with many keys, out-of-order events within the lateness, late events, NULL
 * arguments and restarts in the middle. Results must be equal (doubles within 1e-9 relative, integer sums exact).
 */
class WindowSemanticsPropertyTest {
    static final ReservoirIO IO = ReservoirIO.defaults();
    static final long LATENESS = TaskPlanOracleTest.STREAM.latenessMicros(); // 10 s
    static final long T0 = 1_700_000_000_000_000L;

    @AfterContainer
    static void closeIo() {
        IO.close();
    }

    static MetricDef metric(WindowSpec window) {
        return new MetricDef("m", "payments", List.of(
                new AggregationDef(AggregationKind.COUNT_STAR, -1, "n", ColumnType.BIGINT),
                new AggregationDef(AggregationKind.COUNT, 3, "n_amount", ColumnType.BIGINT),
                new AggregationDef(AggregationKind.SUM, 3, "total", ColumnType.DOUBLE),
                new AggregationDef(AggregationKind.AVG, 3, "avg", ColumnType.DOUBLE),
                new AggregationDef(AggregationKind.STDDEV, 3, "sd", ColumnType.DOUBLE),
                new AggregationDef(AggregationKind.STDDEV_POP, 3, "sd_pop", ColumnType.DOUBLE),
                new AggregationDef(AggregationKind.SUM, 4, "qty", ColumnType.BIGINT),
                new AggregationDef(AggregationKind.MIN, 3, "min", ColumnType.DOUBLE),
                new AggregationDef(AggregationKind.MAX, 3, "max", ColumnType.DOUBLE),
                new AggregationDef(AggregationKind.LAST, 3, "last", ColumnType.DOUBLE),
                new AggregationDef(AggregationKind.PREV, 3, "prev", ColumnType.DOUBLE),
                new AggregationDef(AggregationKind.COUNT_DISTINCT, 4, "qtys", ColumnType.BIGINT)),
                List.of(2), "card_id", window, "");
    }

    /** The same window with a filter and an expression argument (their JEXL as the SQL compiler writes it). */
    static MetricDef filtered(WindowSpec window) {
        return filtered("f", window);
    }

    static MetricDef filtered(String name, WindowSpec window) {
        return new MetricDef(name, "payments", List.of(
                new AggregationDef(AggregationKind.COUNT_STAR, -1, "n", ColumnType.BIGINT),
                new AggregationDef(AggregationKind.SUM, -1, "qty2", ColumnType.BIGINT, "sql:mul(c_qty, 2L)")),
                List.of(2), "card_id", window, "", "sql:greater(c_amount, 500.0d)");
    }

    /**
     * What {@link #metric} and {@link #filtered} report for a window, in the order the task plan writes them:
     * COUNT(*), COUNT(amount), SUM(amount), AVG(amount), STDDEV(amount), STDDEV_POP(amount), SUM(qty), MIN(amount),
     * MAX(amount), LAST(amount), PREV(amount), COUNT(DISTINCT qty), then the filtered metric's ({@code WHERE amount >
     * 500}) COUNT(*) and SUM(qty * 2).
     */
    static Object[] expected(WindowEvents<Payment> w) {
        List<Object> amounts = w.arguments(Payment::amount);
        List<Object> qtys = w.arguments(Payment::qty);
        WindowEvents<Payment> big = w.where(p -> p.amount() != null && p.amount() > 500);
        return new Object[] {w.count(), Aggregation.COUNT.over(amounts), Aggregation.SUM.over(amounts),
            Aggregation.AVG.over(amounts), Aggregation.STDDEV.over(amounts), Aggregation.STDDEV_POP.over(amounts),
            Aggregation.SUM.over(qtys), Aggregation.MIN.over(amounts), Aggregation.MAX.over(amounts),
            Aggregation.LAST.over(amounts), Aggregation.PREV.over(amounts), Aggregation.COUNT_DISTINCT.over(qtys),
            big.count(), big.aggregate(Aggregation.SUM, p -> p.qty() * 2)};
    }

    @Property(tries = 60)
    void everyWindowKindMatchesTheSpec(@ForAll @IntRange(min = 0, max = 2) int kindIndex,
            @ForAll @IntRange(min = 1, max = 120) int sizeSeconds, @ForAll @IntRange(min = 0, max = 3) int delayChoice,
            @ForAll @IntRange(min = 1, max = 30) int groups, @ForAll @LongRange(min = 1, max = 1_000_000) long seed)
            throws IOException {
        Window.Kind kind = Window.Kind.values()[kindIndex];
        long size = sizeSeconds * Durations.SECOND;
        long delay = new long[] {0, 3 * Durations.SECOND, LATENESS, 45 * Durations.SECOND}[delayChoice];
        WindowSpec window = new WindowSpec(WindowSpec.Kind.valueOf(kind.name()),
                kind == Window.Kind.INFINITE ? 0 : size, delay);
        run(kind, size, delay, window, groups, seed, 1500, 2 * Durations.SECOND);
    }

    /** Days-long windows over a long history, so that the tails read chunks back from disk. */
    @Property(tries = 3)
    void longWindowsReadHistoryFromDisk(@ForAll @IntRange(min = 0, max = 2) int kindIndex,
            @ForAll @LongRange(min = 1, max = 1_000_000) long seed) throws IOException {
        Window.Kind kind = Window.Kind.values()[kindIndex];
        long size = Durations.DAY;
        WindowSpec window = new WindowSpec(WindowSpec.Kind.valueOf(kind.name()),
                kind == Window.Kind.INFINITE ? 0 : size, 7 * Durations.SECOND);
        run(kind, size, 7 * Durations.SECOND, window, 5, seed, 12_000, 40 * Durations.SECOND);
    }

    void run(Window.Kind kind, long size, long delay, WindowSpec window, int groups, long seed, int events,
            long meanGap) throws IOException {
        Path dir = Files.createTempDirectory("window-semantics");
        String where = kind + " size " + Durations.format(size) + " delay " + Durations.format(delay) + " groups "
                + groups + " seed " + seed;
        Random rnd = new Random(seed);
        SpecOracle<Payment> oracle = Payment.oracle(kind, size, delay);
        EventCodec codec = new EventCodec(TaskPlanOracleTest.STREAM);
        // "f2" repeats "f": the two share the filter and group-by operators (evaluated once per event) and must
        // still each see every event that passes
        List<MetricDef> metrics = List.of(metric(window), filtered(window), filtered("f2", window));
        TaskPlan plan = TaskPlan.open(dir, TaskPlanOracleTest.STREAM, metrics, IO, new ChunkCache(2, 1 << 20));
        Object[] decoded = new Object[5];
        Object[] results = new Object[16];
        long clock = T0;
        try {
            for (int i = 0; i < events; i++) {
                clock += (long) (rnd.nextDouble() * 2 * meanGap);
                // a quarter of the events out of order by up to 12 s: most within the 10 s lateness, some late
                long t = clock - (rnd.nextInt(4) == 0 ? (long) (rnd.nextDouble() * 12 * Durations.SECOND) : 0);
                String card = "c" + (int) (groups * Math.pow(rnd.nextDouble(), 2));
                Double amount = rnd.nextInt(8) == 0 ? null : Math.round(rnd.nextDouble() * 1000_00) / 100.0;
                long qty = rnd.nextInt(7) - 2;
                Payment e = new Payment(i, t, card, amount, qty);
                byte[] payload = codec.encode(e.row(), 0);
                boolean late = oracle.late(t, LATENESS);
                TaskPlan.Outcome outcome = plan.process(payload, i, decoded, results);
                assertEquals(late ? TaskPlan.Outcome.LATE : TaskPlan.Outcome.APPLIED, outcome, where + " event " + i);
                if (!late) {
                    Object[] expected = expected(oracle.accept(e));
                    compare(expected, results, where + " event " + i + " card " + card + " t " + t);
                    assertEquals(results[12], results[14], where + " event " + i + ": f2 count(*) as f's");
                    assertEquals(results[13], results[15], where + " event " + i + ": f2 sum as f's");
                }
                if (rnd.nextInt(200) == 0) {
                    plan.checkpoint();
                }
                if (rnd.nextInt(700) == 0) {
                    plan.checkpoint();
                    plan.close();
                    plan = TaskPlan.open(dir, TaskPlanOracleTest.STREAM, metrics, IO, new ChunkCache(2, 1 << 20));
                }
            }
            if (kind == Window.Kind.SLIDING && meanGap >= 10 * Durations.SECOND) {
                ReservoirStats st = plan.reservoir().stats();
                assertTrue(st.readAheadHits + st.stalls + st.syncLoads > 0,
                        where + ": the tail read chunks back from disk: " + st);
            }
        } finally {
            plan.close();
            try (var s = Files.walk(dir)) {
                s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    static void compare(Object[] expected, Object[] actual, String where) {
        String[] names = {"count(*)", "count(amount)", "sum(amount)", "avg", "stddev", "stddev_pop", "sum(qty)",
            "min", "max", "last", "prev", "count(distinct qty)", "filtered count(*)", "filtered sum(qty * 2)"};
        for (int i = 0; i < expected.length; i++) {
            Object e = expected[i];
            Object a = actual[i];
            String what = where + " " + names[i];
            if (e == null) {
                assertNull(a, what);
            } else if (e instanceof Double d) {
                double got = ((Number) a).doubleValue();
                assertEquals(d, got, 1e-9 * Math.max(1.0, Math.abs(d)), what);
            } else {
                assertEquals(((Number) e).longValue(), ((Number) a).longValue(), what);
            }
        }
    }
}
