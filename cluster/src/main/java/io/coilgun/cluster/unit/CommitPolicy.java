package io.coilgun.cluster.unit;

import io.coilgun.cluster.task.TaskMeters;
import io.coilgun.cluster.task.TaskProcessor;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Collection;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * When a processor unit checkpoints its tasks and commits their positions to the task group.
 *
 * <p>Checkpoints bound what a crash replays from Kafka; replies never wait for them. The unit checkpoints the tasks
 * that changed since its last checkpoint at most every {@link #CHECKPOINT_EVERY_NS} under load (also in the middle of
 * a poll's records, so that a checkpoint's batch stays the size of one interval's changes), and at once when it goes
 * idle; a backfill keeps the unit busy without records, so it checkpoints at the interval then.
 *
 * <p>Every {@link #COMMIT_EVERY_NS}, at a checkpoint, it commits the active tasks' positions noted at the previous
 * commit: their replies were sent that long ago (acks=all, no linger), so a promoted replica re-sends only the
 * replies that may have died with this node (it keeps the last RecentReplies.CAPACITY of them). Each commit is a
 * broker write.
 *
 * <p>Only the unit's thread calls it.
 */
final class CommitPolicy {
    private static final Logger LOG = LoggerFactory.getLogger(CommitPolicy.class);
    static final long CHECKPOINT_EVERY_NS = 100_000_000L;
    static final long COMMIT_EVERY_NS = 500_000_000L;

    private final String unitName;
    private final Consumer<byte[], byte[]> active;
    /** The active tasks' positions, whose replies were sent ({@link TaskReconciler#activePositions}). */
    private final Supplier<Map<TopicPartition, OffsetAndMetadata>> positions;
    /** The unit's task of a partition, or null. */
    private final Function<TopicPartition, TaskProcessor> tasks;
    /** How long its checkpoints take (all the touched tasks' together). */
    private final Timer checkpoints;
    /** The tasks that applied records (or a backfill's rows) since the last checkpoint. */
    private final Set<TaskProcessor> touched = new HashSet<>();
    private long lastCheckpoint;
    /** The active tasks' positions at the last commit, committed at the next one. */
    private Map<TopicPartition, OffsetAndMetadata> pendingCommit = Map.of();
    private long lastCommit;

    /** @param startNanos System.nanoTime() now: the first checkpoint and commit are due an interval later */
    CommitPolicy(String unitName, Consumer<byte[], byte[]> active,
            Supplier<Map<TopicPartition, OffsetAndMetadata>> positions, Function<TopicPartition, TaskProcessor> tasks,
            MeterRegistry meters, long startNanos) {
        this.unitName = unitName;
        this.active = active;
        this.positions = positions;
        this.tasks = tasks;
        this.checkpoints = Timer.builder("coilgun.checkpoint")
                .description(
                        "Time a processor unit took to checkpoint the tasks that changed since its last checkpoint")
                .tag("unit", unitName).publishPercentiles(TaskMeters.QUANTILES)
                .distributionStatisticExpiry(Duration.ofMinutes(1)).register(meters);
        this.lastCheckpoint = startNanos;
        this.lastCommit = startNanos;
    }

    /**
     * A task took a record; {@code now} is the clock read after it. Checkpoints when one is due, in the middle of a
     * poll's records if need be.
     */
    void applied(TaskProcessor task, long now) {
        touched.add(task);
        if (now - lastCheckpoint >= CHECKPOINT_EVERY_NS) {
            checkpoint(now);
        }
    }

    /** A task ran a background slice: its rows are checkpointed with the task's, as it goes. */
    void changed(TaskProcessor task) {
        touched.add(task);
    }

    /**
     * A round of the unit ended at {@code now}: it checkpoints when it goes idle (no record taken, no background
     * work) or an interval passed, and commits when a commit interval passed too.
     */
    void roundEnded(boolean idle, long now) {
        if (touched.isEmpty() || !idle && now - lastCheckpoint < CHECKPOINT_EVERY_NS) {
            return;
        }
        checkpoint(now);
        if (now - lastCommit >= COMMIT_EVERY_NS) {
            if (!pendingCommit.isEmpty()) {
                active.commitAsync(pendingCommit, (offsets, e) -> {
                    if (e != null) {
                        LOG.debug("unit={} offsets not committed: {}", unitName, e.toString());
                    }
                });
            }
            pendingCommit = positions.get();
            lastCommit = now;
        }
    }

    /**
     * Kafka takes these partitions from the active consumer: their tasks are checkpointed (what the next holder
     * starts from, should they move) and every active position is committed at once (the replies so far were sent:
     * the next active need not send them again).
     */
    void revoked(Collection<TopicPartition> partitions) {
        for (TopicPartition tp : partitions) {
            TaskProcessor task = tasks.apply(tp);
            if (task != null) {
                checkpoint(task);
            }
        }
        commitNow();
        pendingCommit = Map.of();
    }

    /** Commits the active tasks' positions now, waiting for the broker (a rebalance, the unit's close). */
    void commitNow() {
        Map<TopicPartition, OffsetAndMetadata> now = positions.get();
        if (now.isEmpty()) {
            return;
        }
        try {
            active.commitSync(now, Duration.ofSeconds(5));
        } catch (RuntimeException e) {
            LOG.debug("unit={} offsets not committed: {}", unitName, e.toString());
        }
    }

    /** Checkpoints the touched tasks; the next checkpoint is due an interval after {@code now}. */
    private void checkpoint(long now) {
        if (!touched.isEmpty()) {
            for (TaskProcessor task : touched) {
                checkpoint(task);
            }
            checkpoints.record(System.nanoTime() - now, TimeUnit.NANOSECONDS);
        }
        touched.clear();
        lastCheckpoint = now;
    }

    private void checkpoint(TaskProcessor task) {
        try {
            task.checkpointIfDirty();
        } catch (RuntimeException e) {
            LOG.error("unit={} task={} checkpoint failed", unitName, task.id(), e);
        }
    }
}
