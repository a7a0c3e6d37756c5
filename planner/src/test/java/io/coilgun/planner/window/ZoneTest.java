package io.coilgun.planner.window;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** {@link Zone} against a list of every entry added: lookups through growth, expiry and colliding buckets. */
class ZoneTest {
    private record Entry(long time, long seq, byte[] group, long hash, byte[] args) {
    }

    /** The group's hash; in odd rounds one of three values, so that groups share buckets and hashes. */
    private static long hash(int round, byte[] group) {
        return round % 2 == 0 ? KnownGroups.hash(group) : Math.floorMod(Arrays.hashCode(group), 3);
    }

    @Test
    void findsWhatAListOfTheLiveEntriesHolds() {
        Random random = new Random(7);
        for (int round = 0; round < 20; round++) {
            Zone zone = new Zone();
            List<Entry> live = new ArrayList<>();
            java.util.Map<Long, Integer> lengths = new java.util.HashMap<>();
            int groups = 1 + random.nextInt(round < 10 ? 5 : 500);
            long time = 0;
            long seq = 0;
            for (int step = 0; step < 20_000; step++) {
                int op = random.nextInt(10);
                if (op < 6) {
                    time += random.nextInt(3);
                    long t = time - random.nextInt(4); // mostly in order: a late one now and then
                    byte[] group = ("g" + random.nextInt(groups)).getBytes(StandardCharsets.UTF_8);
                    long hash = hash(round, group);
                    byte[] args = new byte[1 + random.nextInt(round < 5 ? 2 : 300)]; // long ones wrap the byte ring
                    random.nextBytes(args);
                    args[0] = (byte) step;
                    zone.add(t, seq, group, group.length, hash, args, args.length);
                    lengths.put(seq, args.length);
                    live.add(new Entry(t, seq++, group, hash, args));
                } else if (op < 8) {
                    long upTo = time - random.nextInt(40);
                    zone.expire(upTo);
                    while (!live.isEmpty() && live.get(0).time() <= upTo) {
                        live.remove(0);
                    }
                } else {
                    byte[] group = ("g" + random.nextInt(groups)).getBytes(StandardCharsets.UTF_8);
                    long hash = hash(round, group);
                    long after = time - random.nextInt(30);
                    long upTo = after + random.nextInt(30);
                    List<String> expected = new ArrayList<>();
                    for (int i = live.size() - 1; i >= 0; i--) {
                        Entry e = live.get(i);
                        if (Arrays.equals(e.group(), group) && e.time() > after && e.time() <= upTo) {
                            expected.add(e.time() + "/" + e.seq() + "/" + Arrays.toString(e.args()));
                        }
                    }
                    List<String> found = new ArrayList<>();
                    zone.forEach(group, group.length, hash, after, upTo, (t, s, bytes, at) -> found.add(t + "/" + s + "/"
                            + Arrays.toString(Arrays.copyOfRange(bytes, at, at + lengths.get(s)))));
                    assertEquals(expected, found, "round " + round + " step " + step);
                }
                assertEquals(live.size(), zone.size());
            }
        }
    }
}
