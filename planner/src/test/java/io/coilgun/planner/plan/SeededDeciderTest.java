package io.coilgun.planner.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coilgun.planner.event.EventCodec;
import io.coilgun.planner.model.ColumnType;
import io.coilgun.planner.model.Durations;
import io.coilgun.planner.model.LatePolicy;
import io.coilgun.planner.model.StreamColumn;
import io.coilgun.planner.model.StreamDef;
import io.coilgun.storage.reservoir.ChunkCache;
import io.coilgun.storage.reservoir.ReservoirIO;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import net.jqwik.api.lifecycle.AfterContainer;

/**
 * A stream partitioned by one field gains a decider ({@code ALTER STREAM … ADD PARTITION BY}): its tasks judged
 * their own events, each against its own stream time, then stop at their cut ({@link TaskPlan#cut}) and hand their
 * histories over; the decider takes them merged in time order ({@link TaskPlan#processSeeded}) and from then on judges
 * every event as docs/sql.md says of one stream: duplicate iff its id was accepted (by any task before, or by it)
 * with a newest time after {@code S - dedup_horizon}, late against {@code S}, the largest time any task accepted.
 * Random streams (disorder within and beyond the lateness, retries soon after and around the horizon, ids reused
 * long after, NULL ids, every late_events policy), a restart of the decider in the middle of the history and of what
 * follows; every outcome against that model, and every id it knows probed at the end.
 */
class SeededDeciderTest {
    static final long T0 = 1_700_000_000_000_000L;
    static final long LATENESS = 5 * Durations.SECOND;
    static final long HORIZON = 40 * Durations.SECOND;
    static final int TASKS = 3;

    private static ReservoirIO io;

    static synchronized ReservoirIO io() {
        if (io == null) {
            io = ReservoirIO.defaults();
        }
        return io;
    }

    @AfterContainer
    static synchronized void closeIo() throws IOException {
        if (io != null) {
            io.close();
            io = null;
        }
    }

    static StreamDef stream(LatePolicy policy, boolean decided) {
        List<StreamColumn> columns = List.of(new StreamColumn("id", ColumnType.BIGINT, true),
                new StreamColumn("ts", ColumnType.TIMESTAMP, false),
                new StreamColumn("card", ColumnType.VARCHAR, false),
                new StreamColumn("shop", ColumnType.VARCHAR, false));
        return new StreamDef("pay", columns, 1, 0, decided ? List.of("card", "shop") : List.of("card"), TASKS,
                LATENESS, policy, "", List.of(columns.size()), Durations.DAY, HORIZON, 1);
    }

    /** The stream as one: its time is the largest accepted, an id's the time of its newest accepted event. */
    static final class Model {
        long streamTime = TaskPlan.NO_TIME;
        final Map<Long, Long> newest = new HashMap<>();
        final LatePolicy policy;

        Model(LatePolicy policy) {
            this.policy = policy;
        }

        /** The outcome of an event at {@code t}, and its final time in {@code time[0]} when accepted. */
        TaskPlan.Outcome apply(Long id, long t, long[] time) {
            Long prev = id == null ? null : newest.get(id);
            if (prev != null && prev > streamTime - HORIZON) {
                return TaskPlan.Outcome.DUPLICATE;
            }
            if (streamTime != TaskPlan.NO_TIME && t < streamTime - LATENESS) {
                if (policy != LatePolicy.CLAMP) {
                    return policy == LatePolicy.DROP ? TaskPlan.Outcome.DROPPED : TaskPlan.Outcome.LATE;
                }
                t = streamTime - LATENESS;
            }
            accepted(id, t);
            time[0] = t;
            return TaskPlan.Outcome.APPLIED;
        }

        void accepted(Long id, long t) {
            if (id != null) {
                newest.merge(id, t, Math::max);
            }
            streamTime = streamTime == TaskPlan.NO_TIME ? t : Math.max(streamTime, t);
        }
    }

    private record Held(long time, int task, byte[] payload) {
    }

