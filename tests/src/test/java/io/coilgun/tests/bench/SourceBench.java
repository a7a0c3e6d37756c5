package io.coilgun.tests.bench;

import io.coilgun.tests.ClusterProcesses;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * {@code scripts/bench source}: one node (its own process, as users start it) and a broker. {@code --events} JSON
 * payments (default 1 million) are written to a topic of {@code --topic-partitions} partitions first; then a stream
 * fed from the topic ({@code kafka_topic}) and a metric over it are created, and the time until the metric counted
 * every event gives the source's events/s. The same events by COPY into a stream without a topic give COPY's
 * events/s, for comparison. Every card's count is checked equal in both.
 */
final class SourceBench {
    private final BenchOptions o;
    private final Path runDir;

    SourceBench(BenchOptions o, Path runDir) {
        this.o = o;
        this.runDir = runDir;
    }

    Map<String, String> run() throws Exception {
        long events = o.integer("events", 1_000_000);
        int topicPartitions = o.integer("topic-partitions", 4);
        int partitions = o.integer("partitions", 4);
        int cards = o.integer("cards", 100_000);
        Map<String, String> result = new LinkedHashMap<>();
        System.out.println("source: starting a Kafka broker and a node (logs in " + runDir + ")");
        try (ClusterProcesses c = new ClusterProcesses(runDir.resolve("data-source"), 1, true)) {
            c.nodeJvm("-Xmx" + o.string("server-heap", "2g"));
            c.startNode("n1");
            try (Admin admin = Admin.create(Map.of("bootstrap.servers", c.bootstrap()))) {
                admin.createTopics(List.of(new NewTopic("payments_in", topicPartitions, (short) 1))).all().get();
            }
            long step = 10_000;
            long from = System.currentTimeMillis() * 1000 - 120_000_000L - events * step;
            if (events > 0) {
                produce(c.bootstrap(), events, cards, from, step, topicPartitions);
            }
            try (Connection conn = ClusterBench.connect(c.port("n1"), 3600); Statement st = conn.createStatement()) {
                if (events > 0) {
                    throughput(conn, st, events, cards, partitions, from, step, result);
                }
                SinkLatency latency = new SinkLatency(c.bootstrap(), topicPartitions, cards);
                latency.create(st);
                long firstId = 1;
                // the first run meets the sink's code fresh (as a user's first minute does), then the rates warmed
                List<String> runs = new java.util.ArrayList<>();
                runs.add("fresh_" + o.string("fresh-rate", "1000"));
                runs.addAll(o.list("rates", "1000,10000"));
                for (String run : runs) {
                    String rate = run.replace("fresh_", "");
                    SinkLatency.Result r = latency.run(Integer.parseInt(rate), o.integer("latency-seconds", 30),
                            firstId);
                    firstId += r.sent();
                    System.out.printf(Locale.ROOT, "source: %s/s append -> sink record: p50 %s ms, p99 %s ms, "
                            + "p99.9 %s ms, max %s ms (%d of %d records)%n", run, r.ms(50), r.ms(99), r.ms(99.9),
                            r.ms(100), r.received(), r.sent());
                    System.out.printf(Locale.ROOT, "source: %s/s append -> the sink's send: p50 %s ms, p99 %s ms%n",
                            run, SinkLatency.Result.ms(r.toSendMicros(), 50), SinkLatency.Result.ms(r.toSendMicros(),
                            99));
                    result.put("sink_p50_ms_" + run, r.ms(50));
                    result.put("sink_p99_ms_" + run, r.ms(99));
                    result.put("sink_p999_ms_" + run, r.ms(99.9));
                    result.put("sink_max_ms_" + run, r.ms(100));
                    result.put("sink_records_missing_" + run, String.valueOf(r.sent() - r.received()));
                }
                c.log("n1").lines().filter(l -> l.contains("sinks: ")).forEach(System.out::println);
            }
        }
        return result;
    }

