package io.coilgun.cluster.task;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coilgun.cluster.feed.ResultFeed;
import io.coilgun.cluster.ingest.TaskClock;
import io.coilgun.cluster.kafka.KafkaHeaders;
import io.coilgun.cluster.kafka.Topics;
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
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A stream partitioned by card, shop and device (topics of 2, 3 and 1 partitions) through its real decider and
 * partitioner task processors, with Kafka simulated around them: randomized events (disorder beyond the lateness,
 * retries of earlier ids) under every late_events policy, forwards that Kafka loses at random (a failed send, later
 * ones to the same partition written after it), deciders that lose every forward in flight at once (a crash),
 * checkpoints at random points, rollbacks at the decider's next record or when its unit is told. In two rounds of
 * three the stream begins with card and shop and gains device a third of the way in (ALTER STREAM … ADD PARTITION
 * BY): the decider fills it from its history in slices between records, beside a replica that takes the same
 * records; now and then the active dies and the replica takes over from the active's last checkpoint (a new replica
 * replays the decision log from its start), filling the device topic again unless the old active's commit vouches
 * for it. Whatever happens, every
 * partitioning applies exactly the events the decider accepted, each once: a last event per key then reports, in
 * each partitioning, the number of accepted events of that key plus one.
 */
class DecidedStreamPropertyTest {
    static final ReservoirIO IO = ReservoirIO.defaults();
    static final long T0 = 1_700_000_000_000_000L;
    static final String[] FIELDS = {"card", "shop", "dev"};

    @TempDir
    Path dir;
    final MockProducer<byte[], byte[]> replies = new MockProducer<>(true, null, new ByteArraySerializer(),
            new ByteArraySerializer());

    @AfterAll
    static void closeIo() {
        IO.close();
    }

    static StreamDef stream(LatePolicy policy) {
        return new StreamDef("p", List.of(new StreamColumn("id", ColumnType.BIGINT, false),
                new StreamColumn("ts", ColumnType.TIMESTAMP, false),
                new StreamColumn("card", ColumnType.VARCHAR, false), new StreamColumn("shop", ColumnType.VARCHAR, false),
                new StreamColumn("dev", ColumnType.VARCHAR, false)),
                1, 0, List.of(FIELDS), 1, 3 * Durations.SECOND, policy, "", List.of(5), 0, Durations.HOUR, 1,
                Map.of("card", 2, "shop", 3, "dev", 1));
    }

    static MetricDef metric(String field, int column) {
        return new MetricDef("by_" + field, "p", List.of(new AggregationDef(AggregationKind.COUNT_STAR, -1, "n",
                ColumnType.BIGINT)), List.of(column), field, WindowSpec.sliding(365 * Durations.DAY), "");
    }

    /** A send in flight: the forward and its callback. */
    record InFlight(ProducerRecord<byte[], byte[]> forward, Callback callback) {
    }

