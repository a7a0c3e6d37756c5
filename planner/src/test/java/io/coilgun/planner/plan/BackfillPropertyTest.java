package io.coilgun.planner.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coilgun.planner.event.EventCodec;
import io.coilgun.planner.event.GroupKeys;
import io.coilgun.planner.model.Durations;
import io.coilgun.planner.model.MetricDef;
import io.coilgun.planner.model.StreamDef;
import io.coilgun.planner.model.WindowSpec;
import io.coilgun.planner.oracle.SpecOracle;
import io.coilgun.planner.oracle.Window;
import io.coilgun.storage.reservoir.ChunkCache;
import io.coilgun.storage.reservoir.ReservoirIO;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import net.jqwik.api.lifecycle.AfterContainer;

/**
 * {@code CREATE METRIC … WITH (backfill = …)} against the shared {@link SpecOracle}: a task applies a random stream
 * (many keys, out-of-order events within the lateness, late ones), a metric starts in the middle with a backfill span,
 * and from the moment it is live every value it reports equals the oracle's over the events it counts (those of the
 * span already accepted, then every event after its start), in the order the task accepted them. The backfill runs in
 * slices between live events, across clean restarts and crashes (reopened at the last checkpoint, the records after
 * it applied again, as Kafka would redeliver them).
 */
class BackfillPropertyTest {
    static final ReservoirIO IO = ReservoirIO.defaults();
    static final long LATENESS = WindowSemanticsPropertyTest.LATENESS;
    static final long T0 = WindowSemanticsPropertyTest.T0;

    /** The oracle tests' stream, keeping 30 days of history beyond its windows: what a backfill reads. */
    static final StreamDef STREAM = withHorizon(TaskPlanOracleTest.STREAM, 30 * Durations.DAY);

    static StreamDef withHorizon(StreamDef s, long horizon) {
        return new StreamDef(s.name(), s.columns(), s.eventTimeIndex(), s.eventIdIndex(),
                s.partitionBy(), s.partitions(), s.latenessMicros(), s.latePolicy(), s.ddl(),
                s.schemaWidths(), horizon, s.dedupHorizonMicros(), s.replicas());
    }

    @AfterContainer
    static void closeIo() {
        IO.close();
    }

    static MetricDef withBackfill(MetricDef m, long span) {
        return new MetricDef(m.name(), m.stream(), m.aggregations(), m.groupBy(), m.partitioner(), m.window(),
                m.ddl(), m.filter(), span);
    }

    @Property(tries = 40)
    void aBackfilledMetricReportsWhatItWouldHaveHadItRunFromTheSpansStart(
            @ForAll @IntRange(min = 0, max = 2) int kindIndex, @ForAll @IntRange(min = 1, max = 120) int sizeSeconds,
            @ForAll @IntRange(min = 0, max = 3) int delayChoice, @ForAll @IntRange(min = 0, max = 3) int spanChoice,
            @ForAll @IntRange(min = 1, max = 30) int groups, @ForAll @LongRange(min = 1, max = 1_000_000) long seed)
            throws IOException {
        Window.Kind kind = Window.Kind.values()[kindIndex];
        long size = sizeSeconds * Durations.SECOND;
        long delay = new long[] {0, 3 * Durations.SECOND, LATENESS, 45 * Durations.SECOND}[delayChoice];
        long span = new long[] {30 * Durations.SECOND, 10 * Durations.MINUTE, Durations.DAY,
            MetricDef.BACKFILL_ALL}[spanChoice];
        // the fill writes its held group states a few at a time before it goes live, as it would thousands
        System.setProperty(MetricBackfill.FLUSH_ROWS_PROPERTY, String.valueOf(1 + seed % 4));
        try {
            run(kind, size, delay, span, groups, seed, 1500, 2 * Durations.SECOND);
        } finally {
            System.clearProperty(MetricBackfill.FLUSH_ROWS_PROPERTY);
        }
    }

