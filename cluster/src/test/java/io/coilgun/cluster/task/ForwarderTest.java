package io.coilgun.cluster.task;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coilgun.cluster.ingest.EventPublisher;
import io.coilgun.cluster.kafka.KafkaHeaders;
import io.coilgun.cluster.kafka.Topics;
import io.coilgun.cluster.reply.ReplyCodec;
import io.coilgun.planner.event.GroupKeys;
import io.coilgun.planner.model.ColumnType;
import io.coilgun.planner.model.Durations;
import io.coilgun.planner.model.LatePolicy;
import io.coilgun.planner.model.StreamColumn;
import io.coilgun.planner.model.StreamDef;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;

/** A decider's forwards: one per partitioner topic, keyed and partitioned there, with the decision's offset. */
class ForwarderTest {
    static final StreamDef STREAM = new StreamDef("p", List.of(new StreamColumn("id", ColumnType.BIGINT, false),
            new StreamColumn("ts", ColumnType.TIMESTAMP, false), new StreamColumn("card", ColumnType.VARCHAR, false),
            new StreamColumn("shop", ColumnType.VARCHAR, false)), 1, 0, List.of("card", "shop"), 8,
            10 * Durations.SECOND, LatePolicy.DROP, "");

    @Test
    void anAcceptedEventGoesToEveryPartitionerWithItsDecisionAndTheRepliesAddress() {
        ConsumerRecord<byte[], byte[]> record = new ConsumerRecord<>(Topics.decider("p"), 0, 42, null, new byte[0]);
        record.headers().add(KafkaHeaders.REPLY_TO, "n2".getBytes(StandardCharsets.UTF_8));
        record.headers().add(KafkaHeaders.CORRELATION, ReplyCodec.correlationKey(7));
        byte[] payload = {1, 2, 3};
        List<ProducerRecord<byte[], byte[]>> out = Forwarder.forwards(STREAM, record, payload,
                new Object[] {5L, 1_000L, "c1", "s9"}, ForwardLedger.fresh(STREAM));
        assertEquals(2, out.size());
        String[] values = {"c1", "s9"};
        for (int f = 0; f < 2; f++) {
            ProducerRecord<byte[], byte[]> r = out.get(f);
            assertEquals(Topics.partitioner("p", STREAM.partitionBy().get(f)), r.topic());
            byte[] key = GroupKeys.encodeOne(values[f]);
            assertArrayEquals(key, r.key());
            assertEquals(EventPublisher.partition(key, 8), r.partition(), "where the front end would send it");
            assertArrayEquals(payload, r.value(), "the decided payload (its final time)");
            assertArrayEquals("n2".getBytes(StandardCharsets.UTF_8),
                    r.headers().lastHeader(KafkaHeaders.REPLY_TO).value());
            assertArrayEquals(ReplyCodec.correlationKey(7), r.headers().lastHeader(KafkaHeaders.CORRELATION).value());
            ConsumerRecord<byte[], byte[]> received = new ConsumerRecord<>(r.topic(), r.partition(), 3, r.key(),
                    r.value());
            r.headers().forEach(h -> received.headers().add(h));
            assertEquals(42, Forwarder.decisionOf(received));
        }
        assertEquals(-1, Forwarder.decisionOf(record), "an event as published is no forward");
    }

    @Test
    void eachForwardCarriesTheDecisionForwardedBeforeItToItsPartitionAndIsTakenOnlyAfterIt() {
        ForwardLedger ledger = ForwardLedger.fresh(STREAM);
        List<ConsumerRecord<byte[], byte[]>> toShop = new ArrayList<>();
        for (long offset : new long[] {3, 8, 9}) {
            ConsumerRecord<byte[], byte[]> event = new ConsumerRecord<>(Topics.decider("p"), 0, offset, null,
                    new byte[0]);
            ProducerRecord<byte[], byte[]> r = Forwarder.forwards(STREAM, event, new byte[0],
                    new Object[] {offset, 1_000L, "c" + offset, "s1"}, ledger).get(1);
            ConsumerRecord<byte[], byte[]> received = new ConsumerRecord<>(r.topic(), r.partition(), offset, r.key(),
                    r.value());
            r.headers().forEach(h -> received.headers().add(h));
            toShop.add(received);
        }
        assertTrue(Forwarder.inTurn(toShop.get(0), 3, -1), "the first forward, to a task that applied nothing");
        assertTrue(Forwarder.inTurn(toShop.get(1), 8, 3), "after the one before it");
        assertTrue(!Forwarder.inTurn(toShop.get(2), 9, 3), "not before the one before it (8) was applied");
        assertTrue(!Forwarder.inTurn(toShop.get(1), 8, 9), "applied already");
        ConsumerRecord<byte[], byte[]> legacy = new ConsumerRecord<>("t", 0, 0, null, new byte[0]);
        legacy.headers().add(KafkaHeaders.DECISION, java.nio.ByteBuffer.allocate(8).putLong(12).array());
        assertTrue(Forwarder.inTurn(legacy, 12, 9), "a forward that does not say what came before: any newer one");
    }