    @ParameterizedTest(name = "late_events = {0}")
    @ValueSource(strings = {"DROP", "CLAMP", "REJECT"})
    void everyPartitioningAppliesExactlyWhatTheDeciderAccepted(String policyName) {
        LatePolicy policy = LatePolicy.valueOf(policyName);
        StreamDef stream = stream(policy);
        EventCodec codec = new EventCodec(stream);
        Random rnd = new Random(policyName.hashCode() + Long.getLong("coilgun.testSeed", 0)); // -D to try others
        for (int round = 0; round < 5; round++) {
            Path at = dir.resolve(policyName + "-" + round);
            boolean adds = round > 0; // dev is added a third of the way in
            StreamDef created = adds ? stream.withoutPartitioner("dev") : stream;
            replies.clear();
            List<Object[]> events = events(rnd, 600);
            Map<String, TaskProcessor> partitioners = new HashMap<>();
            Map<String, List<ProducerRecord<byte[], byte[]>>> logs = new HashMap<>(); // topic-partition -> written
            Map<String, Integer> read = new HashMap<>();
            List<InFlight> inFlight = new ArrayList<>();
            boolean[] told = {false}; // the unit was told a forward failed (ProcessorUnit.rollBackForwards)
            TaskProcessor decider = decider(at.resolve("decider-0"), created, inFlight, told);
            TaskProcessor replica = adds ? decider(at.resolve("decider-1"), created, inFlight, new boolean[1]) : null;
            if (replica != null) {
                replica.role(TaskRole.REPLICA);
            }
            int copies = 2;
            int replicaAt = 0;
            long committed = -1;
            for (int f = 0; f < (adds ? 2 : FIELDS.length); f++) {
                for (int p = 0; p < stream.partitions(FIELDS[f]); p++) {
                    String tp = Topics.partitioner("p", FIELDS[f]) + "-" + p;
                    partitioners.put(tp, task(at.resolve(tp), new TaskId(Topics.partitioner("p", FIELDS[f]), p),
                            stream, List.of(metric(FIELDS[f], 2 + f))));
                    logs.put(tp, new ArrayList<>());
                    read.put(tp, 0);
                }
            }
            List<ConsumerRecord<byte[], byte[]>> decisionLog = new ArrayList<>();
            for (int i = 0; i < events.size(); i++) {
                decisionLog.add(record(codec, i, events.get(i)));
            }
            Set<Long> accepted = new HashSet<>(); // event ids the decider answered APPLIED
            Map<Long, Object[]> byId = new HashMap<>();
            int next = 0;
            int answered = 0;
            int steps = 0;
            boolean finishing = false; // no more faults: a client's retry, then everything settles
            boolean added = !adds;
            while (true) {
                if (!added && next >= decisionLog.size() / 3) {
                    added = true;
                    StreamDef altered = created.withPartitioner("dev", stream.partitions("dev"));
                    decider.alterStream(altered);
                    replica.alterStream(altered);
                    String tp = Topics.partitioner("p", "dev") + "-0";
                    partitioners.put(tp, task(at.resolve(tp), new TaskId(Topics.partitioner("p", "dev"), 0),
                            altered, List.of(metric("dev", 4))));
                    logs.put(tp, new ArrayList<>());
                    read.put(tp, 0);
                }
                if (next >= decisionLog.size() && inFlight.isEmpty() && !unread(logs, read)
                        && !decider.hasBackfillWork()) {
                    if (finishing) {
                        break;
                    }
                    // a decider notices a lost forward at its next record: here a client's retry of an event
                    finishing = true;
                    Object[] again = null;
                    for (int e = events.size() - 1; again == null; e--) {
                        again = events.get(e); // the last event (a marker has none)
                    }
                    events.add(again.clone());
                    decisionLog.add(record(codec, decisionLog.size(), events.get(events.size() - 1)));
                }
                if (++steps > 200_000) {
                    throw new AssertionError("no progress: next " + next + " of " + decisionLog.size() + ", decider at "
                            + decider.nextOffset() + ", in flight " + inFlight.size() + ", replies "
                            + replies.history().size() + ", logs " + logs.values().stream().mapToInt(List::size).sum());
                }
                if (told[0] && rnd.nextBoolean()) { // the unit's command, between two of its rounds
                    told[0] = false;
                    if (decider.rollBackIfAForwardFailed()) {
                        next = (int) decider.nextOffset();
                    }
                }
                int step = rnd.nextInt(10);
                if (replica != null && rnd.nextInt(2) == 0 && replicaAt < decisionLog.size()) {
                    // the replica takes the same records, at its own pace
                    replicaAt = replica.process(decisionLog.get(replicaAt)) ? (int) replica.nextOffset() : replicaAt + 1;
                }
                if (step < 4 && next < decisionLog.size()) {
                    if (decider.process(decisionLog.get(next))) {
                        next = (int) decider.nextOffset(); // rolled back: its records again from its checkpoint
                    } else {
                        next++;
                    }
                } else if (step < 7 && !inFlight.isEmpty()) {
                    // Kafka answers the oldest sends; now and then one fails and is not written
                    int n = 1 + rnd.nextInt(inFlight.size());
                    for (int k = 0; k < n; k++) {
                        InFlight s = inFlight.remove(0);
                        if (!finishing && rnd.nextInt(400) == 0) {
                            s.callback().onCompletion(null, new IllegalStateException("lost"));
                        } else if (s.forward().topic().equals(Topics.decider("p"))) {
                            // the decider's own marker: a record of its topic, after the events written so far
                            ConsumerRecord<byte[], byte[]> marker = received(s.forward(), decisionLog.size());
                            decisionLog.add(marker);
                            events.add(null);
                            s.callback().onCompletion(null, null);
                        } else {
                            logs.get(s.forward().topic() + "-" + s.forward().partition()).add(s.forward());
                            s.callback().onCompletion(null, null);
                        }
                    }
                } else if (step == 7 && !finishing && rnd.nextInt(100) == 0 && !inFlight.isEmpty()) {
                    // the decider's node dies: every send in flight is lost
                    List<InFlight> lost = new ArrayList<>(inFlight);
                    inFlight.clear();
                    lost.forEach(s -> s.callback().onCompletion(null, new IllegalStateException("node died")));
                } else if (step == 8) {
                    decider.checkpointIfDirty();
                    committed = decider.committableOffset(); // the group's committed offset, after a checkpoint
                    if (replica != null) {
                        replica.checkpointIfDirty();
                    }
                    partitioners.values().forEach(TaskProcessor::checkpointIfDirty);
                } else if (step == 9 && rnd.nextBoolean() && decider.hasBackfillWork()) {
                    decider.backfill(System.nanoTime() + 100_000); // a slice of the fill between records
                } else if (step == 9 && added && adds && !finishing && copies < 6 && replicaAt >= next - 20
                        && rnd.nextInt(12) == 0) {
                    // the active's node dies: its sends in flight are lost, the replica (about as far as the active:
                    // a hot one) takes over from the active's last commit, and a new replica replays the decision
                    // log from its start; four failovers a round at most
                    List<InFlight> lost = new ArrayList<>(inFlight);
                    inFlight.clear();
                    lost.forEach(f -> f.callback().onCompletion(null, new IllegalStateException("node died")));
                    decider.discard();
                    decider = replica;
                    told[0] = false;
                    next = replicaAt;
                    decider.promote(committed);
                    decider.role(TaskRole.ACTIVE);
                    replica = decider(at.resolve("decider-" + copies++), decider.stream(), inFlight, new boolean[1]);
                    replica.role(TaskRole.REPLICA);
                    replicaAt = 0;
                } else {
                    for (var e : logs.entrySet()) { // every partitioner takes what Kafka has for it
                        TaskProcessor task = partitioners.get(e.getKey());
                        int from = read.get(e.getKey());
                        for (int r = from; r < e.getValue().size(); r++) {
                            task.process(received(e.getValue().get(r), r));
                        }
                        read.put(e.getKey(), e.getValue().size());
                    }
                }
                for (; answered < replies.history().size(); answered++) {
                    var sent = replies.history().get(answered);
                    Reply reply = ReplyCodec.decode(sent.key(), sent.value());
                    String task = new String(sent.key(), 8, sent.key().length - 8, StandardCharsets.UTF_8);
                    if (sent.key().length < 8 || events.get((int) ByteBuffer.wrap(sent.key(), 0, 8).getLong()) == null) {
                        continue;
                    }
                    if (task.equals(Topics.decider("p")) && reply.status() == ReplyStatus.APPLIED) {
                        long id = ByteBuffer.wrap(sent.key(), 0, 8).getLong(); // the correlation: the event's index
                        accepted.add((Long) events.get((int) id)[0]);
                        byId.put((Long) events.get((int) id)[0], events.get((int) id));
                    }
                }
            }
            assertTrue(accepted.size() > 200 && accepted.size() < events.size(), "accepted " + accepted.size());
            System.out.printf("DecidedStreamPropertyTest %s round %d: %d accepted, %d failovers, %d markers%n",
                    policyName, round, accepted.size(), copies - 2, events.stream().filter(e -> e == null).count());
            // one more event per key, through the same decider and forwards: its count is the key's accepted + 1
            Map<String, Long> expected = new HashMap<>();
            for (Object[] e : byId.values()) {
                for (int f = 0; f < FIELDS.length; f++) {
                    expected.merge(FIELDS[f] + ":" + e[2 + f], 1L, Long::sum);
                }
            }
            for (var key : expected.entrySet()) {
                String[] kv = key.getKey().split(":");
                int f = List.of(FIELDS).indexOf(kv[0]);
                Object[] last = {1_000_000L + expected.size(), T0 + 10_000 * Durations.SECOND, "c-none", "s-none",
                    "d-none"};
                last[2 + f] = kv[1];
                String tp = Topics.partitioner("p", kv[0]) + "-" + io.coilgun.cluster.ingest.EventPublisher.partition(
                        io.coilgun.planner.event.GroupKeys.encodeOne(kv[1]), stream.partitions(kv[0]));
                TaskProcessor task = partitioners.get(tp);
                long decision = 1_000_000L + key.hashCode() % 1000;
                ConsumerRecord<byte[], byte[]> r = new ConsumerRecord<>(tp, 0, Math.max(10_000_000L,
                        task.nextOffset()), null, codec.encode(last, 0));
                r.headers().add(KafkaHeaders.REPLY_TO, "n1".getBytes(StandardCharsets.UTF_8));
                r.headers().add(KafkaHeaders.CORRELATION, ReplyCodec.correlationKey(-1));
                r.headers().add(KafkaHeaders.DECISION, ByteBuffer.allocate(8).putLong(
                        Math.max(decision, task.plan().lastDecision() + 1)).array());
                task.process(r);
                var sent = replies.history().get(replies.history().size() - 1);
                Reply reply = ReplyCodec.decode(sent.key(), sent.value());
                assertEquals(key.getValue() + 1, ((Number) reply.metrics().get("by_" + kv[0])[0]).longValue(),
                        policyName + " round " + round + ": " + key.getKey());
            }
            decider.close();
            if (replica != null) {
                replica.close();
            }
            partitioners.values().forEach(TaskProcessor::close);
        }
    }

