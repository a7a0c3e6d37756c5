package io.coilgun.cluster.sink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.coilgun.planner.model.AggregationDef;
import io.coilgun.planner.model.AggregationKind;
import io.coilgun.planner.model.ColumnType;
import io.coilgun.planner.model.Durations;
import io.coilgun.planner.model.LatePolicy;
import io.coilgun.planner.model.MetricDef;
import io.coilgun.planner.model.SinkDef;
import io.coilgun.planner.model.StreamColumn;
import io.coilgun.planner.model.StreamDef;
import io.coilgun.planner.model.WindowSpec;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class SinkRecordFormatTest {
    static final StreamDef STREAM = new StreamDef("p", List.of(new StreamColumn("id", ColumnType.VARCHAR, false),
            new StreamColumn("ts", ColumnType.TIMESTAMP, false), new StreamColumn("card", ColumnType.VARCHAR, false),
            new StreamColumn("shop", ColumnType.BIGINT, false), new StreamColumn("amount", ColumnType.NUMERIC, false)),
            1, 0, List.of("card"), 1, 10 * Durations.SECOND, LatePolicy.DROP, "");
    static final MetricDef BY_CARD = new MetricDef("card_5m", "p", List.of(
            new AggregationDef(AggregationKind.SUM, 4, "total", ColumnType.NUMERIC),
            new AggregationDef(AggregationKind.COUNT_STAR, -1, "n", ColumnType.BIGINT),
            new AggregationDef(AggregationKind.AVG, 4, "avg", ColumnType.DOUBLE),
            new AggregationDef(AggregationKind.MAX, 1, "latest", ColumnType.TIMESTAMP)), List.of(2), "card",
            WindowSpec.sliding(5 * Durations.MINUTE), "");
    static final MetricDef BY_CARD_SHOP = new MetricDef("pair", "p", List.of(
            new AggregationDef(AggregationKind.COUNT_STAR, -1, "n", ColumnType.BIGINT)), List.of(2, 3), "card",
            WindowSpec.sliding(5 * Durations.MINUTE), "");
    static final Object[] EVENT = {"pay-1", 1_767_225_600_000_001L, "c\"1", 7L, new BigDecimal("12.50")};
    static final Object[] RESULTS = {new BigDecimal("30.75"), 3L, Double.NaN, 1_767_225_600_100_000L, 1L};

    @Test
    void aMetricSinkWritesTheEventAndTheMetricsValuesKeyedByItsGroup() {
        SinkRecordFormat f = SinkRecordFormat.of(sink("card_5m", false), STREAM, List.of(BY_CARD, BY_CARD_SHOP));
        assertEquals("{\"id\":\"pay-1\",\"ts\":\"2026-01-01T00:00:00.000001\",\"card\":\"c\\\"1\",\"card_5m_total\":"
                + "30.75,\"card_5m_n\":3,\"card_5m_avg\":\"NaN\",\"card_5m_latest\":\"2026-01-01T00:00:00.1\"}",
                text(f.value(EVENT, 0, RESULTS)));
        assertEquals("c\"1", text(f.key(EVENT)));
        SinkRecordFormat pair = SinkRecordFormat.of(sink("pair", false), STREAM, List.of(BY_CARD, BY_CARD_SHOP));
        assertEquals("[\"c\\\"1\",7]", text(pair.key(EVENT)), "several GROUP BY columns: a JSON array");
        assertEquals("{\"id\":\"pay-1\",\"ts\":\"2026-01-01T00:00:00.000001\",\"card\":\"c\\\"1\",\"shop\":7,"
                + "\"pair_n\":1}", text(pair.value(EVENT, 0, RESULTS)));
        assertNull(SinkRecordFormat.of(sink("other", false), STREAM, List.of(BY_CARD)), "not on this task");
    }

    @Test
    void aStreamSinkWritesEveryMetricOfTheTaskKeyedByItsPartitioning() {
        SinkRecordFormat f = SinkRecordFormat.of(sink("p", true), STREAM, List.of(BY_CARD, BY_CARD_SHOP));
        String value = text(f.value(EVENT, 0, RESULTS));
        assertEquals("{\"id\":\"pay-1\",\"ts\":\"2026-01-01T00:00:00.000001\",\"card\":\"c\\\"1\",\"shop\":7,"
                + "\"amount\":12.50,\"card_5m_total\":30.75,\"card_5m_n\":3,\"card_5m_avg\":\"NaN\","
                + "\"card_5m_latest\":\"2026-01-01T00:00:00.1\",\"pair_n\":1}", value, "every column, every metric");
        assertEquals("c\"1", text(f.key(EVENT)));
        assertNull(SinkRecordFormat.of(sink("p", true), STREAM, List.of()), "a task without metrics writes nothing");
    }

    @Test
    void timestampsAsPostgresToJsonWritesThem() {
        assertEquals("1969-12-31T23:59:59.999999", SinkRecordFormat.timestamp(-1));
        assertEquals("2026-01-01T00:00:00", SinkRecordFormat.timestamp(1_767_225_600_000_000L));
        assertEquals("2026-12-31T23:05:09.01", SinkRecordFormat.timestamp(1_798_758_309_010_000L));
        assertEquals("0001-01-01T00:00:00.5", SinkRecordFormat.timestamp(-62_135_596_799_500_000L));
        assertEquals("+10000-01-01T00:00:00", SinkRecordFormat.timestamp(253_402_300_800_000_000L));
        java.util.Random rnd = new java.util.Random(3);
        for (int i = 0; i < 10_000; i++) { // as java.time writes them, within the years it writes plainly
            long micros = rnd.nextLong() % 253_402_300_799_000_000L;
            if (micros >= -62_135_596_800_000_000L) {
                String expected = java.time.format.DateTimeFormatter.ISO_LOCAL_DATE_TIME.format(java.time.LocalDateTime
                        .ofEpochSecond(Math.floorDiv(micros, 1_000_000L), (int) Math.floorMod(micros, 1_000_000L)
                        * 1000, java.time.ZoneOffset.UTC));
                assertEquals(expected, SinkRecordFormat.timestamp(micros));
            }
        }
    }

    private static SinkDef sink(String from, boolean stream) {
        return new SinkDef("k", from, "p", stream, "t", "", 7);
    }

    private static String text(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }
}
