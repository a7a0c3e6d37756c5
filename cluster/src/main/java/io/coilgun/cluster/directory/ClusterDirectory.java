package io.coilgun.cluster.directory;

import io.coilgun.cluster.catalog.CatalogKey;
import io.coilgun.cluster.catalog.CatalogLog;
import io.coilgun.cluster.kafka.KafkaClients;
import io.coilgun.cluster.kafka.Topics;
import io.coilgun.cluster.sync.Changes;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a node follows of the cluster, on one thread: the catalog topic (every DDL of every node, handed to the
 * {@link CatalogFollower} in log order) and the nodes topic (every node's {@link NodeStatus}).
 */
public final class ClusterDirectory implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ClusterDirectory.class);
    private static final TopicPartition CATALOG = new TopicPartition(Topics.CATALOG, 0);
    private static final TopicPartition NODES = new TopicPartition(Topics.NODES, 0);

    /** Takes the catalog's records after the ones the node recovered at start; on the directory's thread. */
    public interface CatalogFollower {
        /**
         * @param ddl the record's DDL, or null for a tombstone
         * @param exactNumerics see {@link io.coilgun.cluster.catalog.CatalogLog.Entry}
         */
        void follow(long offset, CatalogKey key, String ddl, boolean exactNumerics);
    }

    private final KafkaConsumer<byte[], byte[]> consumer;
    private final Producer<byte[], byte[]> producer;
    private final Map<String, NodeStatus> statuses = new ConcurrentHashMap<>();
    /** Signalled after each status taken: what {@link #awaitApplied} and {@link #awaitStatuses} wait for. */
    private final Changes statusChanges = new Changes();
    private final Thread thread;
    private volatile CatalogFollower follower;
    private volatile boolean running = true;

    public ClusterDirectory(String bootstrapServers, String nodeId, Producer<byte[], byte[]> producer) {
        this.producer = producer;
        this.consumer = KafkaClients.consumer(bootstrapServers, "coilgun-" + nodeId + "-directory", 0, KafkaClients.IDLE_FETCH_WAIT_MS);
        this.thread = new Thread(this::run, "coilgun-directory");
        this.thread.setDaemon(true);
    }

    /**
     * Starts following every node status from the beginning: at once when the node starts, since its first tasks
     * may need to know which peers have copies of them.
     */
    public synchronized void followStatuses() {
        if (thread.getState() == Thread.State.NEW) {
            consumer.assign(List.of(NODES));
            consumer.seekToBeginning(List.of(NODES));
            thread.start();
        }
    }

    /** Follows the catalog too, from {@code catalogOffset} on (and the statuses, if not yet). */
    public void start(long catalogOffset, CatalogFollower follower) {
        this.follower = follower;
        this.catalogFrom = catalogOffset;
        followStatuses();
    }

    /** Where the catalog is to be followed from, once {@link #start} said so (read by the thread), or -1. */
    private volatile long catalogFrom = -1;

    private void run() {
        boolean followingCatalog = false;
        while (running) {
            try {
                if (!followingCatalog && catalogFrom >= 0) {
                    consumer.assign(List.of(CATALOG, NODES)); // the statuses' position is kept
                    consumer.seek(CATALOG, catalogFrom);
                    followingCatalog = true;
                }
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    String key = new String(r.key(), StandardCharsets.UTF_8);
                    if (r.topic().equals(Topics.NODES)) {
                        NodeStatus status = r.value() == null ? null : NodeStatus.decode(r.value());
                        if (status == null) {
                            statuses.remove(key);
                        } else {
                            statuses.put(key, status);
                        }
                        statusChanges.signal();
                    } else {
                        follower.follow(r.offset(), CatalogKey.parse(key),
                                r.value() == null ? null : new String(r.value(), StandardCharsets.UTF_8),
                                CatalogLog.exactNumerics(r.headers()));
                    }
                }
            } catch (WakeupException e) {
                // closing
            } catch (RuntimeException e) {
                if (running) {
                    LOG.error("following the catalog and node statuses failed; going on", e);
                }
            }
        }
        consumer.close(Duration.ofSeconds(2));
    }

    /** Publishes this node's status (asynchronously). */
    public void publish(NodeStatus status) {
        producer.send(new ProducerRecord<>(Topics.NODES, 0, status.node().getBytes(StandardCharsets.UTF_8),
                status.encode()));
    }

    /** Says this node left (a graceful stop): its status is removed. */
    public void leave(String nodeId) {
        producer.send(new ProducerRecord<>(Topics.NODES, 0, nodeId.getBytes(StandardCharsets.UTF_8), null));
    }

    /** The latest status of every node that published one and did not leave (a killed node's stays). */
    public Map<String, NodeStatus> statuses() {
        return Map.copyOf(statuses);
    }

    /**
     * Waits until each of {@code nodes} reports it applied the catalog through {@code offset}; false when one had
     * not within {@code timeoutMs}.
     */
    public boolean awaitApplied(long offset, Collection<String> nodes, long timeoutMs) {
        return statusChanges.await(() -> nodes.stream().allMatch(n -> {
            NodeStatus s = statuses.get(n);
            return s != null && s.catalogApplied() >= offset;
        }), timeoutMs);
    }

    /** Waits until each of {@code nodes} published a status; false when one had not within {@code timeoutMs}. */
    public boolean awaitStatuses(Collection<String> nodes, long timeoutMs) {
        return statusChanges.await(() -> statuses.keySet().containsAll(nodes), timeoutMs);
    }

    @Override
    public void close() {
        running = false;
        consumer.wakeup();
        try {
            thread.join(5000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
