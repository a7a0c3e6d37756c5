package io.coilgun.cluster.kafka;

import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/** Creates and deletes Coilgun's topics. Blocking: never call it from a processor or network thread. */
public final class TopicAdmin implements AutoCloseable {
    private final Admin admin;
    /** The replicas of the topics Coilgun creates: three, or as many brokers as there are when fewer. */
    private volatile short replication = 1;
    /** A broker of the cluster (its id), as {@link #awaitReachable} found it; -1 before. */
    private volatile int someBroker = -1;

    public TopicAdmin(String bootstrapServers) {
        this.admin = KafkaClients.admin(bootstrapServers);
    }

    /**
     * Checks that the cluster answers within {@code timeoutMs}.
     *
     * @throws KafkaUnavailableException if it does not
     */
    public void awaitReachable(String bootstrapServers, long timeoutMs) {
        try {
            Collection<org.apache.kafka.common.Node> brokers = admin.describeCluster().nodes()
                    .get(timeoutMs, TimeUnit.MILLISECONDS);
            replication = (short) Math.max(1, Math.min(3, brokers.size()));
            someBroker = brokers.isEmpty() ? -1 : brokers.iterator().next().id();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof org.apache.kafka.common.errors.AuthenticationException refused) {
                throw new KafkaUnavailableException("Kafka at " + bootstrapServers + " refused this node's "
                        + "credentials (see --kafka-config): " + refused.getMessage(), e, true);
            }
            throw new KafkaUnavailableException("cannot reach Kafka at " + bootstrapServers, e);
        } catch (TimeoutException e) {
            throw new KafkaUnavailableException("cannot reach Kafka at " + bootstrapServers, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new KafkaUnavailableException("interrupted while connecting to Kafka", e);
        }
    }

    /**
     * A broker's setting {@code name} (after {@link #awaitReachable}), or null when it cannot be read (an ACL, a
     * timeout): the group coordinator's bounds on session timeouts, say.
     */
    public String brokerSetting(String name) {
        if (someBroker < 0) {
            return null;
        }
        ConfigResource broker = new ConfigResource(ConfigResource.Type.BROKER, Integer.toString(someBroker));
        try {
            ConfigEntry e = admin.describeConfigs(List.of(broker)).all().get(15, TimeUnit.SECONDS).get(broker)
                    .get(name);
            return e == null ? null : e.value();
        } catch (TimeoutException | ExecutionException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    /**
     * Creates the topic unless it exists: replicated on three brokers when Kafka has three or more, then with
     * {@code min.insync.replicas = 2} (an acknowledged record is on two brokers at least), unless {@code configs} say
     * otherwise.
     */
    public void ensureTopic(String name, int partitions, Map<String, String> configs) {
        Map<String, String> all = new HashMap<>();
        all.put("min.insync.replicas", replication >= 3 ? "2" : "1");
        all.putAll(configs);
        NewTopic topic = new NewTopic(name, partitions, replication).configs(all);
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

    /** The log-end offset of each partition (the offset its next record will get). */
    public Map<TopicPartition, Long> endOffsets(Collection<TopicPartition> partitions) {
        Map<TopicPartition, OffsetSpec> specs = new HashMap<>();
        for (TopicPartition tp : partitions) {
            specs.put(tp, OffsetSpec.latest());
        }
        try {
            Map<TopicPartition, Long> ends = new HashMap<>();
            admin.listOffsets(specs).all().get(30, TimeUnit.SECONDS).forEach((tp, info) -> ends.put(tp, info.offset()));
            return ends;
        } catch (ExecutionException | TimeoutException e) {
            throw new KafkaUnavailableException("cannot read the end offsets of " + partitions + ": " + e.getMessage(),
                    e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new KafkaUnavailableException("interrupted reading end offsets", e);
        }
    }

    /** The names of the topics that start with {@code prefix}. */
    public Set<String> topicsStartingWith(String prefix) {
        try {
            Set<String> names = new TreeSet<>();
            for (String name : admin.listTopics().names().get(30, TimeUnit.SECONDS)) {
                if (name.startsWith(prefix)) {
                    names.add(name);
                }
            }
            return names;
        } catch (ExecutionException | TimeoutException e) {
            throw new KafkaUnavailableException("cannot list topics: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new KafkaUnavailableException("interrupted listing topics", e);
        }
    }

    /**
     * Deletes the topics (those that exist) and waits until the cluster no longer lists any of them: deletion is
     * asynchronous, and a topic of the same name created before it completes would be refused ("marked for
     * deletion") or, worse, found to exist with its old records.
     */
    public void deleteTopics(Collection<String> names) {
        if (names.isEmpty()) {
            return;
        }
        try {
            for (var f : admin.deleteTopics(names).topicNameValues().values()) {
                try {
                    f.get(30, TimeUnit.SECONDS);
                } catch (ExecutionException e) {
                    if (!(e.getCause() instanceof UnknownTopicOrPartitionException)) {
                        throw e;
                    }
                }
            }
            long deadline = System.currentTimeMillis() + 30_000;
            while (true) {
                Set<String> left = new TreeSet<>(admin.listTopics().names().get(30, TimeUnit.SECONDS));
                left.retainAll(names);
                if (left.isEmpty()) {
                    return;
                }
                if (System.currentTimeMillis() > deadline) {
                    throw new KafkaUnavailableException("topics " + left + " are still being deleted after 30 s",
                            null);
                }
                Thread.sleep(50);
            }
        } catch (ExecutionException | TimeoutException e) {
            throw new KafkaUnavailableException("cannot delete topics " + names + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new KafkaUnavailableException("interrupted deleting topics", e);
        }
    }

    @Override
    public void close() {
        admin.close(Duration.ofSeconds(5));
    }
}