    @Property(tries = 12)
    void theDeciderJudgesAsTheWholeStreamFromItsTasksHistories(@ForAll @IntRange(min = 0, max = 2) int policyIndex,
            @ForAll @LongRange(min = 1, max = 1_000_000) long seed) throws IOException {
        LatePolicy policy = LatePolicy.values()[policyIndex];
        StreamDef oneKey = stream(policy, false);
        StreamDef decided = stream(policy, true);
        EventCodec codec = new EventCodec(oneKey);
        Random rnd = new Random(seed);
        String where = policy + ", seed " + seed;
        Path root = Files.createTempDirectory("seeded");
        List<TaskPlan> tasks = new ArrayList<>();
        TaskPlan decider = null;
        try {
            for (int p = 0; p < TASKS; p++) {
                tasks.add(open(root.resolve("card-" + p), oneKey));
            }
            // 1. each task judges the events of its cards against its own stream time; the model of the whole
            // stream takes what they accepted
            Model whole = new Model(policy);
            List<Long> ids = new ArrayList<>();
            long clock = T0;
            long[] offsets = new long[TASKS];
            Object[] decoded = new Object[4];
            Object[] results = new Object[0];
            for (int i = 0; i < 1500; i++) {
                Object[] row = event(rnd, ids, clock);
                clock = Math.max(clock, (Long) row[1]);
                int task = Math.floorMod(row[2].hashCode(), TASKS);
                TaskPlan plan = tasks.get(task);
                TaskPlan.Outcome outcome = plan.process(codec.encode(row, 0), offsets[task]++, decoded, results);
                if (outcome == TaskPlan.Outcome.APPLIED) {
                    Object[] accepted = new Object[4];
                    codec.decode(plan.acceptedPayload(), accepted);
                    whole.accepted((Long) accepted[0], (Long) accepted[1]);
                }
            }
            // 2. the cut: each task's history, merged in time order (ties to the lower task), into the decider
            PriorityQueue<Held> merged = new PriorityQueue<>(Comparator.comparingLong(Held::time)
                    .thenComparingInt(Held::task));
            for (int p = 0; p < TASKS; p++) {
                TaskPlan plan = tasks.get(p);
                plan.cut();
                assertTrue(plan.isCut());
                List<Held> history = new ArrayList<>();
                int task = p;
                var cursor = plan.reservoir().history(Long.MIN_VALUE);
                while (!cursor.done()) {
                    cursor.step((seq, time, schema, data, off, len) -> history.add(new Held(time, task,
                            Arrays.copyOfRange(data, off, off + len))));
                }
                for (int k = 1; k < history.size(); k++) {
                    assertTrue(history.get(k - 1).time() <= history.get(k).time(), where + ": a task's history is "
                            + "in time order");
                }
                merged.addAll(history);
            }
            decider = openDecider(root.resolve("decider"), decided);
            long offset = 0;
            int half = merged.size() / 2;
            while (!merged.isEmpty()) {
                decider.processSeeded(merged.poll().payload(), offset++);
                if (offset == half) {
                    decider.checkpoint();
                    decider.close();
                    decider = openDecider(root.resolve("decider"), decided);
                    assertEquals(offset, decider.nextOffset(), where + ": the history resumes after a restart");
                }
            }
            long max = TaskPlan.NO_TIME;
            for (TaskPlan t : tasks) {
                max = Math.max(max, t.streamTime());
            }
            assertEquals(max, decider.streamTime(), where + ": the decider's stream time is the largest of its tasks'");
            assertEquals(whole.streamTime, decider.streamTime(), where);
            probe(decider, whole, codec, ids, where + ", after the history");
            // 3. the decider judges what comes next as one stream: retries of what the tasks accepted included
            int judgedBefore = ids.size();
            int retriesOfBefore = 0;
            for (int i = 0; i < 1500; i++) {
                Object[] row = event(rnd, ids, clock);
                clock = Math.max(clock, (Long) row[1]);
                long[] time = new long[1];
                TaskPlan.Outcome expected = whole.apply((Long) row[0], (Long) row[1], time);
                TaskPlan.Outcome outcome = decider.process(codec.encode(row, 0), offset++, decoded, results);
                assertEquals(expected, outcome, where + ": event " + i + " after the history: " + Arrays.asList(row));
                if (outcome == TaskPlan.Outcome.DUPLICATE && (Long) row[0] < judgedBefore) {
                    retriesOfBefore++;
                }
                if (rnd.nextInt(400) == 0) {
                    decider.checkpoint();
                    decider.close();
                    decider = openDecider(root.resolve("decider"), decided);
                }
            }
            probe(decider, whole, codec, ids, where + ", at the end");
            assertTrue(retriesOfBefore > 0, where + ": retries of events the tasks accepted were duplicates");
        } finally {
            for (TaskPlan t : tasks) {
                t.close();
            }
            if (decider != null) {
                decider.close();
            }
            deleteTree(root);
        }
    }

    /**
     * An event: a new id (most), a retry of a recent id at its time or a new one, an id of long ago, or a NULL id;
     * times a few ms apart, one in three out of order within the lateness, one in fifteen beyond it; eight cards.
     */
    private static Object[] event(Random rnd, List<Long> ids, long clock) {
        long t = clock + rnd.nextInt(60) * 1_000L;
        int r = rnd.nextInt(100);
        if (r < 30) {
            t -= (long) (rnd.nextDouble() * LATENESS);
        } else if (r < 37) {
            t -= LATENESS + (long) (rnd.nextDouble() * 3 * LATENESS);
        }
        int k = rnd.nextInt(100);
        Long id;
        if (k < 60 || ids.isEmpty()) {
            id = (long) ids.size();
            ids.add(id);
        } else if (k < 85) {
            id = ids.get(ids.size() - 1 - rnd.nextInt(Math.min(ids.size(), 200)));
        } else if (k < 95) {
            id = ids.get(rnd.nextInt(ids.size()));
        } else {
            id = null;
        }
        // a retry keeps its card (the same row again): the card is the id's
        String card = "c" + (id == null ? rnd.nextInt(8) : Math.floorMod(id * 31, 8));
        return new Object[] {id, t, card, "s" + rnd.nextInt(5)};
    }

    /** Every id the model knows (and a few never used) asked of the decider, changing nothing. */
    private static void probe(TaskPlan decider, Model whole, EventCodec codec, List<Long> ids, String where) {
        for (long id = 0; id < ids.size() + 5; id++) {
            Long newest = whole.newest.get(id);
            boolean duplicate = newest != null && newest > whole.streamTime - HORIZON;
            byte[] payload = codec.encode(new Object[] {id, whole.streamTime, "c" + Math.floorMod(id * 31, 8), "s"}, 0);
            assertEquals(duplicate, decider.isDuplicate(payload), where + ": id " + id + " (newest accepted "
                    + newest + ", stream time " + whole.streamTime + ")");
        }
    }

    private static TaskPlan open(Path dir, StreamDef stream) {
        return TaskPlan.open(dir, stream, List.of(), io(), new ChunkCache(8, 1 << 20));
    }

    private static TaskPlan openDecider(Path dir, StreamDef stream) {
        TaskPlan plan = open(dir, stream);
        plan.decider();
        return plan;
    }

    private static void deleteTree(Path dir) throws IOException {
        try (var walk = Files.walk(dir)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