    /**
     * A day-long window over a long history: the backfill reads chunks back from disk, in many slices, and its scratch
     * reservoir, held to a few KiB of memory, writes its oldest chunks and reads them back.
     */
    @Property(tries = 3)
    void longHistoryIsReadFromDisk(@ForAll @IntRange(min = 0, max = 2) int kindIndex,
            @ForAll @LongRange(min = 1, max = 1_000_000) long seed) throws IOException {
        Window.Kind kind = Window.Kind.values()[kindIndex];
        System.setProperty(MetricBackfill.SCRATCH_MEMORY_PROPERTY, "8192");
        try {
            run(kind, Durations.DAY, 7 * Durations.SECOND, MetricDef.BACKFILL_ALL, 5, seed, 12_000,
                    40 * Durations.SECOND);
        } finally {
            System.clearProperty(MetricBackfill.SCRATCH_MEMORY_PROPERTY);
        }
    }

    /**
     * REPLAY: a metric definition over a task's stored history, between two times, while live events keep coming.
     * Each row is an event the task had accepted with {@code from <= t <= to}, in the order it accepted them, and the
     * oracle's values over exactly those events.
     */
    @Property(tries = 25)
    void aReplayGivesWhatAMetricCountingThoseEventsWouldHaveGiven(@ForAll @IntRange(min = 0, max = 2) int kindIndex,
            @ForAll @IntRange(min = 1, max = 120) int sizeSeconds, @ForAll @IntRange(min = 0, max = 3) int delayChoice,
            @ForAll @IntRange(min = 1, max = 30) int groups, @ForAll @LongRange(min = 1, max = 1_000_000) long seed)
            throws IOException {
        Window.Kind kind = Window.Kind.values()[kindIndex];
        long size = sizeSeconds * Durations.SECOND;
        long delay = new long[] {0, 3 * Durations.SECOND, LATENESS, 45 * Durations.SECOND}[delayChoice];
        WindowSpec window = new WindowSpec(WindowSpec.Kind.valueOf(kind.name()),
                kind == Window.Kind.INFINITE ? 0 : size, delay);
        String where = "replay " + kind + " size " + Durations.format(size) + " delay " + Durations.format(delay)
                + " groups " + groups + " seed " + seed;
        Path dir = Files.createTempDirectory("replay");
        Random rnd = new Random(seed);
        EventCodec codec = new EventCodec(STREAM);
        MetricDef running = withBackfill(WindowSemanticsPropertyTest.metric(window), 0);
        MetricDef replayed = WindowSemanticsPropertyTest.metric(window);
        TaskPlan plan = TaskPlan.open(dir, STREAM, List.of(running), IO, new ChunkCache(2, 1 << 20));
        List<Payment> accepted = new ArrayList<>();
        long streamTime = Long.MIN_VALUE;
        long clock = T0;
        Object[] decoded = new Object[5];
        Object[] results = new Object[16];
        int events = 1500;
        int replayAt = events / 2 + rnd.nextInt(events / 2);
        MetricReplay replay = null;
        long from = 0;
        long to = 0;
        List<Object[]> rows = new ArrayList<>();
        try {
            for (int i = 0; i < events; i++) {
                clock += (long) (rnd.nextDouble() * 4 * Durations.SECOND);
                long t = clock - (rnd.nextInt(4) == 0 ? (long) (rnd.nextDouble() * 12 * Durations.SECOND) : 0);
                String card = "c" + (int) (groups * Math.pow(rnd.nextDouble(), 2));
                Double amount = rnd.nextInt(8) == 0 ? null : Math.round(rnd.nextDouble() * 1000_00) / 100.0;
                long qty = rnd.nextInt(7) - 2;
                Payment p = new Payment(i, t, card, amount, qty);
                TaskPlan.Outcome outcome = plan.process(codec.encode(p.row(), 0), i, decoded, results);
                if (outcome == TaskPlan.Outcome.APPLIED) {
                    accepted.add(p);
                    streamTime = Math.max(streamTime, t);
                }
                if (i == replayAt) {
                    long span = streamTime - T0;
                    from = T0 + (long) (rnd.nextDouble() * span / 2);
                    to = rnd.nextBoolean() ? Long.MAX_VALUE : from + (long) (rnd.nextDouble() * span);
                    replay = plan.replay(replayed, from, to, "r1");
                }
                if (replay != null && rnd.nextInt(3) == 0) {
                    plan.backfillStep(System.nanoTime() + (rnd.nextInt(6) == 0 ? 2_000_000 : 0));
                    drain(replay, rows);
                }
                if (rnd.nextInt(300) == 0) {
                    plan.checkpoint();
                }
            }
            while (!replay.ended()) {
                plan.backfillStep(System.nanoTime() + 1_000_000);
                drain(replay, rows);
            }
            // the oracle: the events accepted before the replay began, with from <= t <= to, in order
            SpecOracle<Payment> oracle = Payment.oracle(kind, size, delay);
            List<Object[]> expected = new ArrayList<>();
            for (Payment e : accepted) {
                if (e.id() <= replayAt && e.time() >= from && e.time() <= to) {
                    expected.add(new Object[] {e, WindowSemanticsPropertyTest.expected(oracle.accept(e))});
                }
            }
            assertEquals(expected.size(), rows.size(), where + ": rows");
            for (int k = 0; k < rows.size(); k++) {
                Payment e = (Payment) expected.get(k)[0];
                Object[] row = rows.get(k);
                assertEquals(e.id(), row[0], where + ": row " + k + " is event " + e.id());
                assertEquals(e.time(), row[1], where + ": row " + k + " time");
                WindowSemanticsPropertyTest.compare(Arrays.copyOfRange((Object[]) expected.get(k)[1], 0, 12),
                        Arrays.copyOfRange(row, 5, 17), where + " row " + k + " (event " + e.id() + ")");
            }
            assertEquals(List.of(), listFiles(dir.resolve("replay")), where + ": scratch data deleted");
        } finally {
            plan.close();
            MetricBackfill.deleteTree(dir);
        }
    }

