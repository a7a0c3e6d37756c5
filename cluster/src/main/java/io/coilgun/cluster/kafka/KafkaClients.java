package io.coilgun.cluster.kafka;

import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/** The one place where Coilgun's Kafka clients get their settings: producer, consumers and admin. */
public final class KafkaClients {
    /**
     * How long a fetch waits at the broker when its partitions have no data: a fetch returns as soon as a record
     * arrives (fetch.min.bytes 1), so this only sets how often idle consumers ask. Kafka's default; shorter waits
     * cost the brokers CPU for nothing (measured: docs/benchmarks.md, cluster).
     */
    public static final int IDLE_FETCH_WAIT_MS = 500;
    /** System properties with this prefix and a producer setting's name after it override that setting. */
    public static final String PRODUCER_OVERRIDES = "coilgun.kafka.producer.";
    /** System properties with this prefix and a consumer setting's name after it override that setting. */
    public static final String CONSUMER_OVERRIDES = "coilgun.kafka.consumer.";

    /** The settings every client of this process takes first ({@link #clientSettings}), e.g. its Kafka security. */
    private static volatile Map<String, String> clientSettings = Map.of();

    private KafkaClients() {
    }

    /**
     * Settings every producer, consumer and admin client this process makes takes (a node's {@code --kafka-config}:
     * {@code security.protocol}, SASL, TLS keystores): set once, before the node makes its first client. Settings
     * given as system properties ({@link #PRODUCER_OVERRIDES}, {@link #CONSUMER_OVERRIDES}) still win.
     */
    public static void clientSettings(Map<String, String> settings) {
        clientSettings = Map.copyOf(settings);
    }

    /**
     * Adds the settings given as system properties {@code <prefix><Kafka setting>=<value>} (e.g.
     * {@code -Dcoilgun.kafka.producer.linger.ms=1}): for measuring a setting, or for what a site's Kafka needs.
     */
    static void overrides(Map<? super String, ? super String> config, String prefix) {
        config.putAll(clientSettings);
        for (String name : System.getProperties().stringPropertyNames()) {
            if (name.startsWith(prefix) && name.length() > prefix.length()) {
                config.put(name.substring(prefix.length()), System.getProperty(name));
            }
        }
    }

    /**
     * The node's producer of events, replies and catalog records: acknowledged by every in-sync replica, idempotent
     * (a retried send is not written twice, order kept per partition), sent at once (each statement waits for it).
     */
    public static KafkaProducer<byte[], byte[]> producer(String bootstrapServers, String clientId) {
        Properties p = producerSettings(bootstrapServers, clientId);
        overrides(p, PRODUCER_OVERRIDES);
        return new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
    }

    private static Properties producerSettings(String bootstrapServers, String clientId) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "0");
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "15000");
        p.put(ProducerConfig.CLIENT_ID_CONFIG, clientId);
        return p;
    }

    /**
     * A transactional producer (a sink's, {@code io.coilgun.cluster.sink.SinkWriter}): as {@link #producer}, with the
     * transactional id whose holder it fences, transactions that abort after {@code transactionTimeoutMs} when their
     * writer died, and a short retry backoff (a transaction begun while the broker still writes the last one's
     * markers is retried after it).
     */
    public static KafkaProducer<byte[], byte[]> transactionalProducer(String bootstrapServers, String clientId,
            String transactionalId, int transactionTimeoutMs) {
        Properties p = producerSettings(bootstrapServers, clientId);
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
        p.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, Integer.toString(transactionTimeoutMs));
        p.put(ProducerConfig.RETRY_BACKOFF_MS_CONFIG, "5");
        overrides(p, PRODUCER_OVERRIDES);
        return new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
    }

    /**
     * A consumer of assigned partitions (no group, no committed offsets: positions live in the tasks' checkpoints).
     *
     * @param maxPollRecords records per poll at most, or 0 for Kafka's default
     * @param fetchMaxWaitMs how long a fetch waits for data, or 0 for Kafka's default
     */
    public static KafkaConsumer<byte[], byte[]> consumer(String bootstrapServers, String clientId,
            int maxPollRecords, int fetchMaxWaitMs) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.CLIENT_ID_CONFIG, clientId);
        if (maxPollRecords > 0) {
            p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, Integer.toString(maxPollRecords));
        }
        if (fetchMaxWaitMs > 0) {
            p.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, Integer.toString(fetchMaxWaitMs));
        }
        overrides(p, CONSUMER_OVERRIDES);
        return new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    /**
     * A member of a consumer group in Kafka's classic protocol with a client-side assignor (Coilgun's own): offsets
     * are committed by hand, a member is declared dead after {@code sessionTimeoutMs} without a heartbeat.
     *
     * @param assignor the assignor class, made and configured by Kafka from this configuration
     * @param extra more settings, e.g. an object the assignor takes in its {@code configure}
     */
    public static KafkaConsumer<byte[], byte[]> groupConsumer(String bootstrapServers, String clientId, String group,
            int sessionTimeoutMs, Class<?> assignor, Map<String, Object> extra, int maxPollRecords,
            int fetchMaxWaitMs) {
        Map<String, Object> p = new HashMap<>();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        p.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "classic");
        p.put(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, assignor.getName());
        p.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, sessionTimeoutMs);
        p.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, Math.max(100, sessionTimeoutMs / 5));
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.CLIENT_ID_CONFIG, clientId);
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, maxPollRecords);
        p.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, fetchMaxWaitMs);
        p.putAll(extra);
        overrides(p, CONSUMER_OVERRIDES);
        return new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    /** The admin client for topics and offsets. */
    public static Admin admin(String bootstrapServers) {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 15_000);
        p.putAll(clientSettings);
        return Admin.create(p);
    }
}
