package io.coilgun.planner.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.coilgun.planner.event.EventCodec;
import io.coilgun.planner.model.Durations;
import io.coilgun.storage.reservoir.ChunkCache;
import io.coilgun.storage.reservoir.ReservoirIO;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** An event id accepted within the dedup horizon is not counted again, also after a restart. */
class DuplicateEventsTest {
    static final ReservoirIO IO = ReservoirIO.defaults();
    static final long T0 = 1_700_000_000_000_000L;

    @AfterAll
    static void closeIo() {
        IO.close();
    }

    final EventCodec codec = new EventCodec(TaskPlanOracleTest.STREAM);
    final Object[] decoded = new Object[5];
    final Object[] results = new Object[5];
    long offset;

    TaskPlan.Outcome send(TaskPlan plan, long id, long time, double amount) {
        byte[] payload = codec.encode(new Object[] {id, time, "c1", amount, 1L}, 0);
        return plan.process(payload, offset++, decoded, results);
    }

    TaskPlan open(Path dir) {
        return TaskPlan.open(dir, TaskPlanOracleTest.STREAM,
                List.of(TaskPlanOracleTest.metric("m", 5 * Durations.MINUTE)), IO, new ChunkCache(8, 1 << 20));
    }

    @Test
    void duplicatesAreCountedOnce(@TempDir Path dir) {
        TaskPlan plan = open(dir);
        try {
            assertEquals(TaskPlan.Outcome.APPLIED, send(plan, 1, T0, 10.0));
            assertEquals(TaskPlan.Outcome.APPLIED, send(plan, 2, T0 + Durations.SECOND, 5.0));
            assertEquals(TaskPlan.Outcome.DUPLICATE, send(plan, 1, T0, 10.0), "a retry of event 1");
            assertEquals(TaskPlan.Outcome.DUPLICATE, send(plan, 2, T0 + 3 * Durations.SECOND, 7.0),
                    "id 2 again, other time, original still inside the horizon");
            assertEquals(TaskPlan.Outcome.APPLIED, send(plan, 3, T0 + 4 * Durations.SECOND, 1.0));
            assertEquals(16.0, results[0], "events 1, 2 and 3, each once");
            assertEquals(3L, results[1]);
            plan.checkpoint();
            plan.close();

            plan = open(dir);
            offset = plan.nextOffset();
            assertEquals(TaskPlan.Outcome.DUPLICATE, send(plan, 3, T0 + 4 * Durations.SECOND, 1.0),
                    "the horizon is refilled from the reservoir after a restart");
            // 20 s later, event 1 (at T0) is behind S - lateness, but a retry of it is still a duplicate: the dedup
            // horizon (1 hour by default) is checked before lateness
            assertEquals(TaskPlan.Outcome.APPLIED, send(plan, 4, T0 + 20 * Durations.SECOND, 2.0));
            assertEquals(TaskPlan.Outcome.DUPLICATE, send(plan, 1, T0, 10.0));
            assertEquals(TaskPlan.Outcome.LATE, send(plan, 99, T0, 10.0), "a late event never accepted is late");
            assertEquals(TaskPlan.Outcome.APPLIED, send(plan, 5, T0 + 21 * Durations.SECOND, 0.5));
            assertEquals(18.5, results[0]);
            assertEquals(5L, results[1]);
            // two hours on, event 1 left the horizon: a retry of it is judged as a new event (late)
            assertEquals(TaskPlan.Outcome.APPLIED, send(plan, 6, T0 + 2 * Durations.HOUR, 1.0));
            assertEquals(TaskPlan.Outcome.LATE, send(plan, 1, T0, 10.0));
            assertEquals(TaskPlan.Outcome.DUPLICATE, send(plan, 6, T0 + 2 * Durations.HOUR, 1.0));
            plan.checkpoint();
            plan.close();
            plan = open(dir);
            offset = plan.nextOffset();
            assertEquals(TaskPlan.Outcome.DUPLICATE, send(plan, 6, T0 + 2 * Durations.HOUR, 1.0), "after a restart");
            assertEquals(TaskPlan.Outcome.APPLIED, send(plan, 7, T0 + 2 * Durations.HOUR + 30 * Durations.MINUTE, 1.0));
            assertEquals(TaskPlan.Outcome.DUPLICATE, send(plan, 6, T0 + 2 * Durations.HOUR, 1.0),
                    "late by 30 minutes, but within the horizon");
            assertEquals(TaskPlan.Outcome.LATE, send(plan, 5, T0 + 21 * Durations.SECOND, 0.5),
                    "left the horizon with event 1");
        } finally {
            plan.close();
        }
    }
}
