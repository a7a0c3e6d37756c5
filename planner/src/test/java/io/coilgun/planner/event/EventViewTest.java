package io.coilgun.planner.event;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.coilgun.planner.model.ColumnType;
import io.coilgun.planner.model.LatePolicy;
import io.coilgun.planner.model.StreamColumn;
import io.coilgun.planner.model.StreamDef;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link EventView} against {@link EventCodec#decode}: every column type (NUMERIC of any scale and size), NULLs, strings with NUL bytes and non-ASCII
 * characters, events of an older schema version; and the group keys it writes against {@link GroupKeys#encode}.
 */
class EventViewTest {
    private static final ColumnType[] TYPES = {ColumnType.BIGINT, ColumnType.TIMESTAMP, ColumnType.VARCHAR,
        ColumnType.INTEGER, ColumnType.DOUBLE, ColumnType.BOOLEAN, ColumnType.VARCHAR, ColumnType.DOUBLE,
        ColumnType.NUMERIC};

    @Test
    void readsWhatDecodeReadsAndWritesTheSameKeys() {
        Random random = new Random(11);
        List<StreamColumn> columns = new ArrayList<>();
        for (int i = 0; i < TYPES.length; i++) {
            columns.add(new StreamColumn("c" + i, TYPES[i], false));
        }
        StreamDef v1 = new StreamDef("s", columns.subList(0, 5), 1, 0, List.of("c2"), 1, 1, LatePolicy.REJECT, "");
        StreamDef v2 = new StreamDef("s", columns, 1, 0, List.of("c2"), 1, 1, LatePolicy.REJECT, "", List.of(5, 9), 0,
                StreamDef.DEFAULT_DEDUP_HORIZON_MICROS, 1);
        EventCodec old = new EventCodec(v1);
        EventCodec codec = new EventCodec(v2);
        EventView view = new EventView(v2);
        byte[] key = new byte[4];
        for (int n = 0; n < 20_000; n++) {
            boolean older = random.nextInt(5) == 0;
            Object[] values = new Object[TYPES.length];
            for (int i = 0; i < (older ? 5 : TYPES.length); i++) {
                values[i] = random.nextInt(6) == 0 ? null : value(TYPES[i], random);
            }
            byte[] encoded = older ? old.encode(Arrays.copyOf(values, 5), n) : codec.encode(values, n);
            byte[] payload = new byte[encoded.length + 7]; // the view reads a slice
            System.arraycopy(encoded, 0, payload, 3, encoded.length);
            view.wrap(payload, 3, encoded.length);
            Object[] decoded = new Object[TYPES.length];
            long assigned = codec.decode(encoded, decoded);
            assertEquals(assigned, view.assignedId());
            for (int i = 0; i < TYPES.length; i++) {
                assertEquals(decoded[i] == null, view.isNull(i));
                if (decoded[i] == null) {
                    continue;
                }
                Object read = switch (TYPES[i]) {
                    case VARCHAR -> new String(view.data(), view.stringOffset(i), view.stringLength(i),
                            StandardCharsets.UTF_8);
                    case BOOLEAN -> view.getBoolean(i);
                    case DOUBLE -> view.getDouble(i);
                    case NUMERIC -> {
                        BigDecimal d = NumericBytes.read(view.data(), view.numericOffset(i));
                        assertEquals(d.doubleValue(), view.getDouble(i), d.toString());
                        yield d;
                    }
                    case INTEGER -> (int) view.getLong(i);
                    default -> view.getLong(i);
                };
                assertEquals(decoded[i], read);
                assertEquals(decoded[i], view.value(i));
            }
            int[] groupColumns = new int[1 + random.nextInt(3)];
            for (int i = 0; i < groupColumns.length; i++) {
                groupColumns[i] = random.nextInt(TYPES.length);
            }
            byte[] expected = GroupKeys.encode(decoded, groupColumns);
            int length = GroupKeys.encode(view, groupColumns, key);
            assertEquals(expected.length, length);
            if (length > key.length) {
                key = new byte[length];
                GroupKeys.encode(view, groupColumns, key);
            }
            assertArrayEquals(expected, Arrays.copyOf(key, length));
        }
    }

    private static Object value(ColumnType type, Random random) {
        return switch (type) {
            case BIGINT, TIMESTAMP -> random.nextBoolean() ? random.nextLong() : (long) random.nextInt(100) - 50;
            case INTEGER -> random.nextInt();
            case DOUBLE -> switch (random.nextInt(4)) {
                case 0 -> -0.0;
                case 1 -> random.nextGaussian() * 1e6;
                case 2 -> Double.NaN;
                default -> (double) random.nextInt(1000) / 100;
            };
            case BOOLEAN -> random.nextBoolean();
            case NUMERIC -> new BigDecimal(new BigInteger(random.nextInt(5) == 0 ? 70 : 1 + random.nextInt(40), random)
                    .multiply(BigInteger.valueOf(random.nextBoolean() ? 1 : -1)), random.nextInt(21));
            default -> {
                StringBuilder s = new StringBuilder();
                String alphabet = "ab\0é€😀z";
                for (int i = random.nextInt(12); i > 0; i--) {
                    s.appendCodePoint(alphabet.codePoints().toArray()[random.nextInt(7)]);
                }
                yield s.toString();
            }
        };
    }
}
