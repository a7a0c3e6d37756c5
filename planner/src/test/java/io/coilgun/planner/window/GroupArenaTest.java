package io.coilgun.planner.window;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coilgun.planner.agg.Aggregator;
import io.coilgun.storage.state.StateStore;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A {@link GroupArena} shared by two metrics' {@link MetricSlots} against a map model: states changed in place in
 * their compact slots and in wide rows (widened, given a second bucket so that they stay wide, narrowed again at the
 * commit), evicted under a budget far smaller than the groups (CLOCK over committed entries), written at commits in
 * the tagged forms, and after a crash (the store reopened without its last commit) exactly the committed states.
 *
 * <p>The model's value of a group is its clock, also written to the COUNT of every bucket (so a slot's aggregates
 * survive widening and narrowing too), and the form its state must be in: compact, wide with one bucket (narrowed
 * at the next commit), wide with two buckets (stays wide: stored as {@code 'w'}).
 */
class GroupArenaTest {
    private static final int GROUPS = 500;
    private static final int STEPS = 100_000;
    /** The aggregation whose state mirrors the clock. */
    private static final int COUNT = 1;
    private static final int COMPACT = 0;
    private static final int WIDE_ONE_BUCKET = 1;
    private static final int WIDE_TWO_BUCKETS = 2;

    @TempDir
    Path dir;

    private final RowLayout layout = layout();
    private final int[] fullSlots = SumCountAvg.fullSlots(SumCountAvg.aggregators());

    /** A group's state in the model: its clock (and COUNT) and the form it is in. */
    private record State(long value, int form) {
    }

    /** One metric: its slots in the arena and its model. */
    private static final class Metric {
        final byte[] prefix;
        MetricSlots slots;
        final Map<String, State> current = new HashMap<>();
        final Map<String, State> committed = new HashMap<>();
        final Set<String> changedSinceCommit = new HashSet<>();
        /** Committed since the store was last told to materialize: perhaps in a changelog record still. */
        final Set<String> unmaterialized = new HashSet<>();

        Metric(String name) {
            this.prefix = MetricRows.prefix(name, 'g');
        }
    }

