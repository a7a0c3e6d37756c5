package io.coilgun.planner.window;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coilgun.storage.state.StateStore;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shared layout of metric rows: names as key prefixes, a metric cleared alone, legacy families moved in and
 * stored zone rows dropped.
 */
class MetricRowsTest {
    @TempDir
    Path dir;

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void metricsShareFamiliesAndClearAlone() {
        try (StateStore store = StateStore.open(dir)) {
            for (String m : new String[] {"m", "mm", "m2", "é"}) {
                MetricRows.states(store).put(MetricRows.prefix(m, 't'), b("start"));
                MetricRows.aux(store).put(MetricRows.prefix(m, 'x'), b("candidates"));
                MetricRows.aux(store).put(MetricRows.prefix(m, 'd'), b("distinct"));
            }
            store.commit();
            MetricRows.aux(store).put(MetricRows.prefix("m", 'y'), b("uncommitted"));
            assertEquals(Set.of("m", "mm", "m2", "é"), MetricRows.stored(store));
            assertTrue(MetricRows.started(store, "m"));

            MetricRows.clear(store, "m");
            assertFalse(MetricRows.started(store, "m"));
            assertNull(MetricRows.aux(store).get(MetricRows.prefix("m", 'y')), "uncommitted rows go too");
            assertNull(MetricRows.aux(store).get(MetricRows.prefix("m", 'x')));
            assertEquals(Set.of("mm", "m2", "é"), MetricRows.stored(store));
            store.commit();
        }
        try (StateStore store = StateStore.open(dir)) {
            assertEquals(Set.of("mm", "m2", "é"), MetricRows.stored(store));
            assertArrayEquals(b("distinct"), MetricRows.aux(store).get(MetricRows.prefix("mm", 'd')));
            assertArrayEquals(b("candidates"), MetricRows.aux(store).get(MetricRows.prefix("mm", 'x')));
        }
    }

    @Test
    void legacyFamiliesPerMetricMoveIntoTheSharedOnes() {
        try (StateStore store = StateStore.open(dir)) {
            store.family("metric.card").put(b("t"), b("start"));
            store.family("metric.card").put(b("gcard-1"), b("state"));
            store.family("aux.card").put(b("xcard-1"), b("candidates"));
            store.family("aux.card").put(b("zcard-1"), b("zone"));
            store.family("metrics.zones").put(b("card\0hcard-1"), b("zone"));
            store.commit();
        }
        try (StateStore store = StateStore.open(dir)) {
            MetricRows.migrate(store);
            assertFalse(store.familyNames().contains("metric.card"));
            assertFalse(store.familyNames().contains("aux.card"));
            assertTrue(MetricRows.started(store, "card"));
            assertArrayEquals(b("state"), MetricRows.states(store).get(concat(MetricRows.prefix("card", 'g'), b("card-1"))));
            assertArrayEquals(b("candidates"), MetricRows.aux(store).get(concat(MetricRows.prefix("card", 'x'), b("card-1"))));
            assertNull(MetricRows.aux(store).get(concat(MetricRows.prefix("card", 'z'), b("card-1"))), "zones: not stored");
            assertFalse(store.familyNames().contains("metrics.zones"));
        }
    }

    private static byte[] concat(byte[] a, byte[] c) {
        byte[] r = java.util.Arrays.copyOf(a, a.length + c.length);
        System.arraycopy(c, 0, r, a.length, c.length);
        return r;
    }
}