    @Test
    void aPartitionerAddedToTheStreamStartsUnknownInTheLedgerTheOthersKeepTheirs() {
        ForwardLedger ledger = ForwardLedger.fresh(STREAM);
        ConsumerRecord<byte[], byte[]> first = new ConsumerRecord<>(Topics.decider("p"), 0, 3, null, new byte[0]);
        Forwarder.forwards(STREAM, first, new byte[0], new Object[] {3L, 1_000L, "c1", "s1", "d1"}, ledger);
        StreamDef added = STREAM.withColumn(new StreamColumn("dev", ColumnType.VARCHAR, false))
                .withPartitioner("dev", 2);
        ForwardLedger grown = ledger.resized(added);
        ConsumerRecord<byte[], byte[]> next = new ConsumerRecord<>(Topics.decider("p"), 0, 8, null, new byte[0]);
        List<ProducerRecord<byte[], byte[]>> out = Forwarder.forwards(added, next, new byte[0],
                new Object[] {8L, 1_000L, "c1", "s1", "d1"}, grown);
        assertEquals(3, out.size());
        assertEquals(3, before(out.get(0)), "card: the decision forwarded before, kept");
        assertEquals(ForwardLedger.UNKNOWN, before(out.get(2)), "dev: nothing known before");
        assertEquals(1, Forwarder.forwards(added, next, new byte[0], new Object[] {8L, 1_000L, "c1", "s1", "d1"},
                grown, field -> field.equals("dev")).size(), "only the partitioners asked for");
    }

    private static long before(ProducerRecord<byte[], byte[]> forward) {
        return java.nio.ByteBuffer.wrap(forward.headers().lastHeader(KafkaHeaders.DECISION).value(), 8, 8).getLong();
    }

    @Test
    void theDeciderCommitsNoFurtherThanItsOldestUnacknowledgedForward() {
        List<Callback> pending = new ArrayList<>();
        Forwarder forwarder = new Forwarder((r, callback) -> pending.add(callback), () -> { });
        assertEquals(100, forwarder.committable(100), "nothing in flight");
        for (long decision : new long[] {40, 41}) {
            ProducerRecord<byte[], byte[]> forward = new ProducerRecord<>("t", 0, null, new byte[0]);
            forward.headers().add(KafkaHeaders.DECISION, java.nio.ByteBuffer.allocate(16).putLong(decision)
                    .putLong(-1).array());
            forwarder.send(forward);
        }
        assertEquals(40, forwarder.committable(100), "a replica taking over forwards decision 40 again");
        pending.get(0).onCompletion(null, null);
        assertEquals(41, forwarder.committable(100));
        pending.get(1).onCompletion(null, null);
        assertEquals(100, forwarder.committable(100));
    }

    @Test
    void aFailedForwardTellsTheUnitOnceUntilTheDeciderRolledBack() {
        List<Callback> pending = new ArrayList<>();
        int[] told = {0};
        Forwarder forwarder = new Forwarder((r, callback) -> pending.add(callback), () -> told[0]++);
        ProducerRecord<byte[], byte[]> forward = new ProducerRecord<>("t", 0, null, new byte[0]);
        forwarder.send(forward);
        forwarder.send(forward);
        pending.get(0).onCompletion(null, new IllegalStateException("lost"));
        pending.get(1).onCompletion(null, new IllegalStateException("lost too"));
        assertEquals(1, told[0], "told once");
        assertTrue(forwarder.takeFailure() != null);
        assertTrue(forwarder.takeFailure() == null, "rolled back: nothing more to do");
        forwarder.send(forward);
        pending.get(2).onCompletion(null, new IllegalStateException("again"));
        assertEquals(2, told[0], "a failure after the rollback tells again");
    }

    @Test
    void aCheckpointWaitsForEveryForwardAndRefusesWhenOneFailed() {
        List<Callback> pending = new ArrayList<>();
        Forwarder forwarder = new Forwarder((r, callback) -> pending.add(callback));
        ProducerRecord<byte[], byte[]> forward = new ProducerRecord<>("t", 0, null, new byte[0]);
        forwarder.send(forward);
        forwarder.send(forward);
        Thread acks = new Thread(() -> {
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                return;
            }
            pending.forEach(c -> c.onCompletion(null, null));
        });
        acks.start();
        long began = System.nanoTime();
        forwarder.awaitSent();
        assertTrue(System.nanoTime() - began >= 50_000_000L, "waited for the acknowledgements");

        forwarder.send(forward);
        pending.get(2).onCompletion(null, new IllegalStateException("broker gone"));
        IllegalStateException e = assertThrows(IllegalStateException.class, forwarder::awaitSent);
        assertTrue(e.getMessage().contains("broker gone"), e.getMessage());
    }
}