    /** The topic's events into a metric, then the same by COPY: events/s of each, and whether they agree. */
    private static void throughput(Connection conn, Statement st, long events, int cards, int partitions, long from,
            long step, Map<String, String> result) throws Exception {
        String columns = "(id BIGINT, ts TIMESTAMP, card_id VARCHAR, merchant_id VARCHAR, amount DOUBLE)";
        String with = String.format(Locale.ROOT, "event_time = 'ts', event_id = 'id', partition_by = 'card_id', "
                + "partitions = %d, lateness = '1 minute'", partitions);
        long t0 = System.nanoTime();
        st.execute("CREATE STREAM fed " + columns + " WITH (" + with + ", kafka_topic = 'payments_in')");
        st.execute("CREATE METRIC fed_total AS SELECT COUNT(*) AS n FROM fed GROUP BY card_id OVER INFINITE");
        awaitCounted(st, "fed_total", events);
        double sourceS = (System.nanoTime() - t0) / 1e9;
        System.out.printf(Locale.ROOT, "source: %d events from the topic in %.1f s%n", events, sourceS);

        st.execute("CREATE STREAM payments " + columns + " WITH (" + with + ")");
        st.execute("CREATE METRIC copied_total AS SELECT COUNT(*) AS n FROM payments GROUP BY card_id "
                + "OVER INFINITE");
        long t1 = System.nanoTime();
        RebalanceBench.copyHistory(conn, new PaymentGenerator(7, cards, 10_000, 0, 0, 1), from, step, events,
                "source (copy)", p -> { });
        awaitCounted(st, "copied_total", events);
        double copyS = (System.nanoTime() - t1) / 1e9;
        try (ResultSet rs = st.executeQuery("SELECT count(*) FROM fed_total f JOIN copied_total c "
                + "ON f.card_id = c.card_id WHERE f.n <> c.n")) {
            rs.next();
            result.put("cards_differing", String.valueOf(rs.getLong(1)));
        }
        result.put("events", String.valueOf(events));
        result.put("source_events_per_s", String.format(Locale.ROOT, "%.0f", events / sourceS));
        result.put("copy_events_per_s", String.format(Locale.ROOT, "%.0f", events / copyS));
    }

    /** The same payments COPY loads (the generator's), as JSON records, spread over the partitions in turn. */
    private static void produce(String bootstrap, long events, int cards, long from, long step, int partitions) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.LINGER_MS_CONFIG, 20);
        p.put(ProducerConfig.BATCH_SIZE_CONFIG, 256 * 1024);
        PaymentGenerator gen = new PaymentGenerator(7, cards, 10_000, 0, 0, 1);
        long t = from;
        long started = System.nanoTime();
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p, new ByteArraySerializer(),
                new ByteArraySerializer())) {
            for (long i = 0; i < events; i++) {
                Payment pay = gen.next(t);
                t += step;
                String ts = LocalDateTime.ofInstant(Instant.ofEpochSecond(0, pay.timeMicros() * 1000), ZoneOffset.UTC)
                        .toString();
                String json = "{\"id\":" + pay.id() + ",\"ts\":\"" + ts + "\",\"card_id\":\"" + pay.card()
                        + "\",\"merchant_id\":\"" + pay.merchant() + "\",\"amount\":" + pay.amount() + "}";
                producer.send(new ProducerRecord<>("payments_in", (int) (i % partitions), null,
                        json.getBytes(StandardCharsets.UTF_8)));
            }
            producer.flush();
        }
        System.out.printf(Locale.ROOT, "source: %d JSON records written to the topic in %.1f s%n", events,
                (System.nanoTime() - started) / 1e9);
    }

    private static void awaitCounted(Statement st, String metric, long events) throws Exception {
        long last = -1;
        long lastChange = System.nanoTime();
        while (true) {
            try (ResultSet rs = st.executeQuery("SELECT coalesce(SUM(n), 0) FROM " + metric)) {
                rs.next();
                long n = rs.getLong(1);
                if (n >= events) {
                    return;
                }
                if (n != last) {
                    last = n;
                    lastChange = System.nanoTime();
                } else if (System.nanoTime() - lastChange > 120_000_000_000L) {
                    throw new IllegalStateException(metric + " stuck at " + n + " of " + events);
                }
            }
            Thread.sleep(200);
        }
    }
}
