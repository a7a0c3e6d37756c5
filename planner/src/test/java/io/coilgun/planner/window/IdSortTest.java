package io.coilgun.planner.window;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link IdSort} against {@link Arrays#sort}, and {@link GroupArena#compareKeys} (the order a commit writes a
 * metric's rows in) against the keys' unsigned byte order: keys inline and longer than 16 bytes, prefixes of one
 * another, zero bytes at their ends.
 */
class IdSortTest {
    @Test
    void sortsAsArraysSortDoes() {
        Random random = new Random(5);
        for (int round = 0; round < 500; round++) {
            int n = random.nextInt(round < 100 ? 20 : 3000);
            int[] ids = new int[n + 10];
            for (int i = 0; i < ids.length; i++) {
                ids[i] = random.nextInt(round % 3 == 0 ? 5 : 1_000_000); // many equal ones in some rounds
            }
            int[] expected = ids.clone();
            Arrays.sort(expected, 5, 5 + n);
            IdSort.sort(ids, 5, 5 + n, Integer::compare);
            assertArrayEquals(expected, ids);
        }
    }

    @Test
    void arenaKeysCompareAsTheirBytes() {
        Random random = new Random(9);
        GroupArena arena = new GroupArena(new GroupArena.Budget(Long.MAX_VALUE));
        List<byte[]> keys = new ArrayList<>();
        for (int i = 0; i < 2000; i++) {
            byte[] key = new byte[random.nextInt(24)];
            for (int j = 0; j < key.length; j++) {
                key[j] = (byte) (random.nextInt(4) == 0 ? 0 : random.nextInt(3) == 0 ? 0xFF : 'a' + random.nextInt(3));
            }
            if (i > 0 && random.nextInt(4) == 0) { // a prefix or an extension of an earlier key
                byte[] other = keys.get(random.nextInt(keys.size()));
                key = Arrays.copyOf(other, random.nextInt(other.length + 3));
            }
            boolean seen = false;
            for (byte[] k : keys) {
                seen |= Arrays.equals(k, key);
            }
            if (!seen) {
                keys.add(key);
                arena.find(key, KnownGroups.hash(key));
            }
        }
        for (int n = 0; n < 20_000; n++) {
            byte[] a = keys.get(random.nextInt(keys.size()));
            byte[] b = keys.get(random.nextInt(keys.size()));
            int ida = arena.lookup(a, KnownGroups.hash(a));
            int idb = arena.lookup(b, KnownGroups.hash(b));
            assertEquals(Integer.signum(Arrays.compareUnsigned(a, b)), Integer.signum(arena.compareKeys(ida, idb)),
                    Arrays.toString(a) + " vs " + Arrays.toString(b));
        }
    }
}
