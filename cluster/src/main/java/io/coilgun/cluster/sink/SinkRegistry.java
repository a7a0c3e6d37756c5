package io.coilgun.cluster.sink;

import io.coilgun.cluster.kafka.KafkaClients;
import io.coilgun.planner.model.SinkDef;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListConsumerGroupOffsetsSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node's sinks: their definitions as the catalog has them (each task reads those of its stream), the Kafka
 * clients their writers use, what each sink wrote from this node, and every second the sinks' committed offsets for
 * the replicas here (a replica keeps its records only until the active's are committed).
 */
public final class SinkRegistry implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SinkRegistry.class);
    /** How long a transaction may stay open when its writer died: read_committed consumers wait at most that. */
    static final int TRANSACTION_TIMEOUT_MS = 10_000;

    private final String bootstrapServers;
    private final MeterRegistry meters;
    private volatile Map<String, List<SinkDef>> byStream = Map.of();
    private volatile int version;
    private final Map<String, AtomicLong> written = new ConcurrentHashMap<>();
    private final Map<String, Counter> counters = new ConcurrentHashMap<>();
    private final Set<TaskSinks> replicas = ConcurrentHashMap.newKeySet();
    private volatile Admin admin;
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "coilgun-sink-offsets");
        t.setDaemon(true);
        return t;
    });

    public SinkRegistry(String bootstrapServers, MeterRegistry meters) {
        this.bootstrapServers = bootstrapServers;
        this.meters = meters;
        if (bootstrapServers != null) {
            timer.scheduleWithFixedDelay(this::readReplicaOffsets, 1, 1, TimeUnit.SECONDS);
        }
    }

    /** A registry with no sinks (tests that run tasks without a node). */
    public static SinkRegistry none() {
        return new SinkRegistry(null, null);
    }

    /** The catalog's sinks now (on every CREATE or DROP SINK, and at start). */
    public void update(Collection<SinkDef> sinks) {
        Map<String, List<SinkDef>> index = new HashMap<>();
        for (SinkDef s : sinks) {
            index.computeIfAbsent(s.stream(), k -> new ArrayList<>()).add(s);
        }
        index.replaceAll((k, v) -> List.copyOf(v));
        byStream = Map.copyOf(index);
        version++;
    }

    /** Changes with every {@link #update}: a task reads its sinks again when it does. */
    int version() {
        return version;
    }

    List<SinkDef> of(String stream) {
        return byStream.getOrDefault(stream, List.of());
    }

    /** How many records the sink wrote from this node since it started (coilgun.sinks). */
    public long written(String sink) {
        AtomicLong n = written.get(sink);
        return n == null ? 0 : n.get();
    }

    void written(List<SinkEntry> entries) {
        for (SinkEntry e : entries) {
            written.computeIfAbsent(e.sink(), s -> new AtomicLong()).incrementAndGet();
            if (meters != null) {
                counters.computeIfAbsent(e.sink(), s -> Counter.builder("coilgun.sink.records")
                        .description("Records a sink wrote to its Kafka topic (committed), from this node")
                        .tag("sink", s).register(meters)).increment();
            }
        }
    }

    /** How long the sinks' transactions take, from begin to commit (null without meters). */
    Timer commitTimer() {
        return meters == null ? null : Timer.builder("coilgun.sink.transaction")
                .description("A sink transaction of one task, from its first record to its commit")
                .register(meters);
    }

    /** The task's transactional producer: its id is the task's, so one copy's fences every earlier one. */
    KafkaProducer<byte[], byte[]> transactionalProducer(TopicPartition task) {
        return KafkaClients.transactionalProducer(bootstrapServers, "coilgun-sink-" + task,
                "coilgun.sink." + task.topic() + "-" + task.partition(), TRANSACTION_TIMEOUT_MS);
    }

    /** The first offset of {@code task} whose record the sink's group does not have yet, 0 when none is committed. */
    long committedNext(String group, TopicPartition task) {
        try {
            Map<TopicPartition, OffsetAndMetadata> offsets = admin().listConsumerGroupOffsets(group)
                    .partitionsToOffsetAndMetadata().get(15, TimeUnit.SECONDS);
            OffsetAndMetadata o = offsets.get(task);
            return o == null ? 0 : o.offset();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted reading the offsets of " + group, e);
        } catch (Exception e) {
            throw new IllegalStateException("cannot read the committed offsets of " + group + ": " + e, e);
        }
    }

    /** A replica's sinks want to hear how far the active's records are committed ({@link TaskSinks#committed}). */
    void watch(TaskSinks task) {
        replicas.add(task);
    }

    void unwatch(TaskSinks task) {
        replicas.remove(task);
    }

    private void readReplicaOffsets() {
        if (replicas.isEmpty()) {
            return;
        }
        try {
            Map<String, ListConsumerGroupOffsetsSpec> specs = new HashMap<>();
            for (TaskSinks t : replicas) {
                for (String group : t.groups()) {
                    specs.computeIfAbsent(group, g -> new ListConsumerGroupOffsetsSpec());
                }
            }
            if (specs.isEmpty()) {
                return;
            }
            var result = admin().listConsumerGroupOffsets(specs);
            Map<String, Map<TopicPartition, OffsetAndMetadata>> byGroup = new HashMap<>();
            for (String group : specs.keySet()) {
                byGroup.put(group, result.partitionsToOffsetAndMetadata(group).get(10, TimeUnit.SECONDS));
            }
            for (TaskSinks t : replicas) {
                t.committed(byGroup);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            LOG.debug("cannot read the sinks' committed offsets for the replicas: {}", e.toString());
        }
    }

    private Admin admin() {
        Admin a = admin;
        if (a == null) {
            synchronized (this) {
                if (admin == null) {
                    admin = KafkaClients.admin(bootstrapServers);
                }
                a = admin;
            }
        }
        return a;
    }

    @Override
    public void close() {
        timer.shutdownNow();
        Admin a = admin;
        if (a != null) {
            a.close();
        }
    }
}
