package io.coilgun.cluster.kafka;

import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.errors.TopicExistsException;

/** Creates Coilgun's topics. Blocking: never call it from a processor or network thread. */
public final class TopicAdmin implements AutoCloseable {
    private final Admin admin;
    private final short replication;

    public TopicAdmin(String bootstrapServers, short replication) {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 15_000);
        this.admin = Admin.create(p);
        this.replication = replication;
    }

    /**
     * Checks that the cluster answers within {@code timeoutMs}.
     *
     * @throws KafkaUnavailableException if it does not
     */
    public void awaitReachable(String bootstrapServers, long timeoutMs) {
        try {
            admin.describeCluster().nodes().get(timeoutMs, TimeUnit.MILLISECONDS);
        } catch (TimeoutException | ExecutionException e) {
            throw new KafkaUnavailableException("cannot reach Kafka at " + bootstrapServers, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new KafkaUnavailableException("interrupted while connecting to Kafka", e);
        }
    }

    /** Creates the topic unless it exists. */
    public void ensureTopic(String name, int partitions, Map<String, String> configs) {
        NewTopic topic = new NewTopic(name, partitions, replication).configs(configs);
        try {
            admin.createTopics(List.of(topic)).all().get(30, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof TopicExistsException)) {
                throw new KafkaUnavailableException("cannot create topic " + name + ": " + e.getCause().getMessage(), e);
            }
        } catch (TimeoutException e) {
            throw new KafkaUnavailableException("timed out creating topic " + name, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new KafkaUnavailableException("interrupted creating topic " + name, e);
        }
    }

    @Override
    public void close() {
        admin.close(java.time.Duration.ofSeconds(5));
    }
}
