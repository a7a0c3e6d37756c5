package io.coilgun.planner.plan;

import io.coilgun.planner.event.EventCodec;
import io.coilgun.planner.model.AggregationDef;
import io.coilgun.planner.model.AggregationKind;
import io.coilgun.planner.model.ColumnType;
import io.coilgun.planner.model.Durations;
import io.coilgun.planner.model.MetricDef;
import io.coilgun.planner.model.WindowSpec;
import io.coilgun.storage.reservoir.ChunkCache;
import io.coilgun.storage.reservoir.ReservoirIO;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Writes the task directory {@link StoredFormatTest} opens: run once by a release, with that release's code, and
 * checked into the test resources (a directory that release wrote, not rows made by the code under test).
 *
 * <pre>java -cp &lt;planner test classpath&gt; io.coilgun.planner.plan.StoredFormatFixture &lt;new directory&gt;</pre>
 *
 * The task of {@link TaskPlanOracleTest#STREAM} with {@link #EVENTS} events (ids 0.., one every 100 ms, card
 * {@code c<i % CARDS>}, amount {@link #amount}), checkpointed every 500 events and at the end, then closed; a SUM,
 * COUNT and AVG metric over 30 days and a MIN and MAX one over 1 day.
 */
public final class StoredFormatFixture {
    static final int EVENTS = 3_000;
    static final int CARDS = 37;
    static final long T0 = 1_780_000_000_000_000L;

    private StoredFormatFixture() {
    }

    static List<MetricDef> metrics() {
        return List.of(TaskPlanOracleTest.metric("totals", 30 * Durations.DAY),
                new MetricDef("extremes", "payments", List.of(
                        new AggregationDef(AggregationKind.MIN, 3, "low", ColumnType.DOUBLE),
                        new AggregationDef(AggregationKind.MAX, 3, "high", ColumnType.DOUBLE)),
                        List.of(2), "card_id", WindowSpec.sliding(Durations.DAY), ""));
    }

    static double amount(long i) {
        return (i * 7919 % 1000) / 10.0;
    }

    static Object[] event(long i) {
        return new Object[] {i, T0 + i * 100_000, "c" + (i % CARDS), amount(i), 1L};
    }

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        if (Files.exists(dir)) {
            throw new IllegalStateException(dir + " exists");
        }
        EventCodec codec = new EventCodec(TaskPlanOracleTest.STREAM);
        try (ReservoirIO io = ReservoirIO.defaults()) {
            TaskPlan plan = TaskPlan.open(dir, TaskPlanOracleTest.STREAM, metrics(), io, new ChunkCache(8, 1 << 20));
            Object[] results = new Object[7];
            for (int i = 0; i < EVENTS; i++) {
                TaskPlan.Outcome o = plan.process(codec.encode(event(i), 0), i, results);
                if (o != TaskPlan.Outcome.APPLIED) {
                    throw new IllegalStateException("event " + i + ": " + o);
                }
                if (i % 500 == 499) {
                    plan.checkpoint();
                }
            }
            plan.checkpoint();
            plan.close();
        }
        System.out.println("wrote " + dir);
    }
}
