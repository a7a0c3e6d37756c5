package io.coilgun.cluster.task;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coilgun.cluster.feed.ResultFeed;
import io.coilgun.cluster.ingest.TaskClock;
import io.coilgun.cluster.kafka.KafkaHeaders;
import io.coilgun.cluster.reply.Reply;
import io.coilgun.cluster.reply.ReplyCodec;
import io.coilgun.cluster.reply.ReplyStatus;
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
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A task processor's own logic, with a real task plan (RocksDB, reservoir) and Kafka's MockProducer catching the
 * replies: answers per outcome, probes, and a failure contained in the task (rollback, skip, no double answers, stop
 * after repeated failures).
 */
class TaskProcessorTest {
    static final ReservoirIO IO = ReservoirIO.defaults();
    static final long T0 = 1_700_000_000_000_000L;
    static final StreamDef STREAM = new StreamDef("p", List.of(new StreamColumn("id", ColumnType.BIGINT, false),
            new StreamColumn("ts", ColumnType.TIMESTAMP, false), new StreamColumn("card", ColumnType.VARCHAR, false),
            new StreamColumn("amount", ColumnType.DOUBLE, false)), 1, 0, List.of("card"), 1, 10 * Durations.SECOND,
            LatePolicy.REJECT, "");
    static final MetricDef METRIC = new MetricDef("m", "p", List.of(
            new AggregationDef(AggregationKind.SUM, 3, "total", ColumnType.DOUBLE),
            new AggregationDef(AggregationKind.COUNT_STAR, -1, "n", ColumnType.BIGINT)),
            List.of(2), "card", WindowSpec.sliding(5 * Durations.MINUTE), "");

    @TempDir
    Path dir;
    final EventCodec codec = new EventCodec(STREAM);
    final MockProducer<byte[], byte[]> producer = new MockProducer<>(true, null, new ByteArraySerializer(),
            new ByteArraySerializer());
    final TaskClock clock = new TaskClock();
    long nextOffset;

    @AfterAll
    static void closeIo() {
        IO.close();
    }

    TaskProcessor open() {
        TaskProcessor.PlanOpener opener = (s, m) -> TaskPlan.open(dir, s, m, IO, new ChunkCache(8, 1 << 20));
        return new TaskProcessor(new TaskId("coilgun.stream.p.card", 0), opener.open(STREAM, List.of(METRIC)), opener,
                producer::send, new ResultFeed(), clock);
    }

    ConsumerRecord<byte[], byte[]> record(long offset, long id, long seconds, String card, double amount,
            boolean probe) {
        ConsumerRecord<byte[], byte[]> r = new ConsumerRecord<>("coilgun.stream.p.card", 0, offset,
                card.getBytes(StandardCharsets.UTF_8), codec.encode(new Object[] {id, T0 + seconds * Durations.SECOND,
                    card, amount}, 0));
        r.headers().add(KafkaHeaders.REPLY_TO, "n1".getBytes(StandardCharsets.UTF_8));
        r.headers().add(KafkaHeaders.CORRELATION, ReplyCodec.correlationKey(offset));
        if (probe) {
            r.headers().add(KafkaHeaders.PROBE, new byte[] {1});
        }
        return r;
    }

    TaskProcessor openWithout(List<MetricDef> metrics) {
        TaskProcessor.PlanOpener opener = (s, m) -> TaskPlan.open(dir, s, m, IO, new ChunkCache(8, 1 << 20));
        return new TaskProcessor(new TaskId("coilgun.stream.p.card", 0), opener.open(STREAM, metrics), opener,
                producer::send, new ResultFeed(), clock);
    }

    static ConsumerRecord<byte[], byte[]> startMarker(long offset, String metric) {
        ConsumerRecord<byte[], byte[]> r = new ConsumerRecord<>("coilgun.stream.p.card", 0, offset, null, new byte[0]);
        r.headers().add(KafkaHeaders.REPLY_TO, "n1".getBytes(StandardCharsets.UTF_8));
        r.headers().add(KafkaHeaders.CORRELATION, ReplyCodec.correlationKey(offset));
        r.headers().add(KafkaHeaders.START_METRIC, metric.getBytes(StandardCharsets.UTF_8));
        return r;
    }

    @Test
    void aMetricStartsAtItsMarkerOnceWhateverTheCopy() {
        try (TaskProcessor task = openWithout(List.of())) {
            task.definitions(name -> name.equals("m") ? METRIC : null, () -> STREAM);
            assertFalse(task.process(record(0, 1, 0, "c1", 10, false)));
            assertTrue(lastReply().metrics().isEmpty(), "no metric yet");
            assertFalse(task.process(startMarker(1, "m")));
            assertEquals(ReplyStatus.DROPPED, lastReply().status(), "a marker is no event");
            assertEquals(2, task.nextOffset(), "checkpointed at once");
            assertFalse(task.process(record(2, 2, 1, "c1", 5, false)));
            assertArrayEquals(new Object[] {5.0, 1L}, lastReply().metrics().get("m"), "counts from its marker on");
            assertFalse(task.process(startMarker(3, "m"))); // published again (a node's start): changes nothing
            assertFalse(task.process(record(4, 3, 2, "c1", 1, false)));
            assertArrayEquals(new Object[] {6.0, 2L}, lastReply().metrics().get("m"));
            assertFalse(task.process(startMarker(5, "gone"))); // a metric dropped since: skipped
            assertEquals(6, task.nextOffset());
        }
    }

