package io.coilgun.planner.plan;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coilgun.planner.event.EventCodec;
import io.coilgun.planner.event.GroupKeys;
import io.coilgun.planner.model.Durations;
import io.coilgun.planner.model.MetricDef;
import io.coilgun.planner.model.WindowSpec;
import io.coilgun.storage.reservoir.ChunkCache;
import io.coilgun.storage.reservoir.ReservoirIO;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * docs/sql.md's determinism: the same input log gives identical results (bit for bit) when replayed from scratch,
 * after crashes in the middle (state and reservoir dropped back to the last checkpoint, the rest replayed), and
 * with 1 or 8 partitions for every event that is not late in either. Out-of-order events within the lateness
 * included; several metrics of every window kind, one with a filter and an expression argument.
 */
class DeterminismTest {
    static final ReservoirIO IO = ReservoirIO.defaults();
    static final long T0 = 1_700_000_000_000_000L;

    @AfterAll
    static void closeIo() {
        IO.close();
    }

    static List<MetricDef> metrics() {
        List<MetricDef> out = new ArrayList<>();
        WindowSpec[] windows = {
            new WindowSpec(WindowSpec.Kind.SLIDING, 30 * Durations.SECOND, 0),
            new WindowSpec(WindowSpec.Kind.SLIDING, 5 * Durations.SECOND, 3 * Durations.SECOND),
            new WindowSpec(WindowSpec.Kind.TUMBLING, Durations.MINUTE, 0),
            new WindowSpec(WindowSpec.Kind.TUMBLING, 20 * Durations.SECOND, 12 * Durations.SECOND),
            new WindowSpec(WindowSpec.Kind.INFINITE, 0, 4 * Durations.SECOND)};
        for (int i = 0; i < windows.length; i++) {
            MetricDef m = WindowSemanticsPropertyTest.metric(windows[i]);
            out.add(new MetricDef("m" + i, m.stream(), m.aggregations(), m.groupBy(), m.partitioner(), m.window(),
                    ""));
        }
        MetricDef f = WindowSemanticsPropertyTest.filtered(windows[1]);
        out.add(new MetricDef("f", f.stream(), f.aggregations(), f.groupBy(), f.partitioner(), f.window(), "",
                f.filter()));
        return out;
    }

    /** The input log: payloads in arrival order. */
    static List<byte[]> log(long seed, int n) {
        return log(seed, n, 12 * Durations.SECOND);
    }

    /** A quarter of the events are up to {@code maxDisorder} behind (more than the lateness: some are late). */
    static List<byte[]> log(long seed, int n, long maxDisorder) {
        Random rnd = new Random(seed);
        EventCodec codec = new EventCodec(TaskPlanOracleTest.STREAM);
        List<byte[]> log = new ArrayList<>();
        long clock = T0;
        for (int i = 0; i < n; i++) {
            clock += (long) (rnd.nextDouble() * 400_000);
            long t = clock - (rnd.nextInt(4) == 0 ? (long) (rnd.nextDouble() * maxDisorder) : 0);
            String card = "c" + (int) (40 * Math.pow(rnd.nextDouble(), 2));
            Double amount = rnd.nextInt(8) == 0 ? null : Math.round(rnd.nextDouble() * 1000_00) / 100.0;
            log.add(codec.encode(new Object[] {(long) i, t, card, amount, (long) rnd.nextInt(9) - 3}, 0));
        }
        return log;
    }

    static TaskPlan open(Path dir) {
        return TaskPlan.open(dir, TaskPlanOracleTest.STREAM, metrics(), IO, new ChunkCache(4, 1 << 20));
    }

    /** Results per event (null for an event that was not applied), one partition, no crash. */
    static Object[][] run(Path dir, List<byte[]> log) {
        Object[][] results = new Object[log.size()][];
        TaskPlan plan = open(dir);
        try {
            int width = plan.resultWidth();
            for (int i = 0; i < log.size(); i++) {
                Object[] out = new Object[width];
                if (plan.process(log.get(i), i, new Object[5], out) == TaskPlan.Outcome.APPLIED) {
                    results[i] = out;
                }
                if (i % 97 == 0) {
                    plan.checkpoint();
                }
            }
        } finally {
            plan.close();
        }
        return results;
    }

    @Test
    void replayFromScratchIsIdentical(@TempDir Path dir) {
        List<byte[]> log = log(1, 4000);
        Object[][] first = run(dir.resolve("a"), log);
        Object[][] again = run(dir.resolve("b"), log);
        for (int i = 0; i < log.size(); i++) {
            assertArrayEquals(first[i], again[i], "event " + i);
        }
    }

    @Test
    void crashesInTheMiddleChangeNothing(@TempDir Path dir) {
        List<byte[]> log = log(2, 4000);
        Object[][] expected = run(dir.resolve("reference"), log);
        Random rnd = new Random(3);
        Path d = dir.resolve("crashing");
        TaskPlan plan = open(d);
        int crashes = 0;
        try {
            int i = 0;
            while (i < log.size()) {
                Object[] out = new Object[plan.resultWidth()];
                TaskPlan.Outcome outcome = plan.process(log.get(i), i, new Object[5], out);
                assertEquals(expected[i] != null, outcome == TaskPlan.Outcome.APPLIED, "event " + i);
                if (expected[i] != null) {
                    assertArrayEquals(expected[i], out, "event " + i + " after " + crashes + " crashes");
                }
                i++;
                if (rnd.nextInt(50) == 0) {
                    plan.checkpoint();
                }
                if (rnd.nextInt(300) == 0) {
                    // crash: nothing since the last checkpoint is kept; Kafka redelivers from the next offset
                    plan.close();
                    plan = open(d);
                    i = (int) plan.nextOffset();
                    crashes++;
                }
            }
        } finally {
            plan.close();
        }
        assertTrue(crashes > 3, "crashed " + crashes + " times");
    }

