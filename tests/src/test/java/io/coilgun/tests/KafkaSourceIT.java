package io.coilgun.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.TreeMap;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A stream fed from an existing Kafka topic (issue 41): a plain producer writes JSON payments into a topic of three
 * partitions (out of order, some sent twice as a producer's retries would, a few malformed or mistyped), the stream
 * reads them, and its metric's values per card equal a brute-force sum of the distinct valid payments; the node is
 * restarted while it reads (the records since its last commit are read again: duplicates, counted once). Its three
 * partitions hold 25 minutes of sparse payments each (a poll's 500 records of one partition span about 6 minutes)
 * and the lateness is a minute: the reader keeps them aligned in event time, none is late. Bad records
 * are skipped and listed in coilgun.source_errors; INSERT into the stream keeps working.
 */
@Tag("integration")
@Timeout(240)
@SecondNodeLane
class KafkaSourceIT {
    private static final int PAYMENTS = 6000;
    private static final int CARDS = 40;
    /** The payments of the test whose node is killed: with disorder, retries and malformed records. */
    private static final int KILLED_PAYMENTS = 100_000;
    private static final long T0 = LocalDateTime.of(2026, 3, 1, 8, 0).toInstant(ZoneOffset.UTC).toEpochMilli();

    @TempDir
    Path dir;

    @Test
    void everyRecordOfTheTopicIsAppliedOnceAcrossARestart() throws Exception {
        try (TestNode node = new TestNode(dir.resolve("node"))) {
            try (Admin admin = Admin.create(Map.of("bootstrap.servers", node.bootstrap()))) {
                admin.createTopics(List.of(new NewTopic("payments_in", 3, (short) 1))).all().get();
            }
            Random rnd = new Random(7);
            Map<Long, String> valid = new TreeMap<>(); // id -> card, of each distinct valid payment
            Map<Long, Double> amounts = new HashMap<>();
            List<String> records = new ArrayList<>();
            List<Integer> bad = new ArrayList<>(); // the index of each bad record in records
            long clock = T0;
            for (long id = 1; id <= PAYMENTS; id++) {
                clock += rnd.nextInt(500);
                long ts = clock - (rnd.nextInt(5) == 0 ? rnd.nextInt(5_000) : 0); // disorder within the lateness
                String card = "c" + rnd.nextInt(CARDS);
                double amount = 1 + rnd.nextInt(10_000) / 100.0;
                if (id % 500 == 7) {
                    bad.add(records.size());
                    records.add("{\"id\": " + id + ", \"ts\": \"not a time\", \"card\": \"" + card + "\"}");
                    continue;
                }
                if (id % 700 == 3) {
                    bad.add(records.size());
                    records.add("{\"id\": " + id + ", \"ts\": " + ts); // truncated JSON
                    continue;
                }
                String json = id % 2 == 0
                        ? "{\"id\": " + id + ", \"ts\": " + ts + ", \"card\": \"" + card + "\", \"amount\": " + amount + "}"
                        : "{\"ID\": \"" + id + "\", \"ts\": \"" + LocalDateTime.ofInstant(Instant.ofEpochMilli(ts),
                                ZoneOffset.UTC) + "\", \"card\": \"" + card + "\", \"amount\": \"" + amount + "\", "
                                + "\"extra\": {\"nested\": true}}";
                records.add(json);
                if (rnd.nextInt(20) == 0) {
                    records.add(json); // a producer's retry
                }
                valid.put(id, card);
                amounts.put(id, amount);
            }
            try (Connection c = node.connect(); Statement s = c.createStatement()) {
                s.execute("CREATE STREAM pay (id BIGINT, ts TIMESTAMP, card VARCHAR, amount DOUBLE PRECISION) WITH "
                        + "(event_id = 'id', event_time = 'ts', partition_by = 'card', lateness = '1 minute', "
                        + "kafka_topic = 'payments_in', format = 'json')");
                s.execute("CREATE METRIC by_card AS SELECT SUM(amount) AS total, COUNT(*) AS n FROM pay GROUP BY card "
                        + "OVER SLIDING 30 DAYS");
                s.execute("CREATE SINK card_out FROM by_card INTO KAFKA TOPIC 'card_features' WITH (format = 'json')");
                s.execute("CREATE SINK pay_out FROM pay INTO KAFKA TOPIC 'pay_replies'");
            }
            int half = records.size() / 2;
            produce(node.bootstrap(), records.subList(0, half));
            awaitRecords(node, half / 3);
            node.restart(); // while it reads: what it read since its last commit is read again
            produce(node.bootstrap(), records.subList(half, records.size()));
            try (Connection c = node.connect(); Statement s = c.createStatement()) {
                awaitCaughtUp(s, valid.size(), 3);
                Map<String, double[]> expected = new TreeMap<>();
                for (Map.Entry<Long, String> e : valid.entrySet()) {
                    double[] v = expected.computeIfAbsent(e.getValue(), k -> new double[2]);
                    v[0] += amounts.get(e.getKey());
                    v[1]++;
                }
                Map<String, double[]> actual = new TreeMap<>();
                try (ResultSet rs = s.executeQuery("SELECT card, total, n FROM by_card")) {
                    while (rs.next()) {
                        actual.put(rs.getString(1), new double[] {rs.getDouble(2), rs.getLong(3)});
                    }
                }
                List<String> errors = new ArrayList<>();
                try (ResultSet rs = s.executeQuery("SELECT kafka_offset, error, record FROM coilgun.source_errors")) {
                    while (rs.next()) {
                        errors.add(rs.getLong(1) + ": " + rs.getString(2) + " in " + rs.getString(3));
                    }
                }
                // the node lists those it met since it started: at least the second half's, each once or twice
                long badSince = bad.stream().filter(i -> i >= half).count();
                assertTrue(errors.size() >= badSince && errors.size() <= 2 * bad.size(), "bad records listed: "
                        + errors.size() + " (" + badSince + " since the restart): " + errors);
                assertEquals(expected.keySet(), actual.keySet());
                for (String card : expected.keySet()) {
                    assertEquals(expected.get(card)[1], actual.get(card)[1], "count of " + card);
                    assertEquals(expected.get(card)[0], actual.get(card)[0], 1e-6, "sum of " + card);
                }
                // both sinks, read as a consumer reads them: one record per payment, as of that payment
                SinkRecords.assertExactlyOncePerEvent(SinkRecords.readCommitted(node.bootstrap(), "card_features",
                        valid.size()), valid, amounts, "by_card");
                SinkRecords.assertExactlyOncePerEvent(SinkRecords.readCommitted(node.bootstrap(), "pay_replies",
                        valid.size()), valid, amounts, "by_card");
                // the sinks survived the restart, in the catalog; one goes, what a sink reads stays while it is there
                try (ResultSet rs = s.executeQuery("SELECT name, input, kind, topic, records FROM coilgun.sinks "
                        + "ORDER BY name")) {
                    assertTrue(rs.next());
                    assertEquals("card_out|by_card|metric|card_features", rs.getString(1) + "|" + rs.getString(2)
                            + "|" + rs.getString(3) + "|" + rs.getString(4));
                    assertTrue(rs.getLong(5) > 0, "records written since the restart");
                    assertTrue(rs.next());
                    assertEquals("pay_out|pay|stream", rs.getString(1) + "|" + rs.getString(2) + "|" + rs.getString(3));
                }
                s.execute("DROP SINK pay_out");
                SQLException refused = org.junit.jupiter.api.Assertions.assertThrows(SQLException.class,
                        () -> s.execute("DROP METRIC by_card"));
                assertEquals("2BP01", refused.getSQLState());
                try (ResultSet rs = s.executeQuery("SHOW SINKS")) {
                    assertTrue(rs.next());
                    assertEquals("card_out", rs.getString("name"));
                    assertTrue(!rs.next(), "one sink left");
                }
                try (ResultSet rs = s.executeQuery("SELECT topic, partitions, lag_records, state, bad_records FROM "
                        + "coilgun.sources WHERE stream_name = 'pay'")) {
                    assertTrue(rs.next());
                    assertEquals("payments_in", rs.getString(1));
                    assertEquals(3, rs.getInt(2));
                    assertEquals(0, rs.getLong(3));
                }
                // INSERT into the stream still works, beside its topic
                try (ResultSet rs = s.executeQuery("INSERT INTO pay VALUES (999999, '2026-03-01 09:00:00', 'c1', 1.0) "
                        + "RETURNING *")) {
                    assertTrue(rs.next());
                    assertEquals((long) expected.get("c1")[1] + 1, rs.getLong("by_card_n"));
                }
                try (ResultSet rs = s.executeQuery("SELECT source FROM coilgun.streams WHERE name = 'pay'")) {
                    assertTrue(rs.next());
                    assertEquals("kafka topic payments_in (json, bad records skip)", rs.getString(1));
                }
                String metrics = http(node.httpPort(), "/metrics");
                assertTrue(metrics.contains("coilgun_source_lag_records{") && metrics.contains("stream=\"pay\""),
                        "the source's meters on /metrics");
                assertTrue(metrics.contains("coilgun_sink_records_total{") && metrics.contains("sink=\"card_out\""),
                        "the sink's meters on /metrics");
                assertTrue(http(node.httpPort(), "/").contains("payments_in: 3 partitions here"), "the status page");
            }
        }
    }

    /**
     * CSV records, and {@code bad_records = 'stop'}: the reader applies the records before the first bad one and
     * stops there, saying where.
     */
    @Test
    void aBadRecordStopsTheReaderWhenAskedTo() throws Exception {
        try (TestNode node = new TestNode(dir.resolve("node"))) {
            try (Admin admin = Admin.create(Map.of("bootstrap.servers", node.bootstrap()))) {
                admin.createTopics(List.of(new NewTopic("lines", 1, (short) 1))).all().get();
            }
            try (Connection c = node.connect(); Statement s = c.createStatement()) {
                s.execute("CREATE STREAM lines (id INT, ts TIMESTAMP, card TEXT, amount NUMERIC(10,2)) WITH "
                        + "(event_id = 'id', partition_by = 'card', kafka_topic = 'lines', format = 'csv', "
                        + "bad_records = 'stop')");
                s.execute("CREATE METRIC l_card AS SELECT SUM(amount) AS total, COUNT(*) AS n FROM lines GROUP BY card "
                        + "OVER SLIDING 1 DAY");
                produce(node.bootstrap(), "lines", 1, List.of("1,2026-03-01 08:00:00,c1,1.50",
                        "2,2026-03-01 08:00:01,\"c1\",\"2.25\"", "3,2026-03-01 08:00:02,c1,", "4,2026-03-01 08:00:03,c1,abc",
                        "5,2026-03-01 08:00:04,c1,1.00"));
                long deadline = System.currentTimeMillis() + 60_000;
                String state = "";
                while (!state.startsWith("stopped")) {
                    assertTrue(System.currentTimeMillis() < deadline, "the reader's state: " + state);
                    Thread.sleep(50);
                    try (ResultSet rs = s.executeQuery("SELECT state FROM coilgun.sources WHERE stream_name = 'lines'")) {
                        state = rs.next() ? rs.getString(1) : "";
                    }
                }
                assertTrue(state.startsWith("stopped at lines-0@3: "), state);
                try (ResultSet rs = s.executeQuery("SELECT total, n FROM l_card WHERE card = 'c1'")) {
                    assertTrue(rs.next());
                    assertEquals(new java.math.BigDecimal("3.75"), rs.getBigDecimal(1));
                    assertEquals(3, rs.getLong(2));
                }
            }
        }
    }

    /**
     * Two nodes read the topic, one of them a process of its own that is killed (SIGKILL) while it reads: the
     * other takes its partitions over from the group's last commit (Kafka's session timeout), and its tasks from
     * their replicas; what the killed node had applied but not committed is read again, a duplicate. 100,000
     * payments, out of order within 5 s, a twentieth sent twice, ten malformed: every card's count and sum are the
     * brute-force ones, and the metric's sink, read by a read_committed consumer, has exactly one record per payment
     * with the values as of it (the killed node's open transaction aborted, its committed ones not written again).
     */
    @Test
    void aReaderKilledWhileItReadsIsTakenOverCountingNothingTwice() throws Exception {
        try (TestNode node = new TestNode(dir.resolve("node"))) {
            try (Admin admin = Admin.create(Map.of("bootstrap.servers", node.bootstrap()))) {
                admin.createTopics(List.of(new NewTopic("payments_in", 4, (short) 1))).all().get();
            }
            int second = NodeCrashIT.freePort();
            Process other = NodeCrashIT.start(dir.resolve("other"), "-Xmx512m", second, 0, "--kafka",
                    node.bootstrap(), "--node-id", "node-2", "--http-port", "0");
            try {
                try (Connection c = node.connect(); Statement s = c.createStatement()) {
                    s.execute("CREATE STREAM pay (id BIGINT, ts TIMESTAMP, card VARCHAR, amount DOUBLE PRECISION) "
                            + "WITH (event_id = 'id', partition_by = 'card', lateness = '1 hour', replicas = 2, "
                            + "kafka_topic = 'payments_in')");
                    s.execute("CREATE METRIC by_card AS SELECT SUM(amount) AS total, COUNT(*) AS n FROM pay GROUP BY "
                            + "card OVER SLIDING 30 DAYS");
                    s.execute("CREATE SINK card_out FROM by_card INTO KAFKA TOPIC 'card_features'");
                }
                try (Connection c = java.sql.DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + second
                        + "/coilgun?user=tester"); Statement s = c.createStatement()) {
                    long deadline = System.currentTimeMillis() + 60_000;
                    while (true) { // the other node reads some of the partitions
                        try (ResultSet rs = s.executeQuery("SELECT partitions FROM coilgun.sources")) {
                            if (rs.next() && rs.getInt(1) > 0) {
                                break;
                            }
                        }
                        assertTrue(System.currentTimeMillis() < deadline, "the other node reads no partition");
                        Thread.sleep(100);
                    }
                }
                Random rnd = new Random(11);
                Map<String, double[]> expected = new TreeMap<>();
                Map<Long, String> valid = new HashMap<>();
                Map<Long, Double> amounts = new HashMap<>();
                List<String> records = new ArrayList<>();
                for (long id = 1; id <= KILLED_PAYMENTS; id++) {
                    String card = "c" + rnd.nextInt(CARDS);
                    double amount = 1 + rnd.nextInt(10_000) / 100.0;
                    long ts = T0 + id * 10 - (rnd.nextInt(4) == 0 ? rnd.nextInt(5_000) : 0); // out of order
                    if (id % 10_000 == 77) {
                        records.add("{\"id\": " + id + ", \"ts\": " + ts + ", \"card\": "); // malformed
                        continue;
                    }
                    String json = "{\"id\": " + id + ", \"ts\": " + ts + ", \"card\": \"" + card
                            + "\", \"amount\": " + amount + "}";
                    records.add(json);
                    if (rnd.nextInt(20) == 0) {
                        records.add(json); // a producer's retry, on another partition
                    }
                    valid.put(id, card);
                    amounts.put(id, amount);
                    double[] v = expected.computeIfAbsent(card, k -> new double[2]);
                    v[0] += amount;
                    v[1]++;
                }
                produce(node.bootstrap(), "payments_in", 4, records);
                try (Connection c = node.connect(); Statement s = c.createStatement()) {
                    long deadline = System.currentTimeMillis() + 60_000;
                    while (count(s) < KILLED_PAYMENTS / 5) { // under way on both nodes
                        assertTrue(System.currentTimeMillis() < deadline, "events counted: " + count(s));
                        Thread.sleep(20);
                    }
                    other.destroyForcibly(); // SIGKILL, in the middle of its partitions
                    other.waitFor();
                    awaitCaughtUp(s, valid.size(), 4);
                    assertSameValues(expected, s);
                    // the sink: the killed node's open transaction aborted, what it committed not written again
                    SinkRecords.assertExactlyOncePerEvent(SinkRecords.readCommitted(node.bootstrap(), "card_features",
                            valid.size()), valid, amounts, "by_card");
                }
            } finally {
                other.destroyForcibly();
            }
        }
    }

    /**
     * Issue 58: a topic of four partitions, each in time order, two dense from 08:00 and two sparse whose first
     * records come more than a minute later and whose records are more than half the lateness (a minute) apart. The
     * reader stopped after a few records, its partitions paused behind one it could not read; now it reads every
     * record and drops none as late. (Records that arrive while it reads are PartitionAlignmentTest's: here a
     * partition written after another has been read would be late, as it would be for any reader.)
     */
    @Test
    void sparseLateStartingPartitionsAreReadToTheEnd() throws Exception {
        try (TestNode node = new TestNode(dir.resolve("node"))) {
            try (Admin admin = Admin.create(Map.of("bootstrap.servers", node.bootstrap()))) {
                admin.createTopics(List.of(new NewTopic("sparse_in", 4, (short) 1))).all().get();
            }
            // {first event's offset from T0, step between events, events} of each partition, in ms
            long[][] shapes = {{0, 2_000, 1500}, {0, 3_000, 1485}, {75_000, 40_000, 40}, {90_000, 35_000, 50}};
            Properties p = producerSettings(node.bootstrap());
            Map<String, double[]> expected = new TreeMap<>();
            int total = 0;
            try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p, new ByteArraySerializer(),
                    new ByteArraySerializer())) {
                for (int partition = 0; partition < shapes.length; partition++) {
                    for (int i = 0; i < shapes[partition][2]; i++) {
                        long id = partition * 1_000_000L + i;
                        String card = "c" + (id % CARDS);
                        String json = "{\"id\": " + id + ", \"ts\": " + (T0 + shapes[partition][0]
                                + i * shapes[partition][1]) + ", \"card\": \"" + card + "\", \"amount\": 1.5}";
                        producer.send(new ProducerRecord<>("sparse_in", partition, card.getBytes(StandardCharsets.UTF_8),
                                json.getBytes(StandardCharsets.UTF_8)));
                        double[] v = expected.computeIfAbsent(card, k -> new double[2]);
                        v[0] += 1.5;
                        v[1]++;
                        total++;
                    }
                }
                producer.flush();
            }
            // the whole topic is there when the reader starts: what it reads does not depend on when records come
            try (Connection c = node.connect(); Statement s = c.createStatement()) {
                s.execute("CREATE STREAM pay (id BIGINT, ts TIMESTAMP, card VARCHAR, amount DOUBLE PRECISION) WITH "
                        + "(event_id = 'id', event_time = 'ts', partition_by = 'card', lateness = '1 minute', "
                        + "kafka_topic = 'sparse_in', format = 'json')");
                s.execute("CREATE METRIC by_card AS SELECT SUM(amount) AS total, COUNT(*) AS n FROM pay GROUP BY card "
                        + "OVER SLIDING 30 DAYS");
            }
            try (Connection c = node.connect(); Statement s = c.createStatement()) {
                awaitCaughtUp(s, total, 4);
                assertSameValues(expected, s);
                try (ResultSet rs = s.executeQuery("SELECT coalesce(sum(late_dropped), 0) + coalesce(sum("
                        + "late_rejected), 0) FROM coilgun.statistics WHERE stream_name = 'pay'")) {
                    assertTrue(rs.next());
                    assertEquals(0, rs.getLong(1), "events late");
                }
            }
        }
    }

    private static long count(Statement s) throws SQLException {
        try (ResultSet rs = s.executeQuery("SELECT coalesce(sum(n), 0) FROM by_card")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static void assertSameValues(Map<String, double[]> expected, Statement s) throws SQLException {
        Map<String, double[]> actual = new TreeMap<>();
        try (ResultSet rs = s.executeQuery("SELECT card, total, n FROM by_card")) {
            while (rs.next()) {
                actual.put(rs.getString(1), new double[] {rs.getDouble(2), rs.getLong(3)});
            }
        }
        assertEquals(expected.keySet(), actual.keySet());
        for (String card : expected.keySet()) {
            assertEquals(expected.get(card)[1], actual.get(card)[1], "count of " + card);
            assertEquals(expected.get(card)[0], actual.get(card)[0], 1e-6, "sum of " + card);
        }
    }

    private static String http(int port, String path) throws Exception {
        java.net.http.HttpClient client = java.net.http.HttpClient.newHttpClient();
        return client.send(java.net.http.HttpRequest.newBuilder(java.net.URI.create("http://127.0.0.1:" + port + path))
                .build(), java.net.http.HttpResponse.BodyHandlers.ofString()).body();
    }

    private static void produce(String bootstrap, List<String> values) {
        produce(bootstrap, "payments_in", 3, values);
    }

    /**
     * A plain producer's settings, without idempotence but one request in flight (records stay in order; a retry may
     * write one twice, a duplicate as a user's producer would): on a loaded machine the idempotent producer was seen
     * to reset a partition's sequence after a timeout and be refused by the broker (OutOfOrderSequenceException)
     * without end, and the test waited for records that never came.
     */
    private static Properties producerSettings(String bootstrap) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false);
        p.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 1);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        return p;
    }

    /** {@code values} to {@code topic}'s {@code partitions} partitions, one after another. */
    private static void produce(String bootstrap, String topic, int partitions, List<String> values) {
        Properties p = producerSettings(bootstrap);
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p, new ByteArraySerializer(),
                new ByteArraySerializer())) {
            int i = 0;
            for (String v : values) {
                producer.send(new ProducerRecord<>(topic, (i++) % partitions, null, v.getBytes(StandardCharsets.UTF_8)));
            }
            producer.flush();
        }
    }

    /** Waits until the stream's reader has read at least {@code n} records. */
    private static void awaitRecords(TestNode node, long n) throws Exception {
        long deadline = System.currentTimeMillis() + 60_000;
        try (Connection c = node.connect(); Statement s = c.createStatement()) {
            while (records(s) < n) {
                assertTrue(System.currentTimeMillis() < deadline, "records read: " + records(s));
                Thread.sleep(20);
            }
        }
    }

    private static long records(Statement s) throws SQLException {
        try (ResultSet rs = s.executeQuery("SELECT coalesce(sum(records), 0) FROM coilgun.sources")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** Waits until the metric counted {@code events} (or more) and the reader has no lag on its {@code partitions}. */
    private static void awaitCaughtUp(Statement s, int events, int partitions) throws Exception {
        long deadline = System.currentTimeMillis() + 120_000;
        while (true) {
            try (ResultSet rs = s.executeQuery("SELECT (SELECT coalesce(sum(n), 0) FROM by_card), lag_records, "
                    + "partitions FROM coilgun.sources WHERE stream_name = 'pay'")) {
                if (rs.next() && rs.getLong(1) >= events && rs.getObject(2) != null && rs.getLong(2) == 0
                        && rs.getInt(3) == partitions) {
                    return;
                }
            }
            if (System.currentTimeMillis() >= deadline) {
                try (ResultSet rs = s.executeQuery("SELECT records, lag_records, partitions, state FROM "
                        + "coilgun.sources WHERE stream_name = 'pay'")) {
                    String reader = rs.next() ? rs.getLong(1) + " records read, lag " + rs.getString(2) + ", "
                            + rs.getInt(3) + " partitions, " + rs.getString(4) : "no reader";
                    StringBuilder tasks = new StringBuilder();
                    try (ResultSet st = s.executeQuery("SELECT task, events, applied, duplicates, late_rejected, "
                            + "late_dropped, invalid FROM coilgun.statistics WHERE stream_name = 'pay'")) {
                        while (st.next()) {
                            tasks.append("; ").append(st.getString(1)).append(": events ").append(st.getLong(2))
                                    .append(", applied ").append(st.getLong(3)).append(", duplicates ")
                                    .append(st.getLong(4)).append(", late ").append(st.getLong(5)).append('/')
                                    .append(st.getLong(6)).append(", invalid ").append(st.getLong(7));
                        }
                    }
                    org.junit.jupiter.api.Assertions.fail("the source did not catch up: " + reader + tasks);
                }
            }
            Thread.sleep(100);
        }
    }
}
