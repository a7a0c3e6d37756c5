package io.coilgun.planner.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.coilgun.planner.event.EventCodec;
import io.coilgun.planner.model.AggregationDef;
import io.coilgun.planner.model.AggregationKind;
import io.coilgun.planner.model.ColumnType;
import io.coilgun.planner.model.Durations;
import io.coilgun.planner.model.LatePolicy;
import io.coilgun.planner.model.MetricDef;
import io.coilgun.planner.model.StreamColumn;
import io.coilgun.planner.model.StreamDef;
import io.coilgun.planner.model.WindowSpec;
import io.coilgun.planner.oracle.Aggregation;
import io.coilgun.planner.oracle.SpecOracle;
import io.coilgun.planner.oracle.Window;
import io.coilgun.planner.oracle.WindowEvents;
import io.coilgun.storage.reservoir.ChunkCache;
import io.coilgun.storage.reservoir.ReservoirIO;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Compares the task plan with the shared brute-force oracle of docs/sql.md ({@link SpecOracle}) under a sliding window
 * on random streams: many keys, out-of-order events within lateness, late events, NULL amounts, restarts in the middle.
 */
class TaskPlanOracleTest {

    static final StreamDef STREAM = new StreamDef("payments",
            List.of(new StreamColumn("id", ColumnType.BIGINT, false),
                    new StreamColumn("ts", ColumnType.TIMESTAMP, false),
                    new StreamColumn("card_id", ColumnType.VARCHAR, false),
                    new StreamColumn("amount", ColumnType.DOUBLE, false),
                    new StreamColumn("qty", ColumnType.BIGINT, false)),
            1, 0, List.of("card_id"), 1, 10 * Durations.SECOND, LatePolicy.REJECT, "");

    static MetricDef metric(String name, long window) {
        return new MetricDef(name, "payments", List.of(
                new AggregationDef(AggregationKind.SUM, 3, "total", ColumnType.DOUBLE),
                new AggregationDef(AggregationKind.COUNT_STAR, -1, "n", ColumnType.BIGINT),
                new AggregationDef(AggregationKind.COUNT, 3, "n_amount", ColumnType.BIGINT),
                new AggregationDef(AggregationKind.SUM, 4, "qty", ColumnType.BIGINT),
                new AggregationDef(AggregationKind.AVG, 3, "avg", ColumnType.DOUBLE)),
                List.of(2), "card_id", WindowSpec.sliding(window), "");
    }

    @Test
    void matchesOracleWithOutOfOrderEventsAndRestarts(@TempDir Path dir) {
        for (long seed = 1; seed <= 4; seed++) {
            run(dir.resolve("s" + seed), seed, 3000, seed % 2 == 0 ? 5 * Durations.SECOND : 2 * Durations.MINUTE);
        }
    }

    /** Small chunks, so that windows read sealed chunks back from disk. */
    static final ReservoirIO IO = ReservoirIO.defaults();

    @AfterAll
    static void closeIo() {
        IO.close();
    }

    void run(Path dir, long seed, int events, long window) {
        Random rnd = new Random(seed);
        System.out.println("TaskPlanOracleTest seed=" + seed + " window=" + Durations.format(window));
        List<MetricDef> metrics = List.of(metric("m", window));
        EventCodec codec = new EventCodec(STREAM);
        SpecOracle<Payment> oracle = Payment.oracle(Window.Kind.SLIDING, window, 0);
        long clock = 1_700_000_000_000_000L;
        TaskPlan plan = TaskPlan.open(dir, STREAM, metrics, IO, new ChunkCache(8, 1 << 20));
        Object[] decoded = new Object[5];
        Object[] results = new Object[5];
        try {
            for (int i = 0; i < events; i++) {
                clock += rnd.nextInt(2_000_000);
                long t = clock - (rnd.nextInt(4) == 0 ? rnd.nextInt(12_000_000) : 0);
                String card = "c" + rnd.nextInt(20);
                Double amount = rnd.nextInt(10) == 0 ? null : Math.round(rnd.nextDouble() * 100_00) / 100.0;
                long qty = rnd.nextInt(5);
                Payment ev = new Payment(i, t, card, amount, qty);
                byte[] payload = codec.encode(ev.row(), 0);
                TaskPlan.Outcome outcome = plan.process(payload, i, decoded, results);
                boolean late = oracle.late(t, STREAM.latenessMicros());
                assertEquals(late ? TaskPlan.Outcome.LATE : TaskPlan.Outcome.APPLIED, outcome, "event " + i);
                if (!late) {
                    check(oracle.accept(ev), results, "seed " + seed + " event " + i);
                }
                if (rnd.nextInt(100) == 0) {
                    plan.checkpoint();
                }
                if (rnd.nextInt(500) == 0) {
                    plan.checkpoint();
                    plan.close();
                    plan = TaskPlan.open(dir, STREAM, metrics, IO, new ChunkCache(8, 1 << 20));
                    assertEquals(i + 1, plan.nextOffset());
                }
            }
        } finally {
            plan.close();
        }
    }

    /** The metric's values ({@link #metric}: SUM(amount), COUNT(*), COUNT(amount), SUM(qty), AVG(amount)). */
    static void check(WindowEvents<Payment> w, Object[] results, String where) {
        Double sum = (Double) w.aggregate(Aggregation.SUM, Payment::amount);
        BigDecimal qty = (BigDecimal) w.aggregate(Aggregation.SUM, Payment::qty);
        assertEquals(w.count(), results[1], where + " count");
        assertEquals(w.aggregate(Aggregation.COUNT, Payment::amount), results[2], where + " count(amount)");
        assertEquals(qty == null ? null : qty.longValueExact(), results[3], where + " sum(qty)");
        if (sum == null) {
            assertNull(results[0], where + " sum");
            assertNull(results[4], where + " avg");
        } else {
            assertEquals(sum, (Double) results[0], Math.abs(sum) * 1e-9 + 1e-9, where + " sum");
            assertEquals((Double) w.aggregate(Aggregation.AVG, Payment::amount), (Double) results[4],
                    Math.abs(sum) * 1e-9 + 1e-9, where + " avg");
        }
    }
}