    @Test
    void onePartitionOrEightGiveTheSameResults(@TempDir Path dir) {
        // disorder within the lateness: no event is late in either run, so every event is compared
        List<byte[]> log = log(Long.getLong("coilgun.seed", 4), 4000, 9_500_000);
        Object[][] single = run(dir.resolve("one"), log);
        // eight tasks: each event goes to the task of its card, with that task's own offsets
        EventCodec codec = new EventCodec(TaskPlanOracleTest.STREAM);
        TaskPlan[] tasks = new TaskPlan[8];
        long[] offsets = new long[8];
        Map<Integer, Object[]> results = new HashMap<>();
        try {
            for (int p = 0; p < 8; p++) {
                tasks[p] = open(dir.resolve("p" + p));
            }
            Object[] values = new Object[5];
            for (int i = 0; i < log.size(); i++) {
                codec.decode(log.get(i), values);
                int p = Math.floorMod(Arrays.hashCode(GroupKeys.encodeOne(values[2])), 8);
                Object[] out = new Object[tasks[p].resultWidth()];
                if (tasks[p].process(log.get(i), offsets[p]++, new Object[5], out) == TaskPlan.Outcome.APPLIED) {
                    results.put(i, out);
                }
            }
        } finally {
            for (TaskPlan t : tasks) {
                if (t != null) {
                    t.close();
                }
            }
        }
        // Lateness is judged per task: with one partition the task's stream time runs ahead of a card's own, so an
        // event can be late there and not with eight. A group's results depend only on the group's own accepted
        // events, so compare each card up to its first event whose acceptance differs between the two runs.
        java.util.Set<Object> diverged = new java.util.HashSet<>();
        Object[] values = new Object[5];
        int compared = 0;
        for (int i = 0; i < log.size(); i++) {
            codec.decode(log.get(i), values);
            if ((single[i] != null) != results.containsKey(i)) {
                diverged.add(values[2]);
            }
            if (single[i] != null && results.containsKey(i) && !diverged.contains(values[2])) {
                assertArrayEquals(single[i], results.get(i), "event " + i);
                compared++;
            }
        }
        assertEquals(log.size(), compared, "every event compared");
        System.out.println("DeterminismTest: 1 vs 8 partitions, " + compared + " events compared, " + diverged.size()
                + " cards with a late event in one run only");
    }

    /**
     * A task that fails halfway through an event (TestFaults: the reservoir holds it and one metric took it) rolls
     * back to its checkpoint, records the event as failed and replays: every other event's results are those of a
     * run that never had the failed events, also across a reopen (the failed events are skipped from the record).
     */
    @Test
    void aFailedEventRolledBackAndSkippedIsAsIfItNeverCame(@TempDir Path dir) {
        org.junit.jupiter.api.Assumptions.assumeTrue(TestFaults.ENABLED, "needs -Dcoilgun.testFaults=true");
        List<byte[]> log = new ArrayList<>(log(5, 3000));
        EventCodec codec = new EventCodec(TaskPlanOracleTest.STREAM);
        java.util.Set<Integer> failing = new java.util.TreeSet<>(List.of(10, 500, 501, 1700, 2999));
        Object[] values = new Object[5];
        for (int i : failing) {
            codec.decode(log.get(i), values);
            values[2] = TestFaults.FAIL; // its card: the task throws while aggregating it
            log.set(i, codec.encode(values, 0));
        }
        // the reference never applies the failing events
        Object[][] expected = new Object[log.size()][];
        TaskPlan reference = open(dir.resolve("reference"));
        try {
            for (int i = 0; i < log.size(); i++) {
                Object[] out = new Object[reference.resultWidth()];
                if (failing.contains(i)) {
                    reference.skip(i);
                } else if (reference.process(log.get(i), i, new Object[5], out) == TaskPlan.Outcome.APPLIED) {
                    expected[i] = out;
                }
                if (i % 97 == 0) {
                    reference.checkpoint();
                }
            }
        } finally {
            reference.close();
        }
        Path d = dir.resolve("failing");
        TaskPlan plan = open(d);
        int rollbacks = 0;
        try {
            int i = 0;
            while (i < log.size()) {
                if (plan.isFailedEvent(i)) {
                    plan.skip(i++);
                    continue;
                }
                Object[] out = new Object[plan.resultWidth()];
                TaskPlan.Outcome outcome;
                try {
                    outcome = plan.process(log.get(i), i, new Object[5], out);
                } catch (IllegalStateException injected) {
                    assertTrue(failing.contains(i), "event " + i + " failed: " + injected);
                    FailedEvent failed = plan.describe(log.get(i), i, injected.toString(), 0);
                    plan.close(); // no checkpoint: roll back
                    plan = open(d);
                    plan.recordFailedEvent(failed);
                    i = (int) plan.nextOffset();
                    rollbacks++;
                    continue;
                }
                assertEquals(expected[i] != null, outcome == TaskPlan.Outcome.APPLIED, "event " + i);
                if (expected[i] != null) {
                    assertArrayEquals(expected[i], out, "event " + i);
                }
                if (i % 61 == 0) {
                    plan.checkpoint();
                }
                if (i == 2000) { // a restart: the failed events are skipped from the record
                    plan.checkpoint();
                    plan.close();
                    plan = open(d);
                }
                i++;
            }
            assertEquals(failing.size(), rollbacks);
            assertEquals(failing.size(), plan.failedEvents().size());
            assertEquals(String.valueOf(10L), plan.failedEvents().get(0).eventId());
        } finally {
            plan.close();
        }
    }
}
