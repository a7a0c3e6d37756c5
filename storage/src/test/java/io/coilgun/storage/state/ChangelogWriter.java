package io.coilgun.storage.state;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;

/**
 * The child JVM of {@link StateStoreCrashTest}: commits {@link #changes} of an owner family, one commit after the
 * other, each with its number under {@link #COMMIT} (the offset a task keeps atomically with its state), and prints
 * {@code committed N} after commit N, until it is killed. Now and then it materializes on its own thread, or closes
 * and reopens the store.
 */
public final class ChangelogWriter {
    static final String FAMILY = "rows";
    static final byte[] COMMIT = "commit".getBytes(StandardCharsets.UTF_8);

    private ChangelogWriter() {
    }

    /** The rows commit {@code n} of run {@code seed} writes, in order: a null value is a delete. */
    static Map<String, String> changes(long seed, long n) {
        Random r = new Random(seed * 1_000_003L + n);
        Map<String, String> out = new LinkedHashMap<>();
        int ops = 1 + r.nextInt(r.nextInt(10) == 0 ? 3_000 : 200);
        for (int i = 0; i < ops; i++) {
            String key = "g" + r.nextInt(2_000);
            out.remove(key);
            if (r.nextInt(5) == 0) {
                out.put(key, null);
            } else {
                out.put(key, n + ":" + "v".repeat(r.nextInt(r.nextInt(20) == 0 ? 5_000 : 60)));
            }
        }
        return out;
    }

    /** The rows after commits 1..{@code n} of run {@code seed}. */
    static Map<String, String> model(long seed, long n) {
        Map<String, String> model = new java.util.TreeMap<>();
        for (long k = 1; k <= n; k++) {
            changes(seed, k).forEach((key, v) -> {
                if (v == null) {
                    model.remove(key);
                } else {
                    model.put(key, v);
                }
            });
        }
        return model;
    }

    /** The rows the store's family holds. */
    static Map<String, String> rows(StateStore store) {
        Map<String, String> rows = new java.util.TreeMap<>();
        store.family(FAMILY, false).scanAll((k, v) -> {
            rows.put(new String(k, StandardCharsets.UTF_8), new String(v, StandardCharsets.UTF_8));
            return true;
        });
        return rows;
    }

    static long committed(StateStore store) {
        byte[] v = store.get(COMMIT);
        return v == null ? 0 : ByteBuffer.wrap(v).getLong();
    }

    /** An owner that writes the rows it was given at the next commit. */
    static final class Writes implements StateStore.Owner {
        Map<String, String> next = Map.of();

        @Override
        public boolean hasChanges() {
            return !next.isEmpty();
        }

        @Override
        public void writeChanges(StateStore.RowWriter out) {
            next.forEach((k, v) -> {
                if (v == null) {
                    out.delete(k.getBytes(StandardCharsets.UTF_8));
                } else {
                    out.put(k.getBytes(StandardCharsets.UTF_8), v.getBytes(StandardCharsets.UTF_8));
                }
            });
        }

        @Override
        public void committed(long record) {
            next = Map.of();
        }
    }

    public static void main(String[] args) {
        Path dir = Path.of(args[0]);
        long seed = Long.parseLong(args[1]);
        Random rnd = new Random(seed ^ System.nanoTime());
        StateStore store = StateStore.open(dir);
        Writes writes = new Writes();
        store.family(FAMILY, false).addOwner(writes);
        long n = committed(store);
        System.out.println("started at " + n);
        while (true) {
            n++;
            writes.next = changes(seed, n);
            store.put(COMMIT, ByteBuffer.allocate(8).putLong(n).array());
            store.commit();
            System.out.println("committed " + n);
            System.out.flush();
            int dice = rnd.nextInt(100);
            if (dice == 0) {
                store.materialize();
            } else if (dice == 1) {
                store.close();
                store = StateStore.open(dir);
                store.family(FAMILY, false).addOwner(writes);
            }
        }
    }
}