    private static boolean unread(Map<String, List<ProducerRecord<byte[], byte[]>>> logs, Map<String, Integer> read) {
        for (var e : logs.entrySet()) {
            if (read.get(e.getKey()) < e.getValue().size()) {
                return true;
            }
        }
        return false;
    }

    /** Events a second apart on average, a fifth up to 6 s behind (the lateness is 3 s), 3% retries of earlier ids. */
    static List<Object[]> events(Random rnd, int n) {
        List<Object[]> out = new ArrayList<>();
        long clock = T0;
        for (int i = 0; i < n; i++) {
            if (i > 10 && rnd.nextInt(33) == 0) {
                Object[] again = out.get(rnd.nextInt(out.size())).clone();
                out.add(again);
                continue;
            }
            clock += rnd.nextInt(2000) * Durations.MILLISECOND;
            long t = clock - (rnd.nextInt(5) == 0 ? rnd.nextInt(6000) * Durations.MILLISECOND : 0);
            out.add(new Object[] {(long) i, t, "c" + rnd.nextInt(9), "s" + rnd.nextInt(5), "d" + rnd.nextInt(4)});
        }
        return out;
    }

    /** Event {@code i} of the decision log; its correlation is {@code i}. */
    static ConsumerRecord<byte[], byte[]> record(EventCodec codec, long i, Object[] event) {
        ConsumerRecord<byte[], byte[]> r = new ConsumerRecord<>(Topics.decider("p"), 0, i, null,
                codec.encode(event, 0));
        r.headers().add(KafkaHeaders.REPLY_TO, "n1".getBytes(StandardCharsets.UTF_8));
        r.headers().add(KafkaHeaders.CORRELATION, ReplyCodec.correlationKey(i));
        return r;
    }

    static ConsumerRecord<byte[], byte[]> received(ProducerRecord<byte[], byte[]> r, long offset) {
        ConsumerRecord<byte[], byte[]> c = new ConsumerRecord<>(r.topic(), r.partition(), offset, r.key(), r.value());
        r.headers().forEach(h -> c.headers().add(h));
        return c;
    }

    /** A copy of the decider; its sends go to {@code inFlight}, {@code told} when one failed. */
    TaskProcessor decider(Path at, StreamDef stream, List<InFlight> inFlight, boolean[] told) {
        TaskProcessor d = task(at, new TaskId(Topics.decider("p"), 0), stream, List.of());
        d.forwarder(new Forwarder((r, cb) -> inFlight.add(new InFlight(r, cb)), () -> told[0] = true));
        return d;
    }

    TaskProcessor task(Path at, TaskId id, StreamDef stream, List<MetricDef> metrics) {
        TaskProcessor.PlanOpener opener = (s, m) -> TaskPlan.open(at, s, m, IO, new ChunkCache(8, 1 << 20));
        TaskProcessor task = new TaskProcessor(id, opener.open(stream, metrics), opener, replies::send,
                new ResultFeed(), new TaskClock());
        task.definitions(n -> null, () -> stream);
        return task;
    }
}
