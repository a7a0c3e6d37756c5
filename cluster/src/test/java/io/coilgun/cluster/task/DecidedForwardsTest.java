package io.coilgun.cluster.task;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coilgun.cluster.feed.ResultFeed;
import io.coilgun.cluster.ingest.TaskClock;
import io.coilgun.cluster.kafka.KafkaHeaders;
import io.coilgun.cluster.kafka.Topics;
import io.coilgun.cluster.reply.Reply;
import io.coilgun.cluster.reply.ReplyCodec;
import io.coilgun.planner.event.EventCodec;
import io.coilgun.planner.model.AggregationDef;
import io.coilgun.planner.model.AggregationKind;
import io.coilgun.planner.model.ColumnType;
import io.coilgun.planner.model.Durations;
import io.coilgun.planner.model.LatePolicy;
import io.coilgun.planner.model.MetricDef;
import io.coilgun.planner.model.StreamColumn;
import io.coilgun.planner.model.StreamDef;
import io.coilgun.planner.model.WindowSpec;
import io.coilgun.planner.plan.TaskPlan;
import io.coilgun.storage.reservoir.ChunkCache;
import io.coilgun.storage.reservoir.ReservoirIO;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A forward Kafka loses while a later one to the same partition is written (a send that failed) is never passed
 * over: the partitioner task takes nothing after the gap, the decider rolls back to its checkpoint at its next record
 * and forwards again from there, and the partitioner then applies every decision once, in the order decided.
 */
class DecidedForwardsTest {
    static final ReservoirIO IO = ReservoirIO.defaults();
    static final long T0 = 1_700_000_000_000_000L;
    static final StreamDef STREAM = new StreamDef("p", List.of(new StreamColumn("id", ColumnType.BIGINT, false),
            new StreamColumn("ts", ColumnType.TIMESTAMP, false), new StreamColumn("card", ColumnType.VARCHAR, false),
            new StreamColumn("shop", ColumnType.VARCHAR, false)), 1, 0, List.of("card", "shop"), 1,
            10 * Durations.SECOND, LatePolicy.DROP, "");
    static final MetricDef BY_SHOP = new MetricDef("m", "p", List.of(
            new AggregationDef(AggregationKind.COUNT_STAR, -1, "n", ColumnType.BIGINT)), List.of(3), "shop",
            WindowSpec.sliding(5 * Durations.MINUTE), "");

    @TempDir
    Path dir;
    final EventCodec codec = new EventCodec(STREAM);
    final MockProducer<byte[], byte[]> replies = new MockProducer<>(true, null, new ByteArraySerializer(),
            new ByteArraySerializer());
    /** The decider's forwards as sent, with their callbacks. */
    final List<ProducerRecord<byte[], byte[]>> sent = new ArrayList<>();
    final List<Callback> callbacks = new ArrayList<>();

    @AfterAll
    static void closeIo() {
        IO.close();
    }

    TaskProcessor task(String name, TaskId id, List<MetricDef> metrics) {
        TaskProcessor.PlanOpener opener = (s, m) -> TaskPlan.open(dir.resolve(name), s, m, IO,
                new ChunkCache(8, 1 << 20));
        TaskPlan plan = opener.open(STREAM, metrics);
        TaskProcessor task = new TaskProcessor(id, plan, opener, replies::send, new ResultFeed(), new TaskClock());
        task.definitions(n -> n.equals("m") ? BY_SHOP : null, () -> STREAM);
        return task;
    }

    ConsumerRecord<byte[], byte[]> event(long offset, String card) {
        ConsumerRecord<byte[], byte[]> r = new ConsumerRecord<>(Topics.decider("p"), 0, offset, null,
                codec.encode(new Object[] {offset, T0 + offset * 10 * Durations.MILLISECOND, card, "s1"}, 0));
        r.headers().add(KafkaHeaders.REPLY_TO, "n1".getBytes(StandardCharsets.UTF_8));
        r.headers().add(KafkaHeaders.CORRELATION, ReplyCodec.correlationKey(offset));
        return r;
    }

    /** The {@code i}-th forward sent to the shop topic, as its task takes it at {@code offset}. */
    ConsumerRecord<byte[], byte[]> received(ProducerRecord<byte[], byte[]> r, long offset) {
        ConsumerRecord<byte[], byte[]> c = new ConsumerRecord<>(r.topic(), r.partition(), offset, r.key(), r.value());
        r.headers().forEach(h -> c.headers().add(h));
        return c;
    }

    List<ProducerRecord<byte[], byte[]>> toShops() {
        return sent.stream().filter(r -> r.topic().equals(Topics.partitioner("p", "shop"))).toList();
    }

    long shopCount() {
        var last = replies.history().get(replies.history().size() - 1);
        Reply reply = ReplyCodec.decode(last.key(), last.value());
        return ((Number) reply.metrics().get("m")[0]).longValue();
    }

