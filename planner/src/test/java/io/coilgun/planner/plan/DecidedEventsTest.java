package io.coilgun.planner.plan;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.coilgun.planner.agg.Results;
import io.coilgun.planner.event.EventCodec;
import io.coilgun.planner.model.LatePolicy;
import io.coilgun.planner.model.StreamDef;
import io.coilgun.storage.reservoir.ChunkCache;
import io.coilgun.storage.reservoir.ReservoirIO;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A task that applies the events a decider accepted ({@link TaskPlan#processDecided}) reports, for each, exactly
 * what a task that judged the same log itself reports: the same events (duplicates and late ones left out, clamped
 * ones at their clamped time), the same values, across checkpoints and crashes; the last decision applied is
 * checkpointed with the task.
 */
class DecidedEventsTest {
    /** Its own writer thread: DeterminismTest closes its own when its tests end. */
    static final ReservoirIO IO = ReservoirIO.defaults();

    @AfterAll
    static void closeIo() {
        IO.close();
    }

    /** An accepted event as the decider forwards it: its payload with its final time, and the decision's offset. */
    record Decision(long offset, byte[] payload) {
    }

    static StreamDef stream(LatePolicy policy) {
        StreamDef s = TaskPlanOracleTest.STREAM;
        return new StreamDef(s.name(), s.columns(), s.eventTimeIndex(), 0, s.partitionBy(), 1, s.latenessMicros(),
                policy, "");
    }

    static TaskPlan open(Path dir, StreamDef stream) {
        return TaskPlan.open(dir, stream, DeterminismTest.metrics(), IO, new ChunkCache(4, 1 << 20));
    }

    /** A log with disorder beyond the lateness and retries of earlier ids. */
    static List<byte[]> log(long seed, int n) {
        List<byte[]> log = DeterminismTest.log(seed, n);
        Random rnd = new Random(seed);
        for (int i = 0; i < n / 20; i++) {
            int at = 1 + rnd.nextInt(log.size() - 1);
            log.add(at, log.get(rnd.nextInt(at))); // a client's retry
        }
        return log;
    }

    /** Judges the log as one task does, keeping what it accepted (as forwarded) and the values it reported. */
    static List<Object[]> decide(Path dir, StreamDef stream, List<byte[]> log, List<Decision> decided) {
        EventCodec codec = new EventCodec(stream);
        List<Object[]> values = new ArrayList<>();
        try (TaskPlan plan = open(dir, stream)) {
            for (int i = 0; i < log.size(); i++) {
                Object[] out = new Object[plan.resultWidth()];
                if (plan.process(log.get(i), i, out) == TaskPlan.Outcome.APPLIED) {
                    decided.add(new Decision(i, codec.encode(plan.lastEvent(), plan.assignedId())));
                    values.add(out);
                }
            }
        }
        return values;
    }

    @Test
    void aTaskApplyingDecisionsReportsWhatTheTaskThatDecidedReports(@TempDir Path dir) {
        for (LatePolicy policy : LatePolicy.values()) {
            StreamDef stream = stream(policy);
            List<Decision> decided = new ArrayList<>();
            List<Object[]> expected = decide(dir.resolve("decider-" + policy), stream, log(7, 3000), decided);
            try (TaskPlan plan = open(dir.resolve("applier-" + policy), stream)) {
                Results results = new Results(plan.resultWidth());
                for (int i = 0; i < decided.size(); i++) {
                    // its own offsets are not the decider's: a partitioner topic holds other records too
                    plan.processDecided(decided.get(i).payload(), 10L * i, decided.get(i).offset(), results);
                    Object[] out = new Object[plan.resultWidth()];
                    results.copyTo(0, out, 0);
                    assertArrayEquals(expected.get(i), out, policy + ": decision " + decided.get(i).offset());
                }
                assertEquals(decided.get(decided.size() - 1).offset(), plan.lastDecision());
            }
            // one partition of another partitioner gets only its keys' events: never one behind its horizon, and
            // each group's values are the decider's (a group's results depend on its own events only)
            EventCodec codec = new EventCodec(stream);
            try (TaskPlan plan = open(dir.resolve("partition-" + policy), stream)) {
                Results results = new Results(plan.resultWidth());
                int offset = 0;
                for (int i = 0; i < decided.size(); i++) {
                    Object[] row = new Object[codec.columnCount()];
                    codec.decode(decided.get(i).payload(), row);
                    if (Math.floorMod(row[2].hashCode(), 3) != 0) {
                        continue;
                    }
                    plan.processDecided(decided.get(i).payload(), offset++, decided.get(i).offset(), results);
                    Object[] out = new Object[plan.resultWidth()];
                    results.copyTo(0, out, 0);
                    assertArrayEquals(expected.get(i), out, policy + ": decision " + decided.get(i).offset()
                            + " in one partition");
                }
            }
        }
    }

    @Test
    void theLastDecisionIsCheckpointedAndACrashReappliesWhatFollowsIt(@TempDir Path dir) {
        StreamDef stream = stream(LatePolicy.CLAMP);
        List<Decision> decided = new ArrayList<>();
        List<Object[]> expected = decide(dir.resolve("decider"), stream, log(11, 3000), decided);
        Random rnd = new Random(5);
        Path d = dir.resolve("applier");
        TaskPlan plan = open(d, stream);
        try {
            Results results = new Results(plan.resultWidth());
            int i = 0;
            int crashes = 0;
            while (i < decided.size()) {
                Decision next = decided.get(i);
                if (next.offset() <= plan.lastDecision()) {
                    plan.skip(i); // a decider's re-forward after its failover: applied already, skipped
                } else {
                    plan.processDecided(next.payload(), i, next.offset(), results);
                    Object[] out = new Object[plan.resultWidth()];
                    results.copyTo(0, out, 0);
                    assertArrayEquals(expected.get(i), out, "decision " + next.offset() + " after " + crashes
                            + " crashes");
                }
                i++;
                if (rnd.nextInt(40) == 0) {
                    plan.checkpoint();
                }
                if (rnd.nextInt(250) == 0) {
                    plan.close(); // a crash: what follows the checkpoint is delivered again
                    plan = open(d, stream);
                    crashes++;
                    long resumed = plan.nextOffset();
                    assertEquals(resumed == 0 ? -1 : decided.get((int) resumed - 1).offset(), plan.lastDecision());
                    i = (int) resumed;
                }
            }
        } finally {
            plan.close();
        }
    }

    @Test
    void aDecisionAppliedAlreadyOrBehindTheHorizonIsRefusedAndChangesNothing(@TempDir Path dir) {
        StreamDef stream = stream(LatePolicy.REJECT);
        EventCodec codec = new EventCodec(stream);
        try (TaskPlan plan = open(dir, stream)) {
            Results results = new Results(plan.resultWidth());
            long t0 = DeterminismTest.T0;
            plan.processDecided(codec.encode(new Object[] {1L, t0 + 60_000_000L, "c1", 5.0, 1L}, 0), 0, 4, results);
            byte[] again = codec.encode(new Object[] {2L, t0 + 61_000_000L, "c1", 5.0, 1L}, 0);
            assertThrows(IllegalArgumentException.class, () -> plan.processDecided(again, 1, 4, results));
            byte[] behind = codec.encode(new Object[] {3L, t0, "c1", 5.0, 1L}, 0); // a minute behind, lateness 10 s
            assertThrows(IllegalStateException.class, () -> plan.processDecided(behind, 1, 5, results));
            assertEquals(4, plan.lastDecision());
            assertEquals(1, plan.nextOffset(), "nothing applied after the first");
        }
    }
}
