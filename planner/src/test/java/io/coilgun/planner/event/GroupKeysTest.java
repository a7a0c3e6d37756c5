package io.coilgun.planner.event;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.coilgun.planner.model.ColumnType;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class GroupKeysTest {
    @Test
    void decodeReadsWhatEncodeWrote() {
        ColumnType[] types = {ColumnType.VARCHAR, ColumnType.INTEGER, ColumnType.BIGINT, ColumnType.DOUBLE,
            ColumnType.BOOLEAN, ColumnType.TIMESTAMP, ColumnType.VARCHAR, ColumnType.DOUBLE};
        Object[][] cases = {
            {"c1", 7, -3L, -2.5, true, 1_700_000_000_000_000L, "a\0b\0", 0.0},
            {"", Integer.MIN_VALUE, Long.MAX_VALUE, Double.MAX_VALUE, false, -1L, "é€", -0.0},
            {null, null, null, null, null, null, null, Double.NEGATIVE_INFINITY},
        };
        int[] columns = {0, 1, 2, 3, 4, 5, 6, 7};
        for (Object[] values : cases) {
            byte[] key = GroupKeys.encode(values, columns);
            assertArrayEquals(values, GroupKeys.decode(key, 0, types));
        }
    }

    /**
     * Two groups share a key only if their values are equal: random tuples over small domains (so that many are
     * equal), strings that end or begin with NUL bytes and escapes (a string's end must not be confused with the next
     * value's start), NULLs, -0.0 and 0.0 (distinct values), NaN (one value).
     */
    @Test
    void equalKeysOnlyForEqualValues() {
        Random random = new Random(3);
        List<ColumnType[]> layouts = List.of(
                new ColumnType[] {ColumnType.VARCHAR, ColumnType.VARCHAR},
                new ColumnType[] {ColumnType.VARCHAR, ColumnType.BIGINT, ColumnType.VARCHAR},
                new ColumnType[] {ColumnType.DOUBLE, ColumnType.BOOLEAN, ColumnType.INTEGER},
                new ColumnType[] {ColumnType.VARCHAR, ColumnType.DOUBLE, ColumnType.VARCHAR, ColumnType.TIMESTAMP});
        String[] pieces = {"", "a", "\0", "\0\0", "\u00ff", "a\0", "\0a", "\u00ff\0", "é"};
        for (ColumnType[] types : layouts) {
            int[] columns = new int[types.length];
            Arrays.setAll(columns, i -> i);
            Map<String, List<Object>> byKey = new HashMap<>();
            for (int n = 0; n < 50_000; n++) {
                Object[] values = new Object[types.length];
                for (int i = 0; i < types.length; i++) {
                    values[i] = random.nextInt(8) == 0 ? null : switch (types[i]) {
                        case VARCHAR -> pieces[random.nextInt(pieces.length)] + pieces[random.nextInt(pieces.length)];
                        case BIGINT, TIMESTAMP -> (long) random.nextInt(5) - 2;
                        case INTEGER -> random.nextInt(5) - 2;
                        case BOOLEAN -> random.nextBoolean();
                        default -> new double[] {0.0, -0.0, Double.NaN, 1.5, -1.5}[random.nextInt(5)];
                    };
                }
                String key = Arrays.toString(GroupKeys.encode(values, columns));
                List<Object> before = byKey.putIfAbsent(key, Arrays.asList(values));
                if (before != null) {
                    assertEquals(before, Arrays.asList(values), "one key for two groups: " + key);
                }
            }
            // and the reverse: as many keys as distinct tuples
            long distinct = byKey.values().stream().distinct().count();
            assertEquals(distinct, byKey.size());
        }
    }
}
