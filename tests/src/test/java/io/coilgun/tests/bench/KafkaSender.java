package io.coilgun.tests.bench;

import io.coilgun.cluster.ingest.EventPublisher;
import io.coilgun.cluster.kafka.TopicAdmin;
import io.coilgun.cluster.kafka.Topics;
import io.coilgun.cluster.reply.Reply;
import io.coilgun.cluster.reply.ReplyRouter;
import io.coilgun.cluster.reply.ReplyStatus;
import io.coilgun.planner.event.EventCodec;
import io.coilgun.planner.model.ColumnType;
import io.coilgun.planner.model.LatePolicy;
import io.coilgun.planner.model.StreamColumn;
import io.coilgun.planner.model.StreamDef;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Like the paper's injector: events go straight to the stream's partitioner topic, as the front end would publish
 * them, with this injector's own reply topic as the reply address; latency runs until the task's reply arrives.
 * One instance is shared by all workers (the producer batches across them).
 */
final class KafkaSender implements Sender {
    private static final String NODE = "bench-injector";
    /** The benchmark stream, as {@link Workload#STREAM_DDL} defines it. */
    static final StreamDef STREAM = new StreamDef("payments", List.of(
            new StreamColumn("id", ColumnType.BIGINT, false), new StreamColumn("ts", ColumnType.TIMESTAMP, false),
            new StreamColumn("card_id", ColumnType.VARCHAR, false),
            new StreamColumn("merchant_id", ColumnType.VARCHAR, false),
            new StreamColumn("amount", ColumnType.DOUBLE, false)), 1, 0, List.of("card_id"), 4,
            StreamDef.DEFAULT_LATENESS_MICROS, LatePolicy.REJECT, Workload.STREAM_DDL, List.of(5), 0,
            StreamDef.DEFAULT_DEDUP_HORIZON_MICROS, 1);

    private final KafkaProducer<byte[], byte[]> producer;
    private final ReplyRouter router;
    private final EventPublisher publisher;
    /** Stateless: encode is safe from every worker. */
    private final EventCodec codec = new EventCodec(STREAM);
    private final int timeoutS;

    KafkaSender(String bootstrap, int timeoutS) {
        try (TopicAdmin admin = new TopicAdmin(bootstrap)) {
            admin.ensureTopic(Topics.replies(NODE), 1, Map.of("retention.ms", "3600000"));
        }
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrap);
        p.put("linger.ms", "0");
        p.put("acks", "all");
        this.producer = new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
        this.router = new ReplyRouter(bootstrap, NODE, timeoutS * 1000L);
        this.publisher = new EventPublisher(NODE, producer, router);
        this.timeoutS = timeoutS;
    }

    @Override
    public void send(Payment p) throws Exception {
        Object[] values = {p.id(), p.timeMicros(), p.card(), p.merchant(), p.amount()};
        List<Reply> replies = publisher.publish(STREAM, codec, values, 0).get(timeoutS, TimeUnit.SECONDS);
        for (Reply r : replies) {
            if (r.status() != ReplyStatus.APPLIED) {
                throw new IllegalStateException("event " + p.id() + ": " + r.status() + " " + r.message());
            }
        }
    }

    @Override
    public void close() {
        router.close();
        producer.close();
    }
}
