package io.coilgun.tests.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The latency from a payment's record in a source topic to its record in a sink's topic, as a consumer of the sink
 * sees it (read_committed): payments are produced open loop at a fixed rate (each one's time is when it was due, so
 * a stall of the producer counts: no coordinated omission), a stream reads the topic, a metric counts and sums per
 * card, and a sink writes the metric's values of each payment; a consumer of the sink's topic notes when each
 * payment's record arrives.
 */
final class SinkLatency {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final String bootstrap;
    private final int partitions;
    private final int cards;

    SinkLatency(String bootstrap, int partitions, int cards) {
        this.bootstrap = bootstrap;
        this.partitions = partitions;
        this.cards = cards;
    }

    /** Creates the stream, metric and sink (topics {@code live_in}, {@code live_features}). */
    void create(Statement st) throws Exception {
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
            admin.createTopics(List.of(new NewTopic("live_in", partitions, (short) 1))).all().get();
        }
        st.execute("CREATE STREAM live (id BIGINT, ts TIMESTAMP, card_id VARCHAR, amount DOUBLE) WITH (event_time = "
                + "'ts', event_id = 'id', partition_by = 'card_id', partitions = " + partitions + ", lateness = "
                + "'1 minute', kafka_topic = 'live_in')");
        st.execute("CREATE METRIC live_5m AS SELECT SUM(amount) AS total, COUNT(*) AS n FROM live GROUP BY card_id "
                + "OVER SLIDING 5 MINUTES");
        st.execute("CREATE SINK live_out FROM live_5m INTO KAFKA TOPIC 'live_features'");
    }

    /**
     * {@code rate} payments a second for {@code seconds}, ids from {@code firstId}: the latency of each (ms), and how
     * many sink records came (all of them, unless the run is cut off 30 s after the last was due).
     */
    Result run(int rate, int seconds, long firstId) throws Exception {
        int n = rate * seconds;
        AtomicLongArray due = new AtomicLongArray(n);
        Histogram h = new Histogram(3_600_000_000L, 3);
        Histogram toSend = new Histogram(3_600_000_000L, 3);
        AtomicLong received = new AtomicLong();
        AtomicBoolean stop = new AtomicBoolean();
        long epochOffsetNs = System.currentTimeMillis() * 1_000_000L - System.nanoTime(); // nanoTime -> epoch
        Thread reader = new Thread(() -> read(firstId, due, h, toSend, epochOffsetNs, received, stop, n),
                "sink-latency-reader");
        reader.start();
        Thread.sleep(2_000); // the consumer has its partitions and sits at their end
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.LINGER_MS_CONFIG, 0);
        java.util.Random rnd = new java.util.Random(rate);
        long interval = 1_000_000_000L / rate;
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p, new ByteArraySerializer(),
                new ByteArraySerializer())) {
            long start = System.nanoTime() + 100_000_000L;
            for (int i = 0; i < n; i++) {
                long at = start + i * interval;
                long wait;
                while ((wait = at - System.nanoTime()) > 0) {
                    LockSupport.parkNanos(Math.min(wait, 200_000));
                }
                due.set(i, at);
                long id = firstId + i;
                String ts = LocalDateTime.ofInstant(Instant.now(), ZoneOffset.UTC).toString();
                String json = "{\"id\":" + id + ",\"ts\":\"" + ts + "\",\"card_id\":\"c" + rnd.nextInt(cards)
                        + "\",\"amount\":" + (1 + rnd.nextInt(10_000) / 100.0) + "}";
                producer.send(new ProducerRecord<>("live_in", (int) (id % partitions), null,
                        json.getBytes(StandardCharsets.UTF_8)));
            }
            producer.flush();
        }
        reader.join(30_000);
        stop.set(true);
        reader.join();
        return new Result(rate, n, received.get(), h, toSend);
    }

    private void read(long firstId, AtomicLongArray due, Histogram h, Histogram toSend, long epochOffsetNs,
            AtomicLong received, AtomicBoolean stop, int n) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 100); // a fetch returns as soon as a commit makes records readable
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(p, new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            List<TopicPartition> tps = consumer.partitionsFor("live_features").stream()
                    .map(i -> new TopicPartition("live_features", i.partition())).toList();
            consumer.assign(tps);
            consumer.seekToEnd(tps);
            tps.forEach(consumer::position);
            while (!stop.get() && received.get() < n) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(50))) {
                    long now = System.nanoTime();
                    long id = JSON.readTree(r.value()).get("id").asLong();
                    int i = (int) (id - firstId);
                    if (i >= 0 && i < due.length()) {
                        long at;
                        while ((at = due.get(i)) == 0) {
                            Thread.onSpinWait(); // the producer notes it just after sending
                        }
                        h.recordValue(Math.max(0, (now - at) / 1000)); // microseconds
                        // the sink record's timestamp: when the sink's writer sent it (before its commit)
                        toSend.recordValue(Math.max(0, r.timestamp() * 1000 - (at + epochOffsetNs) / 1000));
                        received.incrementAndGet();
                    }
                }
            }
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * One rate's figures: {@code micros} from when a payment was due to when its sink record was read,
     * {@code toSendMicros} to when the sink's writer sent it (the record's timestamp; millisecond precision).
     */
    record Result(int rate, int sent, long received, Histogram micros, Histogram toSendMicros) {
        String ms(double percentile) {
            return ms(micros, percentile);
        }

        static String ms(Histogram h, double percentile) {
            return String.format(Locale.ROOT, "%.1f", h.getValueAtPercentile(percentile) / 1000.0);
        }
    }
}