    @Test
    void anEventOfANewerSchemaWaitsForItRatherThanFailing() {
        StreamDef altered = STREAM.withColumn(new StreamColumn("note", ColumnType.VARCHAR, false));
        EventCodec newer = new EventCodec(altered);
        StreamDef[] deployed = {STREAM};
        try (TaskProcessor task = open()) {
            task.definitions(name -> null, () -> deployed[0]);
            ConsumerRecord<byte[], byte[]> r = new ConsumerRecord<>("coilgun.stream.p.card", 0, 0,
                    "c1".getBytes(StandardCharsets.UTF_8), newer.encode(new Object[] {1L, T0, "c1", 10.0, "x"}, 0));
            r.headers().add(KafkaHeaders.REPLY_TO, "n1".getBytes(StandardCharsets.UTF_8));
            r.headers().add(KafkaHeaders.CORRELATION, ReplyCodec.correlationKey(0));
            assertTrue(task.process(r), "this node has not applied the ALTER yet: the record again later");
            assertEquals(0, task.nextOffset());
            assertEquals(TaskState.RUNNING, task.state());
            assertTrue(producer.history().isEmpty(), "not answered, not failed");
            deployed[0] = altered; // the node applied it
            assertFalse(task.process(r));
            assertEquals(ReplyStatus.APPLIED, lastReply().status());
            assertArrayEquals(new Object[] {10.0, 1L}, lastReply().metrics().get("m"));
        }
    }

    /** The reply sent last. */
    Reply lastReply() {
        var sent = producer.history().get(producer.history().size() - 1);
        return ReplyCodec.decode(sent.key(), sent.value());
    }

    @Test
    void answersEachEventWithItsOutcomeAndValues() {
        try (TaskProcessor task = open()) {
            assertFalse(task.process(record(0, 1, 0, "c1", 10, false)));
            assertEquals(ReplyStatus.APPLIED, lastReply().status());
            assertArrayEquals(new Object[] {10.0, 1L}, lastReply().metrics().get("m"));
            assertFalse(task.process(record(1, 1, 0, "c1", 10, false)));
            assertEquals(ReplyStatus.DUPLICATE, lastReply().status());
            assertFalse(task.process(record(2, 2, -60, "c1", 1, false)));
            assertEquals(ReplyStatus.LATE, lastReply().status());
            // a probe answers from the dedup index and applies nothing
            assertFalse(task.process(record(3, 1, 0, "c1", 10, true)));
            assertEquals(ReplyStatus.DUPLICATE, lastReply().status());
            assertFalse(task.process(record(4, 9, -60, "c1", 10, true)));
            assertEquals(ReplyStatus.NOT_DUPLICATE, lastReply().status());
            assertFalse(task.process(record(5, 3, 1, "c1", 5, false)));
            assertArrayEquals(new Object[] {15.0, 2L}, lastReply().metrics().get("m"), "the probes applied nothing");
            assertEquals(6, task.nextOffset());
        }
    }

    @Test
    void aFailureRollsBackSkipsTheEventAndAnswersNothingTwice() {
        Assumptions.assumeTrue(io.coilgun.planner.plan.TestFaults.ENABLED, "needs -Dcoilgun.testFaults=true");
        try (TaskProcessor task = open()) {
            task.process(record(0, 1, 0, "c1", 10, false));
            task.checkpointIfDirty();
            task.process(record(1, 2, 1, "c1", 1, false));
            int before = producer.history().size();
            assertTrue(task.process(record(2, 3, 2, "coilgun:fail", 1, false)), "the unit seeks back");
            assertEquals(before + 1, producer.history().size());
            assertEquals(ReplyStatus.FAILED, lastReply().status());
            assertEquals(TaskState.RECOVERING, task.state());
            assertEquals(1, task.nextOffset(), "reopened at the checkpoint");
            assertNotNull(task.lastError());
            // the unit redelivers from the checkpoint: offset 1 again (not answered twice), 2 skipped, then on
            task.process(record(1, 2, 1, "c1", 1, false));
            task.process(record(2, 3, 2, "coilgun:fail", 1, false));
            assertEquals(before + 1, producer.history().size(), "nothing answered twice");
            assertEquals(TaskState.RUNNING, task.state());
            task.process(record(3, 4, 3, "c1", 4, false));
            assertArrayEquals(new Object[] {15.0, 3L}, lastReply().metrics().get("m"));
            assertEquals(List.of(2L), task.failedEvents().stream().map(f -> f.offset()).toList());
            assertEquals("3", task.failedEvents().get(0).eventId());
        }
    }

    @Test
    void repeatedFailuresStopTheTaskAndTellTheFrontEnd() {
        Assumptions.assumeTrue(io.coilgun.planner.plan.TestFaults.ENABLED, "needs -Dcoilgun.testFaults=true");
        try (TaskProcessor task = open()) {
            for (int i = 0; i < TaskFailurePolicy.MAX_FAILURES; i++) {
                assertTrue(task.process(record(i, 100 + i, i, "coilgun:fail", 1, false)));
            }
            assertEquals(TaskState.FAILED, task.state());
            assertNotNull(clock.stopped(), "the front end refuses statements for it");
            assertFalse(task.process(record(99, 200, 99, "c1", 1, false)));
            assertEquals(ReplyStatus.FAILED, lastReply().status());
            assertTrue(lastReply().message().contains("is stopped"), lastReply().message());
        }
    }
}