    private static void drain(MetricReplay replay, List<Object[]> rows) {
        Object[] row;
        while ((row = replay.poll()) != null) {
            rows.add(row);
        }
    }

    /** One record of the partition: an event, or the metrics' start marker (null payload). */
    record Rec(long offset, byte[] payload, Payment event) {
    }

    void run(Window.Kind kind, long size, long delay, long span, int groups, long seed, int events, long meanGap)
            throws IOException {
        Path dir = Files.createTempDirectory("backfill");
        String where = kind + " size " + Durations.format(size) + " delay " + Durations.format(delay) + " span "
                + (span == MetricDef.BACKFILL_ALL ? "all" : Durations.format(span)) + " groups " + groups + " seed "
                + seed;
        Random rnd = new Random(seed);
        WindowSpec window = new WindowSpec(WindowSpec.Kind.valueOf(kind.name()),
                kind == Window.Kind.INFINITE ? 0 : size, delay);
        MetricDef m = withBackfill(WindowSemanticsPropertyTest.metric(window), span);
        MetricDef f = withBackfill(WindowSemanticsPropertyTest.filtered(window), span);
        List<MetricDef> defined;
        EventCodec codec = new EventCodec(STREAM);

        // The partition: events, with the start marker somewhere in the middle.
        int markerAt = events / 4 + rnd.nextInt(events / 2);
        List<Rec> partition = new ArrayList<>();
        long clock = T0;
        for (int i = 0; i < events; i++) {
            if (i == markerAt) {
                partition.add(new Rec(partition.size(), null, null));
            }
            clock += (long) (rnd.nextDouble() * 2 * meanGap);
            long t = clock - (rnd.nextInt(4) == 0 ? (long) (rnd.nextDouble() * 12 * Durations.SECOND) : 0);
            String card = "c" + (int) (groups * Math.pow(rnd.nextDouble(), 2));
            Double amount = rnd.nextInt(8) == 0 ? null : Math.round(rnd.nextDouble() * 1000_00) / 100.0;
            long qty = rnd.nextInt(7) - 2;
            long offset = partition.size();
            Payment p = new Payment(offset, t, card, amount, qty);
            partition.add(new Rec(offset, codec.encode(p.row(), 0), p));
        }

        // What the metrics must report for each event they count: the oracle over the counted events, in order.
        SpecOracle<Payment> oracle = Payment.oracle(kind, size, delay);
        Map<Long, Object[]> expected = new HashMap<>();
        long streamTime = Long.MIN_VALUE;
        long countedFrom = Long.MAX_VALUE;
        boolean started = false;
        List<Payment> history = new ArrayList<>();
        for (Rec r : partition) {
            if (r.payload() == null) {
                started = true;
                countedFrom = span == MetricDef.BACKFILL_ALL ? Long.MIN_VALUE : streamTime - span + 1;
                for (Payment e : history) {
                    if (e.time() >= countedFrom) {
                        oracle.accept(e);
                    }
                }
                continue;
            }
            Payment e = r.event();
            if (streamTime != Long.MIN_VALUE && e.time() < streamTime - LATENESS) {
                continue; // late: rejected by the task, counted nowhere
            }
            streamTime = Math.max(streamTime, e.time());
            if (!started) {
                history.add(e);
            } else {
                expected.put(r.offset(), WindowSemanticsPropertyTest.expected(oracle.accept(e)));
            }
        }

        // a metric that ran from the start, with the same window: its iterators are the ones the backfilled metrics
        // join when they go live
        MetricDef running = new MetricDef("r", m.stream(), m.aggregations(), m.groupBy(), m.partitioner(), m.window(),
                "", null);
        TaskPlan first = TaskPlan.open(dir, STREAM, List.of(running), IO, new ChunkCache(2, 1 << 20));
        first.checkpoint();
        first.close();
        defined = List.of(running, m, f);
        TaskPlan plan = TaskPlan.open(dir, STREAM, defined, IO, new ChunkCache(2, 1 << 20), true);
        Object[] decoded = new Object[5];
        Object[] results = new Object[40];
        int compared = 0;
        try {
            int i = 0;
            while (i < partition.size()) {
                Rec r = partition.get(i);
                if (r.offset() < plan.nextOffset()) {
                    i++;
                    continue;
                }
                if (r.payload() == null) {
                    plan.skip(r.offset());
                    if (!plan.backfilling(m.name()) && plan.operator(m.name()) == null) {
                        plan.startBackfill(m);
                        plan.startBackfill(f);
                    }
                    plan.checkpoint();
                } else {
                    TaskPlan.Outcome outcome = plan.process(r.payload(), r.offset(), decoded, results);
                    Object[] want = expected.get(r.offset());
                    if (outcome == TaskPlan.Outcome.APPLIED) {
                        compared += compare(plan, want, results, where + " offset " + r.offset());
                    }
                }
                i++;
                if (i == partition.size() * 9 / 10) {
                    // however slow the machine (the slices are timed): the last tenth of the events is compared with
                    // the metrics live, whatever the slices had done by then
                    while (plan.hasBackfillWork()) {
                        plan.backfillStep(System.nanoTime() + 1_000_000);
                    }
                }
                if (plan.hasBackfillWork() && rnd.nextInt(3) == 0) {
                    // a slice: one chunk or one event, or a few milliseconds' worth (often enough for the slowest
                    // fills, 50 µs an event, to catch up before the stream ends: one second TUMBLING windows with
                    // COUNT(DISTINCT) delete a range of rows per bucket)
                    plan.backfillStep(System.nanoTime() + (rnd.nextInt(2) == 0 ? 2_000_000 : 0));
                }
                if (rnd.nextInt(300) == 0) {
                    plan.checkpoint();
                }
                int restart = rnd.nextInt(900);
                if (restart == 0) {
                    plan.checkpoint();
                    plan.close();
                    plan = TaskPlan.open(dir, STREAM, defined, IO, new ChunkCache(2, 1 << 20), true);
                } else if (restart == 1) {
                    plan.close(); // a crash: what followed the last checkpoint is applied again
                    plan = TaskPlan.open(dir, STREAM, defined, IO, new ChunkCache(2, 1 << 20), true);
                    i = 0;
                }
            }
            while (plan.hasBackfillWork()) {
                plan.backfillStep(System.nanoTime() + 1_000_000);
            }
            assertFalse(plan.backfilling(m.name()), where);
            // every group's current value (SELECT over the metric): as if its clock were the stream time
            long now = plan.streamTime();
            int groupsRead = 0;
            for (String group : oracle.groups()) {
                Object[] got = new Object[12];
                if (plan.operator(m.name()).current(GroupKeys.encodeOne(group), now, got, 0)) {
                    Object[] want = WindowSemanticsPropertyTest.expected(oracle.at(group, now));
                    WindowSemanticsPropertyTest.compare(Arrays.copyOfRange(want, 0, 12), got,
                            where + " current value of " + group);
                    groupsRead++;
                }
            }
            assertTrue(groupsRead > 0 || oracle.groups().isEmpty(), where + ": current values read");
            assertTrue(plan.operator(m.name()) != null && plan.operator(f.name()) != null, where + ": both live");
            assertTrue(compared > 0 || expected.isEmpty(), where + ": values were compared; marker at " + markerAt
                    + ", live " + plan.metrics().stream().map(MetricDef::name).toList());
            assertEquals(List.of(), listFiles(dir.resolve("backfill")), where + ": scratch reservoirs deleted");
        } finally {
            plan.close();
            MetricBackfill.deleteTree(dir);
        }
    }