    @Test
    void twoMetricsMatchAModelThroughEvictionsCommitsAndCrashes() {
        Random rnd = new Random(35);
        String[] names = new String[GROUPS];
        byte[][] keys = new byte[GROUPS][];
        long[] hashes = new long[GROUPS];
        for (int i = 0; i < GROUPS; i++) {
            names[i] = "card-" + i;
            keys[i] = names[i].getBytes(StandardCharsets.UTF_8);
            hashes[i] = KnownGroups.hash(keys[i]);
        }
        // the fingerprints of all 500 groups (1,024 slots of 4 bytes), and about 60 entries of the 500 groups
        long entry = GroupArena.ENTRY_BYTES + 2 * (layout.stride() + 1) + 8;
        long limit = 4 * 1024 + 16 + 60 * entry;
        GroupArena.Budget budget = new GroupArena.Budget(limit);
        Metric a = new Metric("a");
        Metric b = new Metric("b");
        Metric[] metrics = {a, b};
        StateStore store = StateStore.open(dir);
        GroupArena arena = open(store, budget, metrics);
        int evicted = 0;
        int maxSize = 0;
        int crashes = 0;
        int[] storedForms = new int[2];
        int[] loadedForms = new int[3];
        try {
            int mostPinned = 0; // the most entries changed between two commits (none evictable)
            for (int step = 0; step < STEPS; step++) {
                int k = (int) (GROUPS * Math.pow(rnd.nextDouble(), 2));
                String g = names[k];
                int op = rnd.nextInt(10_000);
                if (op < 6_000) {
                    // an event: one metric, or both (one find for the two, as the shared group-by does)
                    int id = arena.find(keys[k], hashes[k]);
                    int which = rnd.nextInt(5);
                    for (int m = 0; m < 2; m++) {
                        if (which == m || which >= 2) {
                            loadedForms[update(metrics[m], id, g, 2L * step + 1 + m, rnd)]++;
                        }
                    }
                } else if (op < 9_000) {
                    Metric m = metrics[rnd.nextInt(2)];
                    if (rnd.nextBoolean()) {
                        // once materialized, what the store holds is the committed state, in its tagged form
                        store.materialize();
                        for (Metric each : metrics) {
                            each.unmaterialized.clear();
                        }
                        State stored = decode(MetricRows.states(store).get(MetricRows.concat(m.prefix, keys[k])));
                        assertEquals(m.committed.get(g), stored, g);
                        if (stored != null) {
                            storedForms[stored.form() == COMPACT ? 0 : 1]++;
                        }
                    }
                    int id = rnd.nextBoolean() ? arena.lookup(keys[k], hashes[k]) : arena.find(keys[k], hashes[k]);
                    if (id < 0) {
                        // not in memory: nothing uncommitted (an entry with a change not committed is never evicted)
                        assertEquals(m.committed.get(g), m.current.get(g), g);
                        evicted += m.current.containsKey(g) ? 1 : 0;
                        continue;
                    }
                    assertEquals(m.current.containsKey(g), m.slots.has(id), g);
                    if (m.current.containsKey(g)) {
                        int off = m.slots.load(id);
                        assertEquals(m.current.get(g), read(m.slots, id, off), g);
                    }
                } else if (op < 9_980) {
                    // the groups a scan of the store may not see yet: those changed since the commit, and some of
                    // those committed since the last materialization (the materializer runs meanwhile)
                    Set<String> pinned = new HashSet<>();
                    for (Metric m : metrics) {
                        Set<String> changed = new HashSet<>();
                        for (byte[] key : m.slots.changedKeys()) {
                            changed.add(new String(key, StandardCharsets.UTF_8));
                        }
                        assertTrue(changed.containsAll(m.changedSinceCommit), "every change listed");
                        Set<String> mayBeListed = new HashSet<>(m.changedSinceCommit);
                        mayBeListed.addAll(m.unmaterialized);
                        assertTrue(mayBeListed.containsAll(changed), "listed and neither changed nor unmaterialized");
                        pinned.addAll(mayBeListed);
                    }
                    mostPinned = Math.max(mostPinned, pinned.size());
                    store.commit();
                    for (Metric m : metrics) {
                        for (String c : m.changedSinceCommit) {
                            State s = m.current.get(c);
                            if (s.form() == WIDE_ONE_BUCKET) {
                                m.current.put(c, new State(s.value(), COMPACT)); // narrowed at the commit
                            }
                        }
                        m.committed.clear();
                        m.committed.putAll(m.current);
                        m.unmaterialized.addAll(m.changedSinceCommit);
                        m.changedSinceCommit.clear();
                        for (byte[] key : m.slots.changedKeys()) {
                            assertTrue(m.unmaterialized.contains(new String(key, StandardCharsets.UTF_8)));
                        }
                    }
                    // the arena is charged for the entries it has room for, and grows past the budget only when
                    // no entry could be evicted (every entry changed since the last commit): by half, at most
                    assertTrue(budget.used.get() <= limit || arena.capacity() <= 3 * (mostPinned + 16) / 2,
                            "over budget: " + budget.used.get() + " > " + limit + " with room for " + arena.capacity()
                            + " entries, at most " + mostPinned + " changed between two commits, step " + step);
                } else {
                    // a crash: the uncommitted changes are gone, the committed states come back from the store
                    for (Metric m : metrics) {
                        m.slots.close();
                    }
                    assertEquals(0, budget.used.get(), "an arena its metrics left holds nothing");
                    store.close();
                    store = StateStore.open(dir);
                    arena = open(store, budget, metrics);
                    for (Metric m : metrics) {
                        m.current.clear();
                        m.current.putAll(m.committed);
                        m.changedSinceCommit.clear();
                        m.unmaterialized.clear(); // the store's open materialized what was left
                    }
                    crashes++;
                }
                maxSize = Math.max(maxSize, arena.size());
            }
        } finally {
            for (Metric m : metrics) {
                m.slots.close();
            }
            store.close();
        }
        assertEquals(0, budget.used.get(), "closed slots hold nothing");
        assertTrue(evicted > 100, "the budget evicted too little: " + evicted);
        assertTrue(maxSize < GROUPS / 2, "the arena held " + maxSize + " of " + GROUPS + " groups");
        assertTrue(crashes > 10, "crashes: " + crashes);
        assertTrue(storedForms[0] > 1000 && storedForms[1] > 100, "stored compact/wide rows read: "
                + storedForms[0] + "/" + storedForms[1]);
        assertTrue(loadedForms[COMPACT] > 1000 && loadedForms[WIDE_ONE_BUCKET] > 100
                && loadedForms[WIDE_TWO_BUCKETS] > 100, "states changed per form: " + List.of(loadedForms[0],
                        loadedForms[1], loadedForms[2]));
    }

