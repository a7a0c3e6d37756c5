package io.coilgun.planner.window;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coilgun.planner.agg.Aggregator;
import io.coilgun.storage.state.StateStore;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Predicate;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A data directory written by the previous release (group states as untagged {@link GroupState} rows, built as that
 * release built them: the aggregators' full-form {@code add} on the row) opens with this release's
 * {@link MetricSlots}: every group reads back with the values the old rows held, before and after the commit that
 * rewrites them in the tagged forms ({@code 'c'} compact, {@code 'w'} wide), and after reopening again; a crash
 * before that commit leaves the old rows readable; the metric's start row is untouched.
 */
class StoredFormatMigrationTest {
    private static final String SLIDING = "payments";
    private static final String TUMBLING = "per_hour";
    private static final long START_SEQ = 4_242L;
    private static final int SUM = 0;
    private static final int AVG = 2;
    /** AVG shares SUM's compact state (as WindowMetric lays out SUM and AVG of one column); old rows keep both. */
    private static final int[] SHARED = {-1, -1, SUM};

    @TempDir
    Path dir;

    private final Aggregator[] aggs = SumCountAvg.aggregators();
    private final int[] full = SumCountAvg.fullSlots(aggs);
    private final int aggBytes = full[2] + aggs[2].stateBytes();
    private final RowLayout sliding = SumCountAvg.layout(aggs, false, SHARED);
    private final RowLayout tumbling = SumCountAvg.layout(aggs, true, SHARED);

    /** Per metric, per group: the old row written. */
    private final Map<String, Map<String, ByteBuffer>> oldRows = new LinkedHashMap<>();

    /** The groups, and the values of their events (in the one bucket of a sliding window, per bucket if tumbling). */
    @BeforeEach
    void writeTheStoreAsThePreviousReleaseDid() {
        Random rnd = new Random(35);
        Map<String, ByteBuffer> s = new LinkedHashMap<>();
        for (int i = 0; i < 40; i++) {
            List<Double> cents = new ArrayList<>();
            int n = 1 + rnd.nextInt(60);
            for (int j = 0; j < n; j++) {
                int c = 1 + rnd.nextInt(99_999);
                cents.add((rnd.nextInt(10) == 0 ? -c : c) / 100.0); // some refunds
            }
            s.put("cents-" + i, slidingRow(1_700_000_000_000_000L + i, cents));
        }
        s.put("one", slidingRow(17L, List.of(12.34)));
        s.put("integers", slidingRow(18L, List.of(1.0, 2.0, 3.0, 40.0, -7.0)));
        s.put("clock-only", slidingRow(19L, List.of())); // events that did not pass the filter: a clock, no values
        s.put("nan", slidingRow(20L, List.of(10.5, Double.NaN, 3.25)));
        s.put("infinite", slidingRow(21L, List.of(1.5, Double.POSITIVE_INFINITY)));
        s.put("spread", slidingRow(22L, List.of(1e30, 1.0, 1e-30))); // three partials over ~200 bits
        oldRows.put(SLIDING, s);

        Map<String, ByteBuffer> t = new LinkedHashMap<>();
        t.put("no-bucket", tumblingRow(30L, Map.of()));
        t.put("one-bucket", tumblingRow(31L, Map.of(7L, List.of(1.25, 2.5))));
        t.put("two-buckets", tumblingRow(32L, new java.util.TreeMap<>(Map.of(7L, List.of(0.5), 8L, List.of(4.0, 1.0)))));
        oldRows.put(TUMBLING, t);

        StateStore store = StateStore.open(dir);
        try {
            StateStore.Family rows = MetricRows.states(store);
            for (var metric : oldRows.entrySet()) {
                for (var group : metric.getValue().entrySet()) {
                    rows.put(key(metric.getKey(), group.getKey()), group.getValue().array().clone());
                }
                rows.put(MetricRows.prefix(metric.getKey(), 't'), ByteBuffer.allocate(8).putLong(START_SEQ).array());
            }
            store.commit();
        } finally {
            store.close();
        }
        // the rows as the previous release left them: untagged (a clock's first byte is never 'c' or 'w')
        store = StateStore.open(dir);
        try {
            for (var metric : oldRows.entrySet()) {
                for (var group : metric.getValue().entrySet()) {
                    byte[] stored = MetricRows.states(store).get(key(metric.getKey(), group.getKey()));
                    assertArrayEquals(group.getValue().array(), stored);
                    assertTrue(stored[0] != 'c' && stored[0] != 'w');
                }
            }
        } finally {
            store.close();
        }
    }

    @Test
    void everyGroupReadsBackWithItsValuesBeforeAndAfterTheRewrite() {
        // a crash before the rewriting commit: the old rows stay as they were, and read the same next time
        try (Opened o = new Opened()) {
            o.checkEveryGroup();
            assertTrue(o.slots(SLIDING).changedRows() > 0, "the old rows that fit are to be rewritten");
        }
        assertUntouched(g -> true);
        try (Opened o = new Opened()) {
            o.checkEveryGroup();
            o.store.commit();
            o.checkEveryGroup();
            assertEquals(0, o.slots(SLIDING).changedRows());
            assertEquals(0, o.slots(TUMBLING).changedRows());
        }
        try (Opened o = new Opened()) {
            o.checkEveryGroup();
            assertEquals(0, o.slots(SLIDING).changedRows(), "rewritten rows are not rewritten again");
            assertEquals(0, o.slots(TUMBLING).changedRows());
            for (String metric : oldRows.keySet()) {
                assertTrue(MetricRows.started(o.store, metric));
                assertEquals(START_SEQ, ByteBuffer.wrap(MetricRows.states(o.store).get(MetricRows.prefix(metric, 't')))
                        .getLong(), "the start row of " + metric);
            }
        }
    }

    /** The states whose sums have at most two partials in the old rows: compact after the commit, and reopened. */
    @Test
    void statesWithFewPartialsAreRewrittenCompact() {
        List<String[]> fit = new ArrayList<>();
        for (String g : List.of("one", "integers", "clock-only")) {
            fit.add(new String[] {SLIDING, g});
        }
        for (String g : List.of("no-bucket", "one-bucket")) {
            fit.add(new String[] {TUMBLING, g});
        }
        for (var e : oldRows.get(SLIDING).entrySet()) {
            if (e.getKey().startsWith("cents-") && partials(e.getValue()) <= 2) {
                fit.add(new String[] {SLIDING, e.getKey()});
            }
        }
        assertTrue(fit.size() > 8, "cents groups with at most two partials: " + (fit.size() - 5));
        checkRewrittenCompact(fit);
    }

    /**
     * Sums of amounts in cents fit the compact form (two partials, {@code ExactSum.addCompact} compresses them), but
     * the previous release's rows hold them in full form with three or more partials, which {@code ExactSum.narrow}
     * does not compress: such a group is read as wide and never rewritten.
     */
    @Test
    void centsSumsOfTheOldRowsAreRewrittenCompact() {
        List<String[]> cents = new ArrayList<>();
        int manyPartials = 0;
        for (var e : oldRows.get(SLIDING).entrySet()) {
            if (e.getKey().startsWith("cents-")) {
                cents.add(new String[] {SLIDING, e.getKey()});
                manyPartials += partials(e.getValue()) > 2 ? 1 : 0;
            }
        }
        assertTrue(manyPartials > 10, "old cents rows with more than two partials: " + manyPartials);
        // the same sums fit the compact form when added to it
        for (var e : oldRows.get(SLIDING).entrySet()) {
            if (e.getKey().startsWith("cents-")) {
                assertTrue(fitsCompact(e.getKey()), e.getKey() + " does not fit the compact form");
            }
        }
        checkRewrittenCompact(cents);
    }

    /** NaN, an infinity, values over more than 106 bits, a second tumbling bucket: they stay wide, and read back. */
    @Test
    void statesThatDoNotFitStayWide() {
        List<String[]> wide = List.of(new String[] {SLIDING, "nan"}, new String[] {SLIDING, "infinite"},
                new String[] {SLIDING, "spread"}, new String[] {TUMBLING, "two-buckets"});
        try (Opened o = new Opened()) {
            for (String[] g : wide) {
                assertTrue(o.load(g[0], g[1]) < 0, g[1] + " is not wide");
            }
            o.store.commit();
        }
        try (Opened o = new Opened()) {
            for (String[] g : wide) {
                byte[] stored = MetricRows.states(o.store).get(key(g[0], g[1]));
                assertNotNull(stored, g[1]);
                // a wide row tagged, or still the old row (which reads as wide)
                assertTrue(stored[0] == 'w' ? Arrays.equals(Arrays.copyOfRange(stored, 1, stored.length),
                        oldRows.get(g[0]).get(g[1]).array()) : Arrays.equals(stored,
                                oldRows.get(g[0]).get(g[1]).array()), g[1] + ": " + (char) stored[0]);
                assertTrue(o.load(g[0], g[1]) < 0, g[1] + " is not wide");
            }
            o.checkEveryGroup();
        }
    }

    /** The brief's contract: an old row that does not fit the compact form is rewritten tagged {@code 'w'}. */
    @Test
    void oldRowsThatDoNotFitAreRewrittenTaggedWide() {
        List<String[]> wide = List.of(new String[] {SLIDING, "nan"}, new String[] {SLIDING, "spread"},
                new String[] {TUMBLING, "two-buckets"});
        try (Opened o = new Opened()) {
            for (String[] g : wide) {
                o.load(g[0], g[1]);
            }
            o.store.commit();
        }
        try (Opened o = new Opened()) {
            for (String[] g : wide) {
                byte[] stored = MetricRows.states(o.store).get(key(g[0], g[1]));
                assertEquals('w', (char) stored[0], g[1]);
            }
        }
    }

    private void checkRewrittenCompact(List<String[]> groups) {
        try (Opened o = new Opened()) {
            for (String[] g : groups) {
                o.load(g[0], g[1]);
            }
            o.store.commit();
        }
        try (Opened o = new Opened()) {
            for (String[] g : groups) {
                byte[] stored = MetricRows.states(o.store).get(key(g[0], g[1]));
                assertNotNull(stored, g[1]);
                assertEquals('c', (char) stored[0], g[1] + " stored " + (stored[0] == 'w' ? "wide" : "in the old form"));
                assertEquals(1 + layout(g[0]).stride(), stored.length, g[1]);
                assertTrue(o.load(g[0], g[1]) >= 0, g[1] + " is not compact");
            }
            o.checkEveryGroup();
        }
    }

    /** The groups {@code groups} accepts still hold exactly their old rows. */
    private void assertUntouched(Predicate<String> groups) {
        StateStore store = StateStore.open(dir);
        try {
            for (var metric : oldRows.entrySet()) {
                for (var group : metric.getValue().entrySet()) {
                    if (groups.test(group.getKey())) {
                        assertArrayEquals(group.getValue().array(),
                                MetricRows.states(store).get(key(metric.getKey(), group.getKey())), group.getKey());
                    }
                }
            }
        } finally {
            store.close();
        }
    }

    /** The store opened as a task of this release opens it: one arena per metric's group-by, the metrics' slots. */
    private final class Opened implements AutoCloseable {
        final StateStore store = StateStore.open(dir);
        final GroupArena.Budget budget = new GroupArena.Budget(Long.MAX_VALUE);
        final Map<String, MetricSlots> slots = new LinkedHashMap<>();

        Opened() {
            for (String metric : oldRows.keySet()) {
                slots.put(metric, new MetricSlots(MetricRows.states(store), MetricRows.prefix(metric, 'g'),
                        layout(metric), new GroupArena(budget)));
            }
        }

        MetricSlots slots(String metric) {
            return slots.get(metric);
        }

        int id(String metric, String group) {
            byte[] k = group.getBytes(StandardCharsets.UTF_8);
            return slots(metric).arena().find(k, KnownGroups.hash(k));
        }

        int load(String metric, String group) {
            int id = id(metric, group);
            assertTrue(slots(metric).has(id), group);
            return slots(metric).load(id);
        }

        /** Every group's clock, buckets and aggregation results equal its old row's. */
        void checkEveryGroup() {
            for (var metric : oldRows.entrySet()) {
                String name = metric.getKey();
                RowLayout layout = layout(name);
                boolean isTumbling = name.equals(TUMBLING);
                for (var group : metric.getValue().entrySet()) {
                    String g = group.getKey();
                    ByteBuffer old = group.getValue();
                    int id = id(name, g);
                    MetricSlots m = slots(name);
                    assertTrue(m.has(id), g);
                    int off = m.load(id);
                    ByteBuffer slab = m.slab(id);
                    ByteBuffer row = off < 0 ? m.wideRow(id) : null;
                    assertEquals(GroupState.clock(old), off >= 0 ? slab.getLong(off) : GroupState.clock(row), g);
                    int n = GroupState.buckets(old);
                    if (off >= 0) {
                        assertTrue(isTumbling ? n <= 1 : n == 1, g + ": compact with " + n + " buckets");
                        if (isTumbling) {
                            assertEquals(n == 0 ? RowLayout.NO_BUCKET : GroupState.bucketId(old, 0, aggBytes),
                                    layout.bucket(slab, off), g);
                        }
                    } else {
                        assertEquals(n, GroupState.buckets(row), g);
                    }
                    ByteBuffer window = ByteBuffer.allocate(aggBytes);
                    for (int b = 0; b < n; b++) {
                        long bucket = GroupState.bucketId(old, b, aggBytes);
                        if (off >= 0) {
                            layout.copyBucket(slab, off, bucket, window);
                        } else {
                            GroupState.copyOf(row, bucket, aggBytes, window);
                        }
                        int at = GroupState.aggregatesOf(old, bucket, aggBytes);
                        for (int i = 0; i < aggs.length; i++) {
                            Object expected = aggs[i].result(old, at + full[i]);
                            Object actual = aggs[i].result(window, full[i]);
                            assertEquals(expected, actual, g + " bucket " + bucket + " " + aggs[i].def().name());
                            if (expected instanceof Double d) {
                                assertEquals(Double.doubleToRawLongBits(d), Double.doubleToRawLongBits((Double) actual),
                                        g + ": bit for bit");
                            }
                        }
                    }
                }
            }
        }

        @Override
        public void close() {
            for (MetricSlots m : slots.values()) {
                m.close();
            }
            store.close();
            assertEquals(0, budget.used.get(), "closed slots hold nothing");
        }
    }

    /** A sliding window's row as the previous release built it: bucket 0, the aggregators' full-form adds. */
    private ByteBuffer slidingRow(long clock, List<Double> values) {
        ByteBuffer row = GroupState.empty(aggBytes, true);
        GroupState.clock(row, clock);
        addAll(row, GroupState.HEADER + 8, values);
        return row;
    }

    /** A tumbling window's row as the previous release built it: its buckets in order, the full-form adds. */
    private ByteBuffer tumblingRow(long clock, Map<Long, List<Double>> buckets) {
        ByteBuffer row = GroupState.empty(aggBytes, false);
        GroupState.clock(row, clock);
        for (var b : buckets.entrySet()) {
            row = GroupState.withBucket(row, b.getKey(), aggBytes);
            addAll(row, row.capacity() - aggBytes, b.getValue());
        }
        return row;
    }

    private void addAll(ByteBuffer row, int base, List<Double> values) {
        for (double v : values) {
            aggs[SUM].add(row, base + full[SUM], v);
            aggs[1].add(row, base + full[1], Boolean.TRUE); // COUNT(*): a non-null marker
            aggs[AVG].add(row, base + full[AVG], v);
        }
    }

    /** How many partials the old row's exact SUM has (after the count: an int partial count). */
    private int partials(ByteBuffer oldRow) {
        return oldRow.getInt(GroupState.HEADER + 8 + full[SUM] + 8);
    }

    /** Whether the values of sliding group {@code g} added to a compact slot one by one fit it. */
    private boolean fitsCompact(String g) {
        // the old row's values are not kept: re-derive them from the same generator
        Random rnd = new Random(35);
        for (int i = 0; i < 40; i++) {
            ByteBuffer slot = ByteBuffer.allocate(sliding.stride());
            sliding.clear(slot, 0);
            boolean fits = true;
            int n = 1 + rnd.nextInt(60);
            for (int j = 0; j < n; j++) {
                int c = 1 + rnd.nextInt(99_999);
                double v = (rnd.nextInt(10) == 0 ? -c : c) / 100.0;
                fits &= aggs[SUM].addCompact(slot, sliding.compactSlot(SUM), v);
            }
            if (g.equals("cents-" + i)) {
                return fits;
            }
        }
        throw new IllegalArgumentException(g);
    }

    private RowLayout layout(String metric) {
        return metric.equals(TUMBLING) ? tumbling : sliding;
    }

    private static byte[] key(String metric, String group) {
        return MetricRows.concat(MetricRows.prefix(metric, 'g'), group.getBytes(StandardCharsets.UTF_8));
    }
}
