package io.coilgun.cluster.reply;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coilgun.planner.model.AggregationDef;
import io.coilgun.planner.model.AggregationKind;
import io.coilgun.planner.model.ColumnType;
import io.coilgun.planner.model.MetricDef;
import io.coilgun.planner.model.WindowSpec;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ReplyCodecTest {
    private static MetricDef metric(int aggregations) {
        List<AggregationDef> aggs = new ArrayList<>();
        for (int i = 0; i < aggregations; i++) {
            aggs.add(new AggregationDef(AggregationKind.LAST, 0, "a" + i, ColumnType.VARCHAR));
        }
        return new MetricDef("m", "s", aggs, List.of(0), "k", new WindowSpec(WindowSpec.Kind.INFINITE, 0, 0), "");
    }

    @Test
    void everyValueAnAggregationReportsGoesThrough() {
        Object[] values = {null, 42L, 7, -0.5, "text é \uD83D\uDE00", true, false,
            new BigDecimal("-170141183460469231731687303715884105728"), 1_700_000_000_000_000L};
        byte[] bytes = ReplyCodec.encode(ReplyStatus.APPLIED, null, List.of(metric(values.length)), values);
        Reply reply = ReplyCodec.decode(ReplyCodec.correlationKey(9), bytes);
        assertEquals(9, reply.correlation());
        Object[] expected = values.clone();
        expected[2] = 7L; // integers travel as longs
        assertArrayEquals(expected, reply.metrics().get("m"));
    }

    @Test
    void anUnknownValueClassIsAClearErrorNotACast() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ReplyCodec.encode(
                ReplyStatus.APPLIED, null, List.of(metric(1)), new Object[] {new Object()}));
        assertTrue(e.getMessage().contains("java.lang.Object"), e.getMessage());
    }

    @Test
    void aDecidersReplySaysHowManyPartitionersAnswerAfterIt() {
        byte[] key = ReplyCodec.replyKey(ReplyCodec.correlationKey(3), "coilgun.stream.p.-decide");
        assertEquals(2, ReplyCodec.decode(key, ReplyCodec.encode(ReplyStatus.APPLIED, null, List.of(),
                new Object[0], 2)).followers());
        assertEquals(-1, ReplyCodec.decode(key, ReplyCodec.encode(ReplyStatus.APPLIED, null, List.of(),
                new Object[0])).followers(), "not said (a partitioner's reply, or an older node's)");
        Reply withMetrics = ReplyCodec.decode(key, ReplyCodec.encode(ReplyStatus.APPLIED, null, List.of(metric(1)),
                new Object[] {"x"}, 3));
        assertEquals(3, withMetrics.followers());
        assertArrayEquals(new Object[] {"x"}, withMetrics.metrics().get("m"));
    }

    @Test
    void aReplyNamesTheTopicOfTheTaskThatAnswered() {
        byte[] key = ReplyCodec.replyKey(ReplyCodec.correlationKey(12), "coilgun.stream.p.card");
        Reply reply = ReplyCodec.decode(key, ReplyCodec.encode(ReplyStatus.DUPLICATE, "again", List.of(), new Object[0]));
        assertEquals(12, reply.correlation());
        assertEquals("coilgun.stream.p.card", reply.source());
        assertEquals("", ReplyCodec.decode(ReplyCodec.correlationKey(12), ReplyCodec.encode(ReplyStatus.DUPLICATE,
                "again", List.of(), new Object[0])).source(), "a key of an older node: no topic");
    }
}
