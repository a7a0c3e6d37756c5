package io.coilgun.planner.window;

import io.coilgun.storage.state.StateStore;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * Where the metrics of a task keep their rows in its state store: two column families shared by every metric, each
 * row's key starting with the metric's name and a 0 byte, so the store's layout (and RocksDB's memory: memtables,
 * table readers) does not grow with the number of metrics, and dropping a metric is one range delete.
 * <ul>
 *   <li>{@value #STATE_FAMILY}: group states ({@code <name>\0g<group>}, held in memory by the metric's
 *       {@link MetricSlots}) and the metric's start ({@code <name>\0t}); not cached by the store.</li>
 *   <li>{@value #AUX_FAMILY}: MIN/MAX/LAST/PREV candidates and COUNT(DISTINCT) value counts.</li>
 * </ul>
 * Stores written before this layout had two families per metric ({@code metric.<name>}, {@code aux.<name>}):
 * {@link #migrate} moves their rows here when a task opens. Head and tail zones are not stored (see {@link Zone}):
 * the zone rows of older stores (in {@code aux.<name>}, then in a family {@value #OLD_ZONE_FAMILY}) are dropped.
 */
public final class MetricRows {
    public static final String STATE_FAMILY = "metrics";
    public static final String AUX_FAMILY = "metrics.aux";
    private static final String OLD_ZONE_FAMILY = "metrics.zones";
    private static final String LEGACY_STATE = "metric.";
    private static final String LEGACY_AUX = "aux.";

    private MetricRows() {
    }

    /** The group-state family (the group tables keep its rows: never cached by the store). */
    static StateStore.Family states(StateStore store) {
        return store.family(STATE_FAMILY, false);
    }

    static StateStore.Family aux(StateStore store) {
        return store.family(AUX_FAMILY);
    }

    /** {@code <name>\0}: what every key of metric {@code name} starts with. */
    static byte[] prefix(String name) {
        byte[] n = name.getBytes(StandardCharsets.UTF_8);
        return Arrays.copyOf(n, n.length + 1);
    }

    /** {@code <name>\0<kind>}: the prefix of one kind of the metric's rows. */
    static byte[] prefix(String name, char kind) {
        byte[] p = prefix(name);
        byte[] k = Arrays.copyOf(p, p.length + 1);
        k[p.length] = (byte) kind;
        return k;
    }

    /** {@code a} followed by {@code b}: a row's key from its prefix and group key. */
    static byte[] concat(byte[] a, byte[] b) {
        byte[] r = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, r, a.length, b.length);
        return r;
    }

    /** The first key after every key starting with {@code prefix}. */
    static byte[] after(byte[] prefix) {
        byte[] upTo = prefix.clone();
        upTo[upTo.length - 1]++; // prefixes end in a 0 byte or an ASCII letter: never 0xFF
        return upTo;
    }

    /** Whether metric {@code name} started in this store: a checkpoint wrote where it starts. */
    public static boolean started(StateStore store, String name) {
        return store.familyNames().contains(STATE_FAMILY) && states(store).get(prefix(name, 't')) != null;
    }

    /**
     * Where a backfill of metric {@code name} started (row {@code <name>\0b}): the metric counts the events with
     * {@code seq >= startSeq} or {@code t >= countedFrom}; the history to read begins at {@code scanFrom}.
     */
    public record Backfill(long startSeq, long countedFrom, long scanFrom) {
    }

    /** The backfill under way for metric {@code name} in this store, or null. */
    public static Backfill backfill(StateStore store, String name) {
        if (!store.familyNames().contains(STATE_FAMILY)) {
            return null;
        }
        byte[] v = states(store).get(prefix(name, 'b'));
        if (v == null) {
            return null;
        }
        ByteBuffer b = ByteBuffer.wrap(v);
        return new Backfill(b.getLong(), b.getLong(), b.getLong());
    }

    /** Records (in the next commit) that a backfill of metric {@code name} is under way. */
    public static void backfill(StateStore store, String name, Backfill backfill) {
        states(store).put(prefix(name, 'b'), ByteBuffer.allocate(24).putLong(backfill.startSeq())
                .putLong(backfill.countedFrom()).putLong(backfill.scanFrom()).array());
    }

    /** Forgets (in the next commit) the backfill of metric {@code name}: it is over. */
    public static void backfillDone(StateStore store, String name) {
        states(store).delete(prefix(name, 'b'));
    }

    /** Deletes every row of metric {@code name} at once (not part of a checkpoint), its table closed first. */
    public static void clear(StateStore store, String name) {
        byte[] from = prefix(name);
        byte[] to = after(from);
        if (store.familyNames().contains(STATE_FAMILY)) {
            states(store).dropRange(from, to);
        }
        if (store.familyNames().contains(AUX_FAMILY)) {
            aux(store).dropRange(from, to);
        }
    }

    /** The names of the metrics with rows in the store. */
    public static Set<String> stored(StateStore store) {
        Set<String> names = new TreeSet<>();
        for (String family : List.of(STATE_FAMILY, AUX_FAMILY)) {
            if (!store.familyNames().contains(family)) {
                continue;
            }
            StateStore.Family rows = family.equals(STATE_FAMILY) ? states(store) : aux(store);
            byte[] from = new byte[0];
            while (true) {
                byte[][] first = new byte[1][];
                rows.scan(from, null, (key, value) -> {
                    first[0] = key;
                    return false;
                });
                if (first[0] == null) {
                    break;
                }
                int end = 0;
                while (end < first[0].length && first[0][end] != 0) {
                    end++;
                }
                names.add(new String(first[0], 0, end, StandardCharsets.UTF_8));
                from = after(Arrays.copyOf(first[0], end + 1)); // skip to the next metric's rows
            }
        }
        return names;
    }

    /**
     * Moves the rows of a store written with a family per metric into the shared families, then drops the old
     * families: copied and committed first, so a crash in between only copies them again. Drops stored zone rows.
     */
    public static void migrate(StateStore store) {
        if (store.familyNames().contains(OLD_ZONE_FAMILY)) {
            store.dropFamily(OLD_ZONE_FAMILY);
        }
        List<String> legacy = new ArrayList<>();
        for (String family : store.familyNames()) {
            if (family.startsWith(LEGACY_STATE) || family.startsWith(LEGACY_AUX)) {
                legacy.add(family);
            }
        }
        if (legacy.isEmpty()) {
            return;
        }
        for (String family : legacy) {
            boolean state = family.startsWith(LEGACY_STATE);
            byte[] p = prefix(family.substring(state ? LEGACY_STATE.length() : LEGACY_AUX.length()));
            store.family(family).scanAll((key, value) -> {
                byte[] k = Arrays.copyOf(p, p.length + key.length);
                System.arraycopy(key, 0, k, p.length, key.length);
                if (state || key.length == 0 || (key[0] != 'h' && key[0] != 'z')) { // h, z: zone rows
                    (state ? states(store) : aux(store)).put(k, value);
                }
                return true;
            });
        }
        store.commit();
        legacy.forEach(store::dropFamily);
    }
}