    /**
     * A state widened by an event that does not fit (a NaN, as WindowMetric.apply widens) takes the next events in
     * full form; once the NaN has left, its sum of amounts in cents fits the compact form again (adding the same
     * values to a compact slot keeps them in two partials), so the commit should narrow it.
     */
    @Test
    void aWideStateWhoseCentsSumFitsIsNarrowedAtTheCommit() {
        Aggregator[] aggs = SumCountAvg.aggregators();
        GroupArena.Budget budget = new GroupArena.Budget(Long.MAX_VALUE);
        StateStore store = StateStore.open(dir);
        MetricSlots slots = new MetricSlots(MetricRows.states(store), MetricRows.prefix("a", 'g'), layout,
                new GroupArena(budget));
        byte[] key = "card-1".getBytes(StandardCharsets.UTF_8);
        try {
            int id = slots.arena().find(key, KnownGroups.hash(key));
            assertTrue(slots.load(id) >= 0);
            ByteBuffer row = slots.widen(id);
            int base = GroupState.HEADER + 8;
            aggs[0].add(row, base + fullSlots[0], Double.NaN);
            ByteBuffer compact = ByteBuffer.allocate(layout.stride());
            layout.clear(compact, 0);
            Random rnd = new Random(7);
            for (int i = 0; i < 20; i++) {
                double v = (1 + rnd.nextInt(99_999)) / 100.0;
                aggs[0].add(row, base + fullSlots[0], v);
                assertTrue(aggs[0].addCompact(compact, layout.compactSlot(0), v), "fits the compact form");
            }
            aggs[0].remove(row, base + fullSlots[0], Double.NaN);
            assertTrue(row.getInt(base + fullSlots[0] + 8) > 2, "the full form has more than two partials");
            GroupState.clock(row, 1L);
            slots.changed(id);
            store.commit();
            store.materialize();
            assertTrue(slots.load(id) >= 0, "still wide after the commit");
            assertEquals('c', (char) MetricRows.states(store).get(MetricRows.concat(MetricRows.prefix("a", 'g'),
                    key))[0]);
        } finally {
            slots.close();
            store.close();
        }
        assertEquals(0, budget.used.get());
    }

    /**
     * An event of group {@code g} (arena entry {@code id}) for metric {@code m}: checks the state against the model,
     * sets it to {@code value}, sometimes in another form. Returns the form the state was in.
     */
    private int update(Metric m, int id, String g, long value, Random rnd) {
        MetricSlots slots = m.slots;
        State before = m.current.get(g);
        int off = slots.load(id);
        State loaded = read(slots, id, off);
        if (before == null) {
            assertEquals(new State(Long.MIN_VALUE, COMPACT), loaded, "a new group: " + g);
            assertEquals(0, slots.slab(id).getLong(off + layout.compactSlot(COUNT)), g);
        } else {
            assertEquals(before, loaded, g);
        }
        int form = loaded.form();
        double r = rnd.nextDouble();
        if (form == COMPACT) {
            if (r < 0.90) {
                ByteBuffer slab = slots.slab(id);
                slab.putLong(off, value);
                slab.putLong(off + layout.compactSlot(COUNT), value);
            } else {
                ByteBuffer row = slots.widen(id);
                assertEquals(loaded.value(), GroupState.clock(row), "widened: " + g);
                if (r < 0.96) {
                    writeWide(row, value);
                    form = WIDE_ONE_BUCKET;
                } else {
                    ByteBuffer two = GroupState.withBucket(row, 1, layout.aggBytes());
                    slots.setWide(id, two);
                    writeWide(two, value);
                    form = WIDE_TWO_BUCKETS;
                }
            }
        } else {
            ByteBuffer row = slots.wideRow(id);
            int n = GroupState.buckets(row);
            if (r < 0.7) {
                writeWide(row, value);
            } else if (n == 2) {
                ByteBuffer kept = GroupState.dropBucketsBefore(row, GroupState.bucketId(row, 1, layout.aggBytes()),
                        layout.aggBytes(), new ArrayList<>());
                assertEquals(1, GroupState.buckets(kept));
                slots.setWide(id, kept);
                writeWide(kept, value);
                form = WIDE_ONE_BUCKET;
            } else {
                ByteBuffer two = GroupState.withBucket(row, GroupState.bucketId(row, 0, layout.aggBytes()) + 1,
                        layout.aggBytes());
                slots.setWide(id, two);
                writeWide(two, value);
                form = WIDE_TWO_BUCKETS;
            }
        }
        slots.changed(id);
        m.current.put(g, new State(value, form));
        m.changedSinceCommit.add(g);
        return loaded.form();
    }

