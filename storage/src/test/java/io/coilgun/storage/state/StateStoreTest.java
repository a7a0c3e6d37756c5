package io.coilgun.storage.state;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The state store against a model: column families (ordered and point), uncommitted writes seen by reads and scans,
 * commits that are all or nothing across families, a small LRU cache, families dropped and created again, reopening.
 */
class StateStoreTest {
    @TempDir
    Path dir;

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void familiesMatchAModelAcrossCommitsAndReopens() {
        Random rnd = new Random(7);
        String[] names = {"default", "metric.a", "aux.a", "metric.b"};
        // committed and pending model state per family
        List<TreeMap<String, String>> committed = new ArrayList<>();
        List<TreeMap<String, String>> pending = new ArrayList<>();
        for (int i = 0; i < names.length; i++) {
            committed.add(new TreeMap<>());
            pending.add(new TreeMap<>());
        }
        StateStore store = StateStore.open(dir, 50);
        try {
            for (int step = 0; step < 20_000; step++) {
                int f = rnd.nextInt(names.length);
                // metric families hold point rows (uncommitted writes in the cache), the others ordered ones
                StateStore.Family family = names[f].startsWith("metric.") ? store.pointFamily(names[f])
                        : store.family(names[f]);
                String key = "k" + rnd.nextInt(300);
                int op = rnd.nextInt(100);
                if (op < 45) {
                    String v = "v" + step;
                    family.put(b(key), b(v));
                    pending.get(f).put(key, v);
                } else if (op < 60) {
                    family.delete(b(key));
                    pending.get(f).put(key, null);
                } else if (op < 90) {
                    String expected = view(committed.get(f), pending.get(f)).get(key);
                    byte[] got = family.get(b(key));
                    assertEquals(expected, got == null ? null : new String(got, StandardCharsets.UTF_8), key);
                } else if (op < 96) {
                    String from = "k" + rnd.nextInt(300);
                    String to = "k" + rnd.nextInt(300);
                    List<String> seen = new ArrayList<>();
                    family.scan(b(from), b(to), (k, v) -> seen.add(new String(k, StandardCharsets.UTF_8) + "="
                            + new String(v, StandardCharsets.UTF_8)));
                    List<String> expected = new ArrayList<>();
                    if (from.compareTo(to) < 0) {
                        view(committed.get(f), pending.get(f)).subMap(from, to).forEach((k, v) -> expected.add(k + "=" + v));
                    }
                    assertEquals(expected, seen, "scan " + from + ".." + to);
                } else if (op < 99) {
                    store.commit();
                    for (int i = 0; i < names.length; i++) {
                        committed.set(i, view(committed.get(i), pending.get(i)));
                        pending.get(i).clear();
                    }
                } else {
                    // a crash: pending writes are lost, committed ones stay
                    store.close();
                    store = StateStore.open(dir, 50);
                    pending.forEach(Map::clear);
                }
            }
        } finally {
            store.close();
        }
    }

    /**
     * A thread with its interrupt flag set (a task's open canceled by a rebalance, a unit stopping) opens, commits
     * through the changelog, materializes and closes a store as any other: no file of it is closed under it.
     */
    @Test
    void anInterruptedThreadStillOpensCommitsAndReopens() {
        ChangelogWriter.Writes writes = new ChangelogWriter.Writes();
        Thread.currentThread().interrupt();
        try {
            try (StateStore store = StateStore.open(dir, 10)) {
                store.family(ChangelogWriter.FAMILY, false).addOwner(writes);
                for (long n = 1; n <= 3; n++) {
                    writes.next = ChangelogWriter.changes(5, n);
                    store.commit();
                }
                store.materialize();
                writes.next = ChangelogWriter.changes(5, 4);
                store.commit(); // left to the materializer, or to the next open
            }
            try (StateStore store = StateStore.open(dir, 10)) {
                Map<String, String> model = ChangelogWriter.model(5, 4);
                Map<String, String> rows = ChangelogWriter.rows(store);
                assertEquals(model, rows);
            }
            assertTrue(Thread.currentThread().isInterrupted(), "the flag is the caller's, left as it was");
        } finally {
            Thread.interrupted();
        }
    }

    @Test
    void droppingAFamilyRemovesItsRowsAndLeavesOthers() {
        try (StateStore store = StateStore.open(dir, 10)) {
            store.pointFamily("metric.a").put(b("g1"), b("1"));
            store.family("metric.b").put(b("g1"), b("2"));
            store.pointFamily("metric.c").put(b("g1"), b("3"));
            store.dropFamily("metric.c"); // uncommitted point rows go with it
            assertNull(store.pointFamily("metric.c").get(b("g1")));
            store.put(b("offset"), b("9"));
            store.commit();
            store.dropFamily("metric.a");
            assertFalse(store.familyNames().contains("metric.a"));
            assertNull(store.family("metric.a").get(b("g1")), "created again: empty");
            assertArrayEquals(b("2"), store.family("metric.b").get(b("g1")));
            store.commit();
        }
        try (StateStore store = StateStore.open(dir, 10)) {
            assertTrue(store.familyNames().containsAll(List.of("metric.a", "metric.b")), store.familyNames().toString());
            assertNull(store.family("metric.a").get(b("g1")));
            assertArrayEquals(b("2"), store.family("metric.b").get(b("g1")));
            assertArrayEquals(b("9"), store.get(b("offset")));
            List<String> all = new ArrayList<>();
            store.family("metric.b").scanAll((k, v) -> all.add(new String(k, StandardCharsets.UTF_8)));
            assertEquals(List.of("g1"), all);
        }
    }

    /**
     * A background flush started before a checkpoint ends by itself, while commits go on, and leaves the memtables
     * empty: the checkpoint then holds table files and reads back every committed row.
     */
    @Test
    void aBackgroundFlushBeforeACheckpointLeavesItLittleToWrite(@TempDir Path copy) throws Exception {
        try (StateStore store = StateStore.open(dir, 10)) {
            for (int i = 0; i < 2000; i++) {
                store.family("metric.a").put(b("g" + i), b("v" + i));
            }
            store.put(b("offset"), b("1999"));
            store.commit();
            store.flushInBackground();
            store.family("metric.a").put(b("late"), b("x")); // a commit while it flushes
            store.commit();
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (store.flushing() && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            assertFalse(store.flushing(), "the flush ended");
            var files = store.checkpointTo(copy.resolve("state"), "state/");
            assertTrue(files.stream().anyMatch(f -> f.path().endsWith(".sst")), files.toString());
        }
        try (StateStore restored = StateStore.open(copy.resolve("state"), 10)) {
            assertArrayEquals(b("v1234"), restored.family("metric.a").get(b("g1234")));
            assertArrayEquals(b("x"), restored.family("metric.a").get(b("late")));
            assertArrayEquals(b("1999"), restored.get(b("offset")));
        }
    }

    private static TreeMap<String, String> view(TreeMap<String, String> committed, TreeMap<String, String> pending) {
        TreeMap<String, String> v = new TreeMap<>(committed);
        pending.forEach((k, val) -> {
            if (val == null) {
                v.remove(k);
            } else {
                v.put(k, val);
            }
        });
        return v;
    }
}