    /** Compares what each live backfilled metric reported with the oracle's values; how many metrics it compared. */
    static int compare(TaskPlan plan, Object[] want, Object[] results, String where) {
        int at = 0;
        int compared = 0;
        for (MetricDef d : plan.metrics()) {
            int n = d.aggregations().size();
            if (d.name().equals("m")) {
                WindowSemanticsPropertyTest.compare(Arrays.copyOfRange(want, 0, 12), Arrays.copyOfRange(results, at,
                        at + n), where + " metric m");
                compared++;
            } else if (d.name().equals("f")) {
                Object[] got = Arrays.copyOfRange(results, at, at + n);
                Object[] exp = Arrays.copyOfRange(want, 12, 14);
                for (int k = 0; k < 2; k++) {
                    if (exp[k] == null) {
                        assertNull(got[k], where + " metric f " + k);
                    } else {
                        assertEquals(((Number) exp[k]).longValue(), ((Number) got[k]).longValue(),
                                where + " metric f " + k);
                    }
                }
                compared++;
            }
            at += n;
        }
        return compared;
    }

    /** What is left in {@code dir} once the scratch deleter (a background thread) is done with it, at most 30 s on. */
    static List<Path> listFiles(Path dir) throws IOException {
        return listFilesEventually(dir, 0);
    }

    /** What is in {@code dir} once at most {@code expected} entries are left, or after 30 s. */
    static List<Path> listFilesEventually(Path dir, int expected) throws IOException {
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (true) {
            List<Path> left = List.of();
            if (Files.exists(dir)) {
                try (var s = Files.list(dir)) {
                    left = s.toList();
                } catch (NoSuchFileException vanished) {
                    left = List.of();
                }
            }
            if (left.size() <= expected || System.nanoTime() > deadline) {
                return left;
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return left;
            }
        }
    }
}
