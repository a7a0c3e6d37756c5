package io.coilgun.cluster.unit;

import static io.coilgun.cluster.unit.TestTasks.TOPIC;
import static io.coilgun.cluster.unit.TestTasks.TP0;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.OffsetCommitCallback;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.UnknownMemberIdException;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A unit's lease on its place in the task group: held from a proof of membership (an accepted commit, an
 * assignment) for the session timeout less a margin, counted from when the proof was asked; renewed by a commit every
 * fifth of the session; the partitions of active tasks held back while it ran out go on once it is proven again.
 */
class GroupLeaseTest {
    static final long T = 1_000_000_000_000L; // a System.nanoTime() far from 0
    static final long MS = 1_000_000L;

    /** Commits whose answers the test gives when it wants. */
    final List<OffsetCommitCallback> answers = new ArrayList<>();
    final MockConsumer<byte[], byte[]> active = new MockConsumer<>("earliest") {
        @Override
        public synchronized void commitAsync(Map<TopicPartition, OffsetAndMetadata> offsets,
                OffsetCommitCallback callback) {
            answers.add(callback);
        }
    };
    /** Session 1000 ms: lease 800 ms, renewed every 200 ms. */
    final GroupLease lease = new GroupLease("unit-0", 1000);

    @BeforeEach
    void setUp() {
        active.subscribe(Set.of(TOPIC));
        active.rebalance(List.of(TP0));
    }

    @Test
    void heldFromAProofForTheSessionLessItsMargin() {
        assertFalse(lease.held(T), "no proof yet");
        lease.proven(T);
        assertTrue(lease.held(T + 799 * MS));
        assertFalse(lease.held(T + 800 * MS), "the session less a fifth (at least 100 ms)");
        lease.proven(T - 500 * MS);
        assertTrue(lease.held(T + 799 * MS), "an older proof changes nothing");
    }

    @Test
    void aCommitAcceptedProvesFromWhenItWasAsked() {
        lease.renewIfDue(active, T);
        assertEquals(1, answers.size(), "the first is due at once");
        lease.renewIfDue(active, T + 100 * MS);
        assertEquals(1, answers.size(), "one at a time, every 200 ms");
        answers.get(0).onComplete(Map.of(), null);
        assertTrue(lease.held(T + 799 * MS));
        assertFalse(lease.held(T + 800 * MS), "from the ask, not the answer");

        lease.renewIfDue(active, T + 200 * MS);
        answers.get(1).onComplete(Map.of(), new UnknownMemberIdException("removed"));
        assertFalse(lease.held(T + 800 * MS), "a refused commit proves nothing");
        lease.renewIfDue(active, T + 300 * MS);
        assertEquals(2, answers.size());
        lease.renewIfDue(active, T + 400 * MS);
        assertEquals(3, answers.size());
    }

    @Test
    void anAnswerThatNeverComesIsAskedAgainAfterALease() {
        lease.renewIfDue(active, T);
        lease.renewIfDue(active, T + 700 * MS);
        assertEquals(1, answers.size(), "still waiting for it");
        lease.renewIfDue(active, T + 800 * MS);
        assertEquals(2, answers.size());
    }

    @Test
    void activePartitionsHeldBackWaitAtTheirTasksNextOffsetUntilProvenAgain() {
        lease.proven(T);
        assertFalse(lease.held(T + 900 * MS));
        lease.holdBack(active, TP0, 42, T + 900 * MS);
        assertEquals(Set.of(TP0), active.paused());
        assertEquals(42, active.position(TP0));
        lease.proven(System.nanoTime());
        assertEquals(Set.of(), active.paused(), "proven: they go on");
    }
}
