package io.coilgun.planner.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coilgun.planner.event.EventCodec;
import io.coilgun.planner.model.AggregationDef;
import io.coilgun.planner.model.AggregationKind;
import io.coilgun.planner.model.ColumnType;
import io.coilgun.planner.model.Durations;
import io.coilgun.planner.model.MetricDef;
import io.coilgun.planner.model.StreamColumn;
import io.coilgun.planner.model.StreamDef;
import io.coilgun.planner.model.WindowSpec;
import io.coilgun.storage.reservoir.ChunkCache;
import io.coilgun.storage.reservoir.ReservoirIO;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * ALTER STREAM ... ADD COLUMN on a live task: events of schema 1 stay readable after the change, from sealed
 * chunks on disk (the window's tail passes them long after), with NULL for the new column, and across a restart.
 */
class SchemaEvolutionTest {
    static final ReservoirIO IO = ReservoirIO.defaults();
    static final long T0 = 1_700_000_000_000_000L;
    static final long SPACING = 100_000; // 10 events per second
    static final long WINDOW = Durations.HOUR;

    @AfterAll
    static void closeIo() {
        IO.close();
    }

    static final StreamDef V1 = TaskPlanOracleTest.STREAM;
    static final StreamDef V2 = V1.withColumn(new StreamColumn("country", ColumnType.VARCHAR, false));

    static MetricDef metric() {
        return new MetricDef("m", "payments", List.of(
                new AggregationDef(AggregationKind.SUM, 3, "total", ColumnType.DOUBLE),
                new AggregationDef(AggregationKind.COUNT_STAR, -1, "n", ColumnType.BIGINT),
                new AggregationDef(AggregationKind.COUNT, 5, "with_country", ColumnType.BIGINT)),
                List.of(2), "card_id", WindowSpec.sliding(WINDOW), "");
    }

    record Ev(long t, double amount, boolean hasCountry) {
    }

    @Test
    void oldEventsReadBackWithTheNewSchema(@TempDir Path dir) {
        MetricDef m = metric();
        ArrayDeque<Ev> window = new ArrayDeque<>();
        Object[] decoded = new Object[6];
        Object[] results = new Object[3];
        long offset = 0;
        double sum = 0;
        long withCountry = 0;
        // the metric's COUNT(country) needs column 5 from the start, so the plan opens with V2 and the first
        // 40,000 events are written as schema 1 (what a stream altered later has on disk)
        EventCodec oldCodec = new EventCodec(V1);
        EventCodec newCodec = new EventCodec(V2);
        TaskPlan plan = TaskPlan.open(dir, V2, List.of(m), IO, new ChunkCache(2, 1 << 20));
        try {
            for (int i = 0; i < 80_000; i++) {
                long t = T0 + i * SPACING;
                boolean altered = i >= 40_000;
                double amount = i % 100;
                byte[] payload = altered
                        ? newCodec.encode(new Object[] {(long) i, t, "c1", amount, 1L, "PT"}, 0)
                        : oldCodec.encode(new Object[] {(long) i, t, "c1", amount, 1L}, 0);
                assertEquals(TaskPlan.Outcome.APPLIED, plan.process(payload, offset++, decoded, results));
                window.add(new Ev(t, amount, altered));
                sum += amount; // amounts are whole numbers: exact in a double
                withCountry += altered ? 1 : 0;
                while (window.peek().t() <= t - WINDOW) {
                    Ev out = window.poll();
                    sum -= out.amount();
                    withCountry -= out.hasCountry() ? 1 : 0;
                }
                assertEquals(sum, (Double) results[0], 1e-9 * sum, "event " + i);
                assertEquals((long) window.size(), results[1], "event " + i);
                assertEquals(withCountry, results[2], "event " + i);
                if (i == 60_000) {
                    plan.checkpoint();
                    plan.close();
                    plan = TaskPlan.open(dir, V2, List.of(m), IO, new ChunkCache(2, 1 << 20));
                }
                if (i % 1000 == 0) {
                    plan.checkpoint();
                }
            }
            var stats = plan.reservoir().stats();
            assertTrue(stats.readAheadHits + stats.stalls + stats.syncLoads > 20,
                    "the tail read schema-1 chunks back from disk: " + stats);
            assertEquals(2, plan.reservoir().schemas().size(), "both versions in the registry");
        } finally {
            plan.close();
        }
    }

    @Test
    void liveAlterBetweenEvents(@TempDir Path dir) {
        MetricDef count = new MetricDef("c", "payments", List.of(
                new AggregationDef(AggregationKind.COUNT_STAR, -1, "n", ColumnType.BIGINT)),
                List.of(2), "card_id", WindowSpec.sliding(WINDOW), "");
        Object[] decoded = new Object[6];
        Object[] results = new Object[1];
        EventCodec oldCodec = new EventCodec(V1);
        TaskPlan plan = TaskPlan.open(dir, V1, List.of(count), IO, new ChunkCache(2, 1 << 20));
        try {
            long offset = 0;
            for (int i = 0; i < 3; i++) {
                plan.process(oldCodec.encode(new Object[] {(long) i, T0 + i, "c1", 1.0, 1L}, 0), offset++,
                        new Object[5], results);
            }
            plan.alterStream(V2);
            byte[] p = new EventCodec(V2).encode(new Object[] {9L, T0 + 9, "c1", 1.0, 1L, "PT"}, 0);
            assertEquals(TaskPlan.Outcome.APPLIED, plan.process(p, offset, decoded, results));
            assertEquals("PT", decoded[5]);
            assertEquals(4L, results[0]);
        } finally {
            plan.close();
        }
    }
}
