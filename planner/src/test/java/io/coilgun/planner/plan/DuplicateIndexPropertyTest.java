package io.coilgun.planner.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
import io.coilgun.storage.reservoir.ChunkCache;
import io.coilgun.storage.reservoir.ReservoirIO;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
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
 * The dedup horizon ({@link DuplicateIndex}, {@link RecentIds}) against a brute-force reading of docs/sql.md: an event
 * is a DUPLICATE iff its {@code event_id} was accepted and the newest accepted event with that id has an event time
 * after {@code S - dedup_horizon} ({@code S}: the stream time before the event). That is judged before lateness, so
 * only an event that is not a duplicate can be LATE ({@code t < S - lateness}; policy REJECT: nothing recorded).
 *
 * <p>Random streams at the task level: BIGINT, INTEGER or VARCHAR ids (NULL ids too, never duplicates; VARCHAR ids
 * with non-ASCII and NUL characters, empty and long ones) drawn so that they repeat soon after (retries, at their
 * original time or a new one), around the horizon's edge (an event that moves {@code S} to one microsecond before, at
 * or after {@code t_prev + H}, then a retry) and long after expiry (reuse); times out of order within the lateness,
 * late events, on a grid of 1 µs, 1 ms or 1 s depending on the try (many equal times on the coarse grids); horizons
 * of 20-60 s, or exactly the lateness. Every outcome is checked, and every value of the metric (COUNT(*) and SUM by
 * card over a sliding window, sometimes exactly as long as the horizon so that it shares the expiry iterator).
 * Between events: checkpoints, clean restarts, and crashes (closed without a checkpoint, reopened, the records after
 * the checkpoint processed again as Kafka would redeliver them: each must get its first outcome again). After
 * restarts and at the end, every id the model knows (and a few never used) is probed with {@link TaskPlan#isDuplicate}.
 *
 * <p>{@link #boundedRecentIdsAndIndexReadAtOpen} runs the same streams with {@link DuplicateIndex#MAX_RECENT} or
 * {@link DuplicateIndex#MAX_SCAN_AT_OPEN} a few dozen (their system properties are read once per class loading, so
 * the planner's classes are loaded again for it in a class loader of their own): {@link RecentIds} gives up, or a
 * reopened task leaves most ids of its index out of it, paths the defaults (16 million, 500,000) never reach here.
 */
class DuplicateIndexPropertyTest {
    static final long T0 = 1_700_000_000_000_000L;
    static final long LATENESS = 5 * Durations.SECOND;
    static final int EVENTS = 3000;
    static final ColumnType[] ID_TYPES = {ColumnType.BIGINT, ColumnType.VARCHAR, ColumnType.INTEGER};

    /** Shared by the tries (created on first use: a copy of this class in another class loader is handed it). */
    private static ReservoirIO io;
    /** The planner's classes loaded again with small bounds, by bounds. */
    private static final Map<String, ClassLoader> BOUNDED = new HashMap<>();

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
        for (ClassLoader loader : BOUNDED.values()) {
            ((URLClassLoader) loader).close();
        }
        BOUNDED.clear();
    }

    @Property(tries = 30)
    void duplicatesAreThoseAcceptedWithinTheHorizon(@ForAll @IntRange(min = 0, max = 2) int idType,
            @ForAll @IntRange(min = 20, max = 60) int horizonSeconds,
            @ForAll @IntRange(min = 0, max = 5) int horizonShape, @ForAll @IntRange(min = 0, max = 2) int grid,
            @ForAll @IntRange(min = 0, max = 2) int windowChoice,
            @ForAll @LongRange(min = 1, max = 1_000_000) long seed) throws IOException {
        long horizon = horizon(horizonSeconds, horizonShape);
        run(io(), idType, horizon, new long[] {1, 1_000, Durations.SECOND}[grid], window(windowChoice, horizon), seed,
                "");
    }

    @Property(tries = 10)
    void boundedRecentIdsAndIndexReadAtOpen(@ForAll @IntRange(min = 0, max = 1) int bound,
            @ForAll @IntRange(min = 0, max = 2) int idType, @ForAll @IntRange(min = 20, max = 60) int horizonSeconds,
            @ForAll @IntRange(min = 0, max = 5) int horizonShape, @ForAll @IntRange(min = 0, max = 2) int grid,
            @ForAll @IntRange(min = 0, max = 2) int windowChoice,
            @ForAll @LongRange(min = 1, max = 1_000_000) long seed) throws Throwable {
        long horizon = horizon(horizonSeconds, horizonShape);
        int maxRecent = bound == 0 ? 40 : 16_000_000;
        int maxScanAtOpen = bound == 0 ? 500_000 : 30;
        ClassLoader loader = bounded(maxRecent, maxScanAtOpen);
        Method run = loader.loadClass(DuplicateIndexPropertyTest.class.getName()).getDeclaredMethod("run",
                ReservoirIO.class, int.class, long.class, long.class, long.class, long.class, String.class);
        run.setAccessible(true);
        long[] seen;
        try {
            seen = (long[]) run.invoke(null, io(), idType, horizon, new long[] {1, 1_000, Durations.SECOND}[grid],
                    window(windowChoice, horizon), seed, "RecentIds bound " + maxRecent + ", rows read at open "
                            + maxScanAtOpen + ", ");
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
        if (seen != null) { // what the index's fields said along the way (null: they could not be read)
            assertTrue(bound == 0 ? seen[0] > 0 : seen[1] > 0, "the bounded path was taken: " + seen[0]
                    + " samples saturated, " + seen[1] + " with untracked ids, of " + seen[2] + " (ids "
                    + ID_TYPES[idType] + ", horizon " + horizon + "us, grid " + grid + ", window " + windowChoice
                    + ", seed " + seed + ")");
        }
    }

    static long horizon(int seconds, int shape) {
        // as short as allowed (the lateness) in some tries, else 20-60 s, in whole seconds or not
        return shape == 0 ? LATENESS : seconds * Durations.SECOND + (shape == 1 ? 437_123 : 0);
    }

    static long window(int choice, long horizon) {
        return new long[] {10 * Durations.SECOND, horizon, 2 * horizon + Durations.SECOND}[choice];
    }

    static StreamDef stream(ColumnType idType, long horizon) {
        List<StreamColumn> columns = List.of(new StreamColumn("id", idType, false),
                new StreamColumn("ts", ColumnType.TIMESTAMP, false),
                new StreamColumn("card_id", ColumnType.VARCHAR, false),
                new StreamColumn("amount", ColumnType.DOUBLE, false),
                new StreamColumn("qty", ColumnType.BIGINT, false));
        return new StreamDef("payments", columns, 1, 0, List.of("card_id"), 1, LATENESS, LatePolicy.REJECT, "",
                List.of(columns.size()), 0, horizon, 1);
    }

    static MetricDef metric(long window) {
        return new MetricDef("m", "payments", List.of(
                new AggregationDef(AggregationKind.COUNT_STAR, -1, "n", ColumnType.BIGINT),
                new AggregationDef(AggregationKind.SUM, 4, "qty", ColumnType.BIGINT)),
                List.of(2), "card_id", WindowSpec.sliding(window), "");
    }

    record Ev(long offset, long t, String card, long qty) {
    }

    /** docs/sql.md's dedup and lateness rules, over every record taken so far. */
    static final class Model {
        final long horizon;
        long streamTime = Long.MIN_VALUE;
        boolean any;
        /** Per id: the time of its newest accepted event. */
        final Map<Object, Long> newest = new HashMap<>();
        final List<Ev> accepted = new ArrayList<>();
        final List<Object> acceptedIds = new ArrayList<>();
        /** Per card: the indexes in {@link #accepted} of its events (the brute force reads one card's events). */
        final Map<String, List<Integer>> acceptedOfCard = new HashMap<>();

        Model(long horizon) {
            this.horizon = horizon;
        }

        boolean duplicate(Object id) {
            Long t = id == null ? null : newest.get(id);
            return t != null && t > streamTime - horizon;
        }

        TaskPlan.Outcome apply(Object id, Ev e) {
            if (duplicate(id)) {
                return TaskPlan.Outcome.DUPLICATE;
            }
            if (any && e.t() < streamTime - LATENESS) {
                return TaskPlan.Outcome.LATE;
            }
            if (id != null) {
                newest.put(id, e.t());
            }
            acceptedOfCard.computeIfAbsent(e.card(), c -> new ArrayList<>()).add(accepted.size());
            accepted.add(e);
            acceptedIds.add(id);
            streamTime = any ? Math.max(streamTime, e.t()) : e.t();
            any = true;
            return TaskPlan.Outcome.APPLIED;
        }
    }

    /**
     * The sliding window's COUNT(*) and SUM(qty) of the card of {@code e}, over the first {@code acceptedAfter} events
     * the model accepted (those before {@code e}, and {@code e}).
     */
    static void checkMetric(Model model, int acceptedAfter, Ev e, long window, Object[] results,
            java.util.function.Supplier<String> where) {
        List<Integer> ofCard = model.acceptedOfCard.getOrDefault(e.card(), List.of());
        long clock = Long.MIN_VALUE;
        for (int i = 0; i < ofCard.size() && ofCard.get(i) < acceptedAfter; i++) {
            clock = Math.max(clock, model.accepted.get(ofCard.get(i)).t());
        }
        long n = 0;
        long qty = 0;
        for (int i = 0; i < ofCard.size() && ofCard.get(i) < acceptedAfter; i++) {
            Ev a = model.accepted.get(ofCard.get(i));
            if (a.t() > clock - window && a.t() <= clock) {
                n++;
                qty += a.qty();
            }
        }
        if (!Long.valueOf(n).equals(results[0]) || qty != ((Number) results[1]).longValue()) {
            assertEquals(n, results[0], where.get() + ": COUNT(*) of " + e.card());
            assertEquals(qty, ((Number) results[1]).longValue(), where.get() + ": SUM(qty) of " + e.card());
        }
    }

    /** One record of the partition: its payload and what the model expects of it. */
    record Rec(long offset, byte[] payload, Object id, Ev event, TaskPlan.Outcome expected, int acceptedAfter,
            long streamTimeBefore, Long newestBefore, String kind) {
        @Override
        public String toString() {
            return "#" + offset + " (" + kind + ") id=" + show(id) + " t=" + time(event.t()) + " card=" + event.card()
                    + ", S before " + (streamTimeBefore == Long.MIN_VALUE ? "none" : time(streamTimeBefore))
                    + ", id's newest accepted " + (newestBefore == null ? "none" : time(newestBefore)) + ": expected "
                    + expected;
        }
    }

    static String time(long t) {
        return "T0" + (t >= T0 ? "+" : "") + (t - T0) + "us";
    }

    static String show(Object id) {
        return id instanceof String s ? '"' + s.replace("\0", "\\0") + '"' : String.valueOf(id);
    }

    /** The id numbered {@code n}, in the try's id type: distinct numbers give distinct ids. */
    static Object idOf(ColumnType type, long n) {
        return switch (type) {
            case BIGINT -> switch ((int) (n % 3)) {
                case 0 -> n; // small: boxed Longs of the cache among them (the same object for the same id)
                case 1 -> -n - 1_000_000L;
                default -> Long.MAX_VALUE - n;
            };
            case INTEGER -> n % 2 == 0 ? (int) n : Integer.MIN_VALUE + (int) n;
            case VARCHAR -> switch ((int) (n % 5)) {
                case 0 -> n == 0 ? "" : "e" + n;
                case 1 -> "évènement-" + n;
                case 2 -> "nul\0id\0" + n;
                case 3 -> "a-rather-long-event-id-from-some-client-" + n + "-" + "x".repeat((int) (n % 40));
                default -> Long.toString(n);
            };
            default -> throw new IllegalArgumentException(type.toString());
        };
    }

    /**
     * One try. Returns how many samples of the index's state (after reopening and every 50 records) found
     * {@link RecentIds} saturated, ids untracked since the opening, and the number of samples; null if the index's
     * fields cannot be read.
     */
    static long[] run(ReservoirIO io, int idTypeChoice, long horizon, long granularity, long window, long seed,
            String bounds) throws IOException {
        ColumnType idType = ID_TYPES[idTypeChoice];
        String where = bounds + "ids " + idType + ", horizon " + horizon + "us, lateness " + LATENESS + "us, grid "
                + granularity + "us, window " + window + "us, seed " + seed;
        long started = System.nanoTime();
        Random rnd = new Random(seed);
        StreamDef stream = stream(idType, horizon);
        List<MetricDef> metrics = List.of(metric(window));
        EventCodec codec = new EventCodec(stream);
        Model model = new Model(horizon);
        List<Rec> partition = new ArrayList<>();
        List<TaskPlan.Outcome> firstOutcomes = new ArrayList<>();
        List<String> actions = new ArrayList<>(); // what the test did, for the failure message
        // about 30 horizons of stream time over the run: each id leaves the horizon many times over
        long meanGap = Math.max(1, 30 * horizon / EVENTS);
        long clock = T0;
        long nextFresh = 0;
        ArrayDeque<Object[]> followUps = new ArrayDeque<>(); // forced next records: {id, time, kind}
        Path dir = Files.createTempDirectory("dedup");
        TaskPlan plan = open(dir, stream, metrics, io);
        long[] seen = sample(plan, new long[3]);
        Object[] decoded = new Object[5];
        Object[] results = new Object[2];
        long checkpointed = -1; // offset of the last checkpointed record
        long checkpointedStreamTime = TaskPlan.NO_TIME;
        int next = 0;
        int restarts = 0;
        int crashes = 0;
        int replayed = 0;
        int[] counts = new int[TaskPlan.Outcome.values().length];
        int[] atEdge = new int[2];
        try {
            while (next < EVENTS) {
                if (next == partition.size()) {
                    // a new record; the model says what it expects and takes it in
                    Object id;
                    long t;
                    String kind;
                    long s = model.streamTime;
                    if (!followUps.isEmpty()) {
                        Object[] f = followUps.poll();
                        id = f[0];
                        t = (Long) f[1];
                        kind = (String) f[2];
                    } else {
                        clock += (long) (rnd.nextDouble() * 2 * meanGap);
                        t = clock;
                        int r = rnd.nextInt(100);
                        if (r < 30) {
                            t -= (long) (rnd.nextDouble() * LATENESS); // out of order, within the lateness
                        } else if (r < 36) {
                            t -= LATENESS + 1 + (long) (rnd.nextDouble() * 3 * LATENESS); // late, most likely
                        }
                        t = Math.floorDiv(t, granularity) * granularity;
                        int k = rnd.nextInt(100);
                        if (k < 40 || partition.isEmpty()) {
                            id = idOf(idType, nextFresh++);
                            kind = "new id";
                        } else if (k < 58) {
                            // a retry of a recent record (applied, duplicate or late), at its time or a new one
                            Rec old = partition.get(partition.size() - 1 - rnd.nextInt(Math.min(partition.size(),
                                    rnd.nextBoolean() ? 20 : 300)));
                            id = old.id();
                            if (rnd.nextBoolean()) {
                                t = old.event().t();
                            }
                            kind = "retry of #" + old.offset();
                        } else if (k < 70) {
                            id = idOf(idType, (long) (rnd.nextDouble() * nextFresh)); // any id used before
                            kind = "reuse";
                        } else if (k < 74) {
                            id = null;
                            kind = "null id";
                        } else if (k < 84 && model.any
                                && edge(model, rnd, followUps, granularity, meanGap, idOf(idType, nextFresh))) {
                            nextFresh++;
                            continue; // queued: a record moving S to the edge of an id's horizon, then a retry
                        } else {
                            id = idOf(idType, nextFresh++);
                            kind = "new id";
                        }
                    }
                    clock = Math.max(clock, t);
                    int offset = partition.size();
                    Ev ev = new Ev(offset, t, "c" + rnd.nextInt(8), rnd.nextInt(5));
                    Long newestBefore = id == null ? null : model.newest.get(id);
                    if (newestBefore != null && newestBefore == s - horizon) {
                        atEdge[0]++; // t_prev = S - H: no longer a duplicate
                    } else if (newestBefore != null && newestBefore - (s - horizon) <= granularity
                            && newestBefore > s - horizon) {
                        atEdge[1]++; // one step inside the horizon: still a duplicate
                    }
                    TaskPlan.Outcome expected = model.apply(id, ev);
                    Double amount = rnd.nextInt(10) == 0 ? null : Math.round(rnd.nextDouble() * 100_00) / 100.0;
                    byte[] payload = codec.encode(new Object[] {id, t, ev.card(), amount, ev.qty()}, 0);
                    partition.add(new Rec(offset, payload, id, ev, expected, model.accepted.size(), s, newestBefore,
                            kind));
                }
                Rec rec = partition.get(next);
                TaskPlan.Outcome outcome = plan.process(rec.payload(), rec.offset(), decoded, results);
                int redelivered = next; // the message is made only when an assertion fails
                java.util.function.Supplier<String> at = () -> where + ": record " + rec
                        + (redelivered < firstOutcomes.size() ? " (redelivered after a crash; first outcome "
                        + firstOutcomes.get(redelivered) + ")" : "") + "; last actions " + tail(actions);
                assertEquals(rec.expected(), outcome, at);
                if (next < firstOutcomes.size()) {
                    assertEquals(firstOutcomes.get(next), outcome, at);
                    replayed++;
                } else {
                    firstOutcomes.add(outcome);
                    counts[outcome.ordinal()]++;
                }
                if (outcome == TaskPlan.Outcome.APPLIED) {
                    checkMetric(model, rec.acceptedAfter(), rec.event(), window, results, at);
                }
                actions.add("#" + next + " " + outcome);
                next++;
                if (next % 50 == 0) {
                    seen = sample(plan, seen);
                }
                boolean inSync = next == partition.size();
                // (opening a task is most of a try's time: a few restarts and crashes per try)
                int action = rnd.nextInt(1000);
                if (!bounds.isEmpty() && next == EVENTS / 2 && inSync) {
                    action = 9; // the bounded paths are met at least once: a restart with a full index
                }
                if (action < 8) {
                    plan.checkpoint();
                    checkpointed = next - 1;
                    checkpointedStreamTime = plan.streamTime();
                    actions.add("checkpoint");
                } else if (action < 10) {
                    plan.checkpoint();
                    checkpointed = next - 1;
                    checkpointedStreamTime = plan.streamTime();
                    plan.close();
                    plan = open(dir, stream, metrics, io);
                    seen = sample(plan, seen);
                    restarts++;
                    actions.add("checkpoint, close, reopen");
                    assertEquals(next, plan.nextOffset(), where + ": a clean restart resumes after the last record");
                    assertEquals(checkpointedStreamTime, plan.streamTime(), where + ": stream time after a restart");
                    if (inSync) {
                        probe(plan, model, codec, idType, nextFresh, clock, where + ", after a clean restart at #"
                                + next);
                    }
                } else if (action < 12) {
                    plan.close(); // a crash: nothing since the last checkpoint is kept
                    plan = open(dir, stream, metrics, io);
                    seen = sample(plan, seen);
                    crashes++;
                    actions.add("crash (closed without a checkpoint), reopened at #" + plan.nextOffset());
                    assertEquals(checkpointed + 1, plan.nextOffset(), where + ": a crash resumes after the checkpoint");
                    assertEquals(checkpointedStreamTime, plan.streamTime(), where + ": stream time after a crash");
                    next = (int) plan.nextOffset(); // Kafka redelivers what followed the checkpoint
                }
            }
            probe(plan, model, codec, idType, nextFresh, clock, where + ", at the end");
            plan.checkpoint();
            plan.close();
            plan = open(dir, stream, metrics, io);
            probe(plan, model, codec, idType, nextFresh, clock, where + ", at the end, after a restart");
            assertTrue(counts[TaskPlan.Outcome.DUPLICATE.ordinal()] > 0 && counts[TaskPlan.Outcome.LATE.ordinal()] > 0,
                    where + ": duplicates and late events were generated");
            System.out.printf("DuplicateIndexPropertyTest %s: applied %d, duplicate %d, late %d; %d restarts, "
                    + "%d crashes, %d records redelivered; ids at the horizon's edge %d, one step inside %d; %d ms%n",
                    where, counts[TaskPlan.Outcome.APPLIED.ordinal()], counts[TaskPlan.Outcome.DUPLICATE.ordinal()],
                    counts[TaskPlan.Outcome.LATE.ordinal()], restarts, crashes, replayed, atEdge[0], atEdge[1],
                    (System.nanoTime() - started) / 1_000_000);
            return seen;
        } finally {
            plan.close();
            deleteTree(dir);
        }
    }

    /**
     * Queues two records for an id accepted at {@code t} and still within the horizon: one with a new id at time
     * {@code t + H} (or one grid step before or after), which puts {@code S} there when it is ahead; then a retry of
     * that id, at {@code t} or at that time. False when no id is that close to leaving the horizon (a few mean gaps
     * between records, or one grid step).
     */
    private static boolean edge(Model model, Random rnd, ArrayDeque<Object[]> followUps, long granularity,
            long meanGap, Object freshId) {
        long reach = Math.max(granularity, 5 * meanGap); // a step of a few records' worth, not a jump of S
        long s = model.streamTime;
        List<Integer> candidates = new ArrayList<>();
        for (int i = model.accepted.size() - 1; i >= Math.max(0, model.accepted.size() - 2000); i--) {
            long t = model.accepted.get(i).t();
            Object id = model.acceptedIds.get(i);
            if (id != null && model.newest.get(id) == t && t > s - model.horizon
                    && t + model.horizon - s <= reach) {
                candidates.add(i);
            }
        }
        if (candidates.isEmpty()) {
            return false;
        }
        int i = candidates.get(rnd.nextInt(candidates.size()));
        long t = model.accepted.get(i).t();
        Object id = model.acceptedIds.get(i);
        long edge = t + model.horizon + (rnd.nextInt(3) - 1) * granularity;
        followUps.add(new Object[] {freshId, edge, "moves S to the horizon's edge of id " + show(id)});
        followUps.add(new Object[] {id, rnd.nextBoolean() ? t : edge, "retry at the horizon's edge"});
        return true;
    }

    private static String tail(List<String> actions) {
        return actions.subList(Math.max(0, actions.size() - 12), actions.size()).toString();
    }

    /** Every id the model knows, and a few never used, asked of the plan without processing anything. */
    private static void probe(TaskPlan plan, Model model, EventCodec codec, ColumnType idType, long nextFresh,
            long clock, String where) {
        List<Object> ids = new ArrayList<>(model.newest.keySet());
        for (int i = 0; i < 20; i++) {
            ids.add(idOf(idType, nextFresh + 1_000 + i));
        }
        for (Object id : ids) {
            byte[] payload = codec.encode(new Object[] {id, clock, "c0", 1.0, 1L}, 0);
            Long newest = model.newest.get(id);
            assertEquals(model.duplicate(id), plan.isDuplicate(payload), where + ": isDuplicate(" + show(id)
                    + "), newest accepted " + (newest == null ? "never" : time(newest)) + ", S = "
                    + time(model.streamTime) + ", horizon " + model.horizon + "us");
        }
    }

    /**
     * Counts in {@code seen} whether the plan's {@link RecentIds} gave up, and whether its index has ids it did not
     * read at open ({@code untrackedUpTo}); returns null (and stops sampling) when those fields are not there.
     */
    private static long[] sample(TaskPlan plan, long[] seen) {
        if (seen == null) {
            return null;
        }
        try {
            Field duplicates = TaskPlan.class.getDeclaredField("duplicates");
            duplicates.setAccessible(true);
            DuplicateIndex index = (DuplicateIndex) duplicates.get(plan);
            Field recent = DuplicateIndex.class.getDeclaredField("recent");
            recent.setAccessible(true);
            Field untracked = DuplicateIndex.class.getDeclaredField("untrackedUpTo");
            untracked.setAccessible(true);
            seen[0] += ((RecentIds) recent.get(index)).saturated() ? 1 : 0;
            seen[1] += untracked.getLong(index) != Long.MIN_VALUE ? 1 : 0;
            seen[2]++;
            return seen;
        } catch (ReflectiveOperationException | ClassCastException e) {
            return null;
        }
    }

    private static TaskPlan open(Path dir, StreamDef stream, List<MetricDef> metrics, ReservoirIO io) {
        return TaskPlan.open(dir, stream, metrics, io, new ChunkCache(8, 1 << 20));
    }

    private static void deleteTree(Path dir) {
        try (var walk = Files.walk(dir)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete " + dir, e);
        }
    }

    /**
     * The planner's classes (main and test) loaded again, child first, with {@code coilgun.dedupRecentIds} and
     * {@code coilgun.dedupScanAtOpen} set while {@link DuplicateIndex} initializes; everything else (storage, JUnit)
     * is shared with this class's loader. The properties are restored at once: other tests are not affected.
     */
    static synchronized ClassLoader bounded(int maxRecent, int maxScanAtOpen) throws ReflectiveOperationException {
        String key = maxRecent + "/" + maxScanAtOpen;
        ClassLoader loader = BOUNDED.get(key);
        if (loader != null) {
            return loader;
        }
        URL[] urls = {location(DuplicateIndex.class), location(DuplicateIndexPropertyTest.class)};
        loader = new URLClassLoader("planner-" + key, urls, DuplicateIndexPropertyTest.class.getClassLoader()) {
            @Override
            protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
                if (!name.startsWith("io.coilgun.planner.")) {
                    return super.loadClass(name, resolve);
                }
                synchronized (getClassLoadingLock(name)) {
                    Class<?> c = findLoadedClass(name);
                    if (c == null) {
                        c = findClass(name);
                    }
                    if (resolve) {
                        resolveClass(c);
                    }
                    return c;
                }
            }
        };
        String[] names = {"coilgun.dedupRecentIds", "coilgun.dedupScanAtOpen"};
        String[] values = {Integer.toString(maxRecent), Integer.toString(maxScanAtOpen)};
        String[] before = new String[names.length];
        Class<?> index;
        try {
            for (int i = 0; i < names.length; i++) {
                before[i] = System.setProperty(names[i], values[i]);
            }
            index = Class.forName(DuplicateIndex.class.getName(), true, loader);
        } finally {
            for (int i = 0; i < names.length; i++) {
                if (before[i] == null) {
                    System.clearProperty(names[i]);
                } else {
                    System.setProperty(names[i], before[i]);
                }
            }
        }
        if (index == DuplicateIndex.class) {
            throw new IllegalStateException("the planner's classes were not loaded again");
        }
        Field recent = index.getDeclaredField("MAX_RECENT");
        recent.setAccessible(true);
        assertEquals(maxRecent, recent.getInt(null), "DuplicateIndex.MAX_RECENT in the bounded class loader");
        try {
            Field scan = index.getDeclaredField("MAX_SCAN_AT_OPEN");
            scan.setAccessible(true);
            assertEquals(maxScanAtOpen, scan.getInt(null), "DuplicateIndex.MAX_SCAN_AT_OPEN in the bounded loader");
        } catch (NoSuchFieldException gone) {
            // an index without that bound: the try runs with RecentIds' bound only
        }
        BOUNDED.put(key, loader);
        return loader;
    }

    private static URL location(Class<?> c) {
        try {
            return Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI()).toUri().toURL();
        } catch (URISyntaxException | IOException e) {
            throw new IllegalStateException("cannot find the classes of " + c, e);
        }
    }
}
