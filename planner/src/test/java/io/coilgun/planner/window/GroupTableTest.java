package io.coilgun.planner.window;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coilgun.storage.state.StateStore;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The group table against a HashMap model: rows read, changed in place and resized, evicted under a budget far
 * smaller than the groups (CLOCK over committed rows), written at commits, and after a crash (the store reopened
 * without its last commit) exactly the committed rows.
 */
class GroupTableTest {
    private static final byte[] PREFIX = {'g'};

    @TempDir
    Path dir;

    @Test
    void matchesAModelThroughEvictionsCommitsAndCrashes() {
        Random rnd = new Random(11);
        // about 40 entries of the 500 groups, and the fingerprints of all 500 (1,024 slots of 4 bytes)
        long limit = 40 * 150 + 4 * 1024 + 16;
        GroupTable.Budget budget = new GroupTable.Budget(limit);
        Map<String, Long> committed = new HashMap<>();
        Map<String, Long> current = new HashMap<>();
        Set<String> changedSinceCommit = new HashSet<>();
        StateStore store = StateStore.open(dir);
        GroupTable table = open(store, budget);
        int evictions = 0;
        try {
            for (int step = 0; step < 100_000; step++) {
                String g = "card-" + (int) (500 * Math.pow(rnd.nextDouble(), 2));
                byte[] group = g.getBytes(StandardCharsets.UTF_8);
                int op = rnd.nextInt(1000);
                if (op < 600) {
                    int id = table.find(group);
                    ByteBuffer row = table.row(id);
                    assertEquals(current.getOrDefault(g, 0L), row.getLong(0), g);
                    if (rnd.nextInt(10) == 0) {
                        // a resize (a tumbling bucket added or dropped): a new array with the same value
                        ByteBuffer resized = ByteBuffer.allocate(8 + 8 * rnd.nextInt(3)).putLong(0, row.getLong(0) + 1);
                        table.replace(id, resized);
                    } else {
                        row.putLong(0, row.getLong(0) + 1);
                        table.changed(id);
                    }
                    current.merge(g, 1L, Long::sum);
                    changedSinceCommit.add(g);
                } else if (op < 900) {
                    assertEquals(current.containsKey(g), table.contains(group), g);
                    if (current.containsKey(g)) {
                        assertEquals(current.get(g), table.row(table.find(group)).getLong(0), g);
                    }
                } else if (op < 999) {
                    Set<String> changed = new HashSet<>();
                    for (byte[] k : table.changedKeys()) {
                        changed.add(new String(k, StandardCharsets.UTF_8));
                    }
                    assertEquals(changedSinceCommit, changed);
                    store.commit();
                    committed.clear();
                    committed.putAll(current);
                    changedSinceCommit.clear();
                    assertTrue(budget.used.get() <= limit + 200 || table.size() <= 1,
                            "over budget after a commit: " + budget.used.get());
                } else {
                    // a crash: the uncommitted changes are gone, the committed rows come back from the store
                    table.close();
                    store.close();
                    store = StateStore.open(dir);
                    table = open(store, budget);
                    current.clear();
                    current.putAll(committed);
                    changedSinceCommit.clear();
                }
                assertTrue(table.size() <= current.size() + 1);
                evictions += table.size() < current.size() ? 1 : 0;
            }
            assertTrue(evictions > 0, "the budget never evicted");
        } finally {
            table.close();
            store.close();
        }
        assertEquals(0, budget.used.get(), "closed tables hold nothing");
    }

    private static GroupTable open(StateStore store, GroupTable.Budget budget) {
        return new GroupTable(store.family(MetricRows.STATE_FAMILY, false), PREFIX, () -> ByteBuffer.allocate(8), budget);
    }
}
