package io.coilgun.cluster;

import io.coilgun.cluster.assign.ClusterView;
import io.coilgun.cluster.ingest.EventPublisher;
import io.coilgun.cluster.ingest.StreamPauses;
import io.coilgun.cluster.kafka.KafkaHeaders;
import io.coilgun.cluster.kafka.TopicAdmin;
import io.coilgun.cluster.kafka.Topics;
import io.coilgun.planner.model.StreamDef;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A stream partitioned by one field gaining a decider ({@code ALTER STREAM … ADD PARTITION BY}), on this node: its
 * front end holds the stream's statements ({@link StreamPauses}) and cuts each partition of the stream's topic after
 * what it published ({@code StreamCut}), on behalf of nodes that left the cluster too (they publish nothing more);
 * the decider takes the tasks' history ({@code Seeding}) and its active copy says so ({@link #seeded}), which ends
 * the conversion in the catalog ({@link #onSeeded}); then the statements go on, to the decider.
 */
public final class StreamConversions implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(StreamConversions.class);
    private static final long RECUT_MS = 2_000;

    /** A conversion in progress here: its number and the nodes this node saw when it began. */
    private record Conversion(StreamDef stream, int number, Set<String> nodes) {
    }

    private final String nodeId;
    private final TopicAdmin admin;
    private final EventPublisher publisher;
    private final StreamPauses pauses = new StreamPauses();
    private final Supplier<ClusterView> view;
    private final Map<String, Conversion> converting = new ConcurrentHashMap<>();
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "coilgun-conversions");
        t.setDaemon(true);
        return t;
    });
    private volatile Consumer<String> onSeeded = s -> { };

    StreamConversions(String nodeId, TopicAdmin admin, EventPublisher publisher, Supplier<ClusterView> view) {
        this.nodeId = nodeId;
        this.admin = admin;
        this.publisher = publisher;
        this.view = view;
        timer.scheduleWithFixedDelay(this::cutForLeftNodes, RECUT_MS, RECUT_MS, TimeUnit.MILLISECONDS);
    }

    /** The streams whose statements wait for their decider (the front end's side). */
    public StreamPauses pauses() {
        return pauses;
    }

    /** Whether the stream is gaining a decider on this node's view. */
    public boolean converting(String stream) {
        return converting.containsKey(stream);
    }

    /** What ends a conversion once its decider has the history (the catalog record; set by the node's catalog). */
    public void onSeeded(Consumer<String> action) {
        this.onSeeded = action;
    }

    /**
     * The stream (as converted: several partition_by fields) is gaining its decider: statements wait from now on,
     * then this node cuts the first partitioner's topic after what it published (its seed topic exists). Blocking.
     */
    void begin(StreamDef stream, int number) {
        pauses.pause(stream.name());
        synchronized (publisher.ingestLock(stream.name())) {
            // a statement publishing now finishes first; none publishes after (they see the pause)
        }
        Set<String> nodes = new TreeSet<>();
        nodes.add(nodeId);
        for (ClusterView.Member m : view.get().members().values()) {
            nodes.add(m.node());
        }
        Conversion c = new Conversion(stream, number, nodes);
        converting.put(stream.name(), c);
        cut(c, nodeId);
        LOG.info("stream={} gaining a decider (conversion {}): events held, partitions cut; nodes {}", stream.name(),
                number, nodes);
    }

    /** The conversion ended (its catalog record): statements go on, to the decider. */
    public void end(String stream) {
        if (converting.remove(stream) != null) {
            LOG.info("stream={} has its decider: events taken again", stream);
        }
        pauses.resume(stream);
    }

    /** The decider's active copy here has the whole history (on its task's thread: not blocking). */
    void seeded(String stream) {
        if (converting(stream)) {
            onSeeded.accept(stream);
        }
    }

    /** Deletes the topic through which a converted stream's tasks handed their history over. Blocking. */
    public void deleteSeedTopic(String stream) {
        admin.deleteTopics(List.of(Topics.seed(stream)));
    }

    private void cut(Conversion c, String node) {
        String topic = Topics.partitioner(c.stream().name(), c.stream().partitionBy().get(0));
        publisher.cut(topic, firstPartitions(c.stream()), KafkaHeaders.cutMarker(c.number(), node, c.nodes()))
                .exceptionally(e -> {
                    LOG.warn("stream={} cut markers of node {} not written (written again in {} ms): {}",
                            c.stream().name(), node, RECUT_MS, e.toString());
                    return null;
                });
    }

    /**
     * Every few seconds while a conversion lasts: markers for the nodes it began with that left the cluster (dead
     * nodes publish nothing), and this node's own again (a lost send); a task counts each node's first.
     */
    private void cutForLeftNodes() {
        try {
            Set<String> live = new TreeSet<>();
            for (ClusterView.Member m : view.get().members().values()) {
                live.add(m.node());
            }
            for (Conversion c : converting.values()) {
                cut(c, nodeId);
                for (String node : c.nodes()) {
                    if (!live.contains(node) && !node.equals(nodeId)) {
                        cut(c, node);
                    }
                }
            }
        } catch (RuntimeException e) {
            LOG.warn("writing cut markers failed", e);
        }
    }

    private static int firstPartitions(StreamDef stream) {
        return stream.partitions(stream.partitionBy().get(0));
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
