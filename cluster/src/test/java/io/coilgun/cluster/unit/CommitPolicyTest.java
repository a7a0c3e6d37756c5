package io.coilgun.cluster.unit;

import static io.coilgun.cluster.unit.CommitPolicy.CHECKPOINT_EVERY_NS;
import static io.coilgun.cluster.unit.CommitPolicy.COMMIT_EVERY_NS;
import static io.coilgun.cluster.unit.TestTasks.TOPIC;
import static io.coilgun.cluster.unit.TestTasks.TP0;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.coilgun.cluster.task.TaskProcessor;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * When a unit checkpoints and commits, and which offsets: a checkpoint at most every 100 ms under load (also in the
 * middle of a poll's records) and at once when the unit goes idle; at a checkpoint every 500 ms, the positions
 * noted at the previous commit; everything at once when Kafka revokes partitions.
 */
class CommitPolicyTest {
    static final long T = 1_000_000_000_000L; // a System.nanoTime() far from 0
    static final long MS = 1_000_000L;

    @TempDir
    Path dir;
    TestTasks host;
    TaskProcessor task;
    final MockConsumer<byte[], byte[]> active = new MockConsumer<>("earliest");
    /** The active positions the unit reports (what the reconciler would). */
    long position;
    CommitPolicy commits;

    @BeforeEach
    void setUp() {
        host = new TestTasks(dir);
        task = host.task(TP0);
        active.subscribe(Set.of(TOPIC));
        active.rebalance(List.of(TP0));
        commits = new CommitPolicy("unit-0", active, () -> Map.of(TP0, new OffsetAndMetadata(position)),
                tp -> tp.equals(TP0) ? task : null, host.meters(), T);
    }

    @AfterEach
    void tearDown() {
        task.close();
        host.close();
    }

    long checkpoints() {
        return host.meters().get("coilgun.checkpoint").timer().count();
    }

    /** The task applies its next record at {@code now}. */
    void apply(long now) {
        task.process(host.event(TP0, task.nextOffset()));
        position = task.nextOffset();
        commits.applied(task, now);
    }

    Long committed() {
        OffsetAndMetadata c = active.committed(Set.of(TP0)).get(TP0);
        return c == null ? null : c.offset();
    }

    @Test
    void underLoadItCheckpointsAtMostEveryInterval() {
        apply(T + 10 * MS);
        commits.roundEnded(false, T + 50 * MS);
        assertEquals(0, checkpoints(), "busy, and no interval since the last checkpoint");
        apply(T + CHECKPOINT_EVERY_NS); // in the middle of a poll's records
        assertEquals(1, checkpoints());
        apply(T + CHECKPOINT_EVERY_NS + 10 * MS);
        commits.roundEnded(false, T + CHECKPOINT_EVERY_NS + 20 * MS);
        assertEquals(1, checkpoints());
        commits.roundEnded(false, T + 2 * CHECKPOINT_EVERY_NS);
        assertEquals(2, checkpoints(), "at the end of a round an interval after");
        commits.roundEnded(true, T + 3 * CHECKPOINT_EVERY_NS);
        assertEquals(2, checkpoints(), "nothing changed since");
    }

    @Test
    void anIdleUnitCheckpointsAtOnce() {
        apply(T + MS);
        commits.roundEnded(true, T + 2 * MS);
        assertEquals(1, checkpoints());
    }

    @Test
    void itCommitsThePositionsNotedAtThePreviousCommit() {
        apply(T + MS);
        commits.roundEnded(true, T + COMMIT_EVERY_NS);
        assertNull(committed(), "the first commit notes the positions; their replies may not be sent yet");
        apply(T + COMMIT_EVERY_NS + MS);
        apply(T + COMMIT_EVERY_NS + 2 * MS);
        commits.roundEnded(true, T + COMMIT_EVERY_NS + 3 * MS);
        assertNull(committed(), "checkpointed, but no commit interval since the last");
        commits.roundEnded(true, T + 2 * COMMIT_EVERY_NS); // nothing touched: no checkpoint, no commit
        assertNull(committed());
        apply(T + 2 * COMMIT_EVERY_NS + MS); // checkpointed at once (an interval since the last): no commit there
        assertEquals(3, checkpoints());
        assertNull(committed(), "commits go with the checkpoints at the end of a round");
        apply(T + 2 * COMMIT_EVERY_NS + 2 * MS);
        commits.roundEnded(true, T + 2 * COMMIT_EVERY_NS + 3 * MS);
        assertEquals(1L, committed(), "the positions of the previous commit, half a second old");
        assertEquals(5, position);
    }

    @Test
    void revokedPartitionsAreCheckpointedAndEveryPositionCommittedAtOnce() {
        apply(T + MS);
        apply(T + 2 * MS);
        commits.revoked(List.of(TP0, new TopicPartition(TOPIC, 1)));
        assertEquals(2L, committed());
        task.discard(); // what its next holder finds: the checkpoint the revocation made
        task = host.task(TP0);
        assertEquals(2, task.nextOffset());
        apply(T + COMMIT_EVERY_NS);
        commits.roundEnded(true, T + COMMIT_EVERY_NS + MS);
        assertEquals(2L, committed(), "nothing noted before the revocation is committed again");
    }
}
