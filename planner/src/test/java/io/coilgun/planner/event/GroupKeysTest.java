package io.coilgun.planner.event;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import io.coilgun.planner.model.ColumnType;
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
}