    @Test
    void aLostForwardIsForwardedAgainAndNothingAfterItIsTakenFirst() {
        try (TaskProcessor decider = task("decider", new TaskId(Topics.decider("p"), 0), List.of());
                TaskProcessor shop = task("shop", new TaskId(Topics.partitioner("p", "shop"), 0), List.of(BY_SHOP))) {
            decider.plan().decider();
            decider.forwarder(new Forwarder((r, cb) -> {
                sent.add(r);
                callbacks.add(cb);
            }));
            for (long o = 0; o < 3; o++) {
                assertFalse(decider.process(event(o, "c" + o)));
            }
            List<ProducerRecord<byte[], byte[]>> first = toShops();
            assertEquals(3, first.size());
            for (int i = 0; i < callbacks.size(); i++) {
                // the second event's forwards fail; Kafka has the first's and the third's
                callbacks.get(i).onCompletion(null, i / 2 == 1 ? new IllegalStateException("timed out") : null);
            }
            long offset = 0;
            assertFalse(shop.process(received(first.get(0), offset++)));
            assertEquals(1, shopCount());
            int answered = replies.history().size();
            assertFalse(shop.process(received(first.get(2), offset++)));
            assertEquals(answered, replies.history().size(), "the third decision waits for the second");
            assertEquals(0, shop.plan().lastDecision());

            // the decider's next record: it rolls back to its checkpoint (none: the start) and forwards again
            assertTrue(decider.process(event(3, "c3")), "rolled back: its records again from its checkpoint");
            sent.clear();
            for (long o = decider.nextOffset(); o < 4; o++) {
                assertFalse(decider.process(event(o, "c" + o)));
            }
            List<ProducerRecord<byte[], byte[]>> again = toShops();
            assertEquals(4, again.size(), "every decision since the checkpoint forwarded again, and the new one");
            for (ProducerRecord<byte[], byte[]> r : again) {
                shop.process(received(r, offset++));
            }
            assertEquals(3, shop.plan().lastDecision());
            assertEquals(4, shopCount(), "each decision applied once: the first was not applied twice");
            assertEquals(-1L, ByteBuffer.wrap(again.get(0).headers().lastHeader(KafkaHeaders.DECISION).value(), 8, 8)
                    .getLong(), "the ledger went back with the checkpoint");
            for (int i = 6; i < callbacks.size(); i++) {
                callbacks.get(i).onCompletion(null, null);
            }
        }
    }

    /**
     * A decider replica promoted after more records than it keeps forwards of (the old active's last commit further
     * back): it makes the older forwards again from its reservoir, so every partitioning still gets every decision.
     */
    @Test
    void aPromotedDeciderForwardsAgainWhatItNoLongerKept() {
        int events = RecentReplies.CAPACITY; // 3 kept records each (its reply, two forwards): a third is kept
        try (TaskProcessor decider = task("decider", new TaskId(Topics.decider("p"), 0), List.of());
                TaskProcessor shop = task("shop", new TaskId(Topics.partitioner("p", "shop"), 0), List.of(BY_SHOP))) {
            decider.forwarder(new Forwarder((r, cb) -> {
                sent.add(r);
                cb.onCompletion(null, null);
            }));
            decider.role(TaskRole.REPLICA);
            for (long o = 0; o < events; o++) {
                assertFalse(decider.process(event(o, "c" + o % 7)));
            }
            assertTrue(sent.isEmpty(), "a replica sends nothing");
            decider.promote(0);
            List<ProducerRecord<byte[], byte[]>> forwards = toShops();
            assertTrue(forwards.size() >= events, "every decision forwarded: " + forwards.size());
            long offset = 0;
            for (ProducerRecord<byte[], byte[]> r : forwards) {
                shop.process(received(r, offset++));
            }
            assertEquals(events - 1, shop.plan().lastDecision());
            assertEquals(events, shopCount(), "every decision applied once (all within the 5-minute window)");
        }
    }

    /**
     * A checkpoint does not wait for Kafka: it keeps the forwards not acknowledged yet, and a decider opened from it
     * (here: rolled back after a failed forward) sends them again before anything newer.
     */
    @Test
    void aCheckpointKeepsWhatKafkaHasNotAcknowledgedAndTheDeciderSendsItAgain() {
        try (TaskProcessor decider = task("decider", new TaskId(Topics.decider("p"), 0), List.of());
                TaskProcessor shop = task("shop", new TaskId(Topics.partitioner("p", "shop"), 0), List.of(BY_SHOP))) {
            decider.forwarder(new Forwarder((r, cb) -> {
                sent.add(r);
                callbacks.add(cb);
            }));
            assertFalse(decider.process(event(0, "c0")));
            assertFalse(decider.process(event(1, "c1")));
            long began = System.nanoTime();
            decider.checkpointIfDirty();
            assertTrue(System.nanoTime() - began < 1_000_000_000L, "no wait for Kafka's acknowledgements");
            List<ProducerRecord<byte[], byte[]>> first = toShops();
            // Kafka has the first event's forwards and the second's to the card topic; its forward to shops failed
            for (int i = 0; i < 4; i++) {
                callbacks.get(i).onCompletion(null, i == 3 ? new IllegalStateException("timed out") : null);
            }
            long offset = 0;
            assertFalse(shop.process(received(first.get(0), offset++)));
            assertTrue(decider.process(event(2, "c2")), "rolled back to its checkpoint (offset 2)");
            assertEquals(2, decider.nextOffset());
            sent.clear();
            assertFalse(decider.process(event(2, "c2")));
            List<ProducerRecord<byte[], byte[]>> again = toShops();
            assertEquals(3, again.size(), "the two the checkpoint kept, then the new one");
            for (ProducerRecord<byte[], byte[]> r : again) {
                shop.process(received(r, offset++));
            }
            assertEquals(2, shop.plan().lastDecision());
            assertEquals(3, shopCount(), "each decision once");
            for (int i = 4; i < callbacks.size(); i++) {
                callbacks.get(i).onCompletion(null, null);
            }
        }
    }
}