    private void writeWide(ByteBuffer row, long value) {
        GroupState.clock(row, value);
        for (int i = 0; i < GroupState.buckets(row); i++) {
            row.putLong(GroupState.HEADER + i * (8 + layout.aggBytes()) + 8 + fullSlots[COUNT], value);
        }
    }

    /** The state of entry {@code id} (loaded at {@code off}): its clock, checked against its COUNT, and its form. */
    private State read(MetricSlots slots, int id, int off) {
        if (off >= 0) {
            assertNull(slots.wideRow(id), "a compact state with a wide row");
            ByteBuffer slab = slots.slab(id);
            long clock = slab.getLong(off);
            if (clock != Long.MIN_VALUE) {
                assertEquals(clock, slab.getLong(off + layout.compactSlot(COUNT)), "COUNT of the slot");
            }
            return new State(clock, COMPACT);
        }
        ByteBuffer row = slots.wideRow(id);
        assertNotNull(row, "a wide state without its row");
        return readWide(row);
    }

    private State readWide(ByteBuffer row) {
        long clock = GroupState.clock(row);
        int n = GroupState.buckets(row);
        assertTrue(n == 1 || n == 2, "buckets " + n);
        for (int i = 0; i < n; i++) {
            assertEquals(clock, row.getLong(GroupState.HEADER + i * (8 + layout.aggBytes()) + 8 + fullSlots[COUNT]),
                    "COUNT of bucket " + i);
        }
        return new State(clock, n);
    }

    /** A stored row in this release's form: {@code 'c'} and the slot, or {@code 'w'} and the wide row. */
    private State decode(byte[] value) {
        if (value == null) {
            return null;
        }
        if (value[0] == 'c') {
            assertEquals(1 + layout.stride(), value.length, "a compact row's length");
            ByteBuffer slot = ByteBuffer.wrap(value, 1, layout.stride()).slice();
            assertEquals(slot.getLong(0), slot.getLong(layout.compactSlot(COUNT)), "COUNT of the stored slot");
            ByteBuffer expected = ByteBuffer.allocate(layout.stride());
            layout.clear(expected, 0);
            expected.putLong(0, slot.getLong(0)).putLong(layout.compactSlot(COUNT), slot.getLong(0));
            assertArrayEquals(expected.array(), java.util.Arrays.copyOfRange(value, 1, value.length),
                    "the rest of the stored slot is empty");
            return new State(slot.getLong(0), COMPACT);
        }
        assertEquals('w', (char) value[0], "a stored row's form");
        State s = readWide(ByteBuffer.wrap(java.util.Arrays.copyOfRange(value, 1, value.length)));
        assertEquals(WIDE_TWO_BUCKETS, s.form(), "a wide row that fits the compact form was stored wide");
        return s;
    }

    private GroupArena open(StateStore store, GroupArena.Budget budget, Metric[] metrics) {
        GroupArena arena = new GroupArena(budget);
        for (Metric m : metrics) {
            m.slots = new MetricSlots(MetricRows.states(store), m.prefix, layout, arena);
        }
        return arena;
    }

    /** SUM(amount), COUNT(*), AVG(amount) over a sliding window (one bucket). */
    private static RowLayout layout() {
        return SumCountAvg.layout(SumCountAvg.aggregators(), false, SumCountAvg.UNSHARED);
    }
}
