package io.coilgun.cluster.unit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coilgun.cluster.assign.ClusterView;
import io.coilgun.cluster.assign.UnitInfo;
import io.coilgun.cluster.task.TaskId;
import io.coilgun.cluster.task.TaskRole;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The unit as a group member: what it tells the assignor, and when it asks the group to rebalance. */
class GroupMembershipTest {
    static final long MS = 1_000_000L;

    @TempDir
    Path dir;
    TestTasks host;
    final MockConsumer<byte[], byte[]> active = new MockConsumer<>("earliest");

    GroupMembership membership() {
        host = new TestTasks(dir);
        return new GroupMembership(3, host,
                held -> held.put(TaskId.of(TestTasks.TP0), new UnitInfo.Held(TaskRole.ACTIVE, 7)));
    }

    @AfterEach
    void tearDown() {
        host.close();
    }

    @Test
    void itTellsTheAssignorWhatTheUnitHolds() {
        GroupMembership m = membership();
        assertEquals("n1", m.node());
        assertEquals(3, m.unit());
        assertEquals(Map.of(TaskId.of(TestTasks.TP0), new UnitInfo.Held(TaskRole.ACTIVE, 7)), m.held());
        assertEquals(2, m.copies(TestTasks.TOPIC));
        assertFalse(m.draining());
        ClusterView view = TestTasks.view(4, Map.of(TestTasks.TP0, List.of("m3")));
        m.assigned(view, "m3");
        assertSame(view, m.lastView());
        assertEquals("m3", m.memberId());
    }

    @Test
    void aPlannedRebalanceIsAskedForWhenDueTheSoonerPlanWinning() {
        GroupMembership m = membership();
        long now = System.nanoTime();
        m.rebalanceIn(1_000);
        m.rebalanceIn(50_000); // later: the sooner plan stays
        m.rebalanceIfDue(active, now + 500 * MS);
        assertFalse(active.shouldRebalance());
        m.rebalanceIfDue(active, now + 1_001 * MS);
        assertTrue(active.shouldRebalance());
        active.resetShouldRebalance();
        m.rebalanceIfDue(active, now + 60_000 * MS);
        assertFalse(active.shouldRebalance(), "asked once");
    }

    @Test
    void aRequestMadeDuringARebalanceIsMadeAgainAfterIt() {
        GroupMembership m = membership();
        m.joining(); // a rebalance begins
        m.startDraining(); // the node drains meanwhile: Kafka may forget the request
        assertTrue(m.draining());
        m.rebalanceIfDue(active, System.nanoTime());
        assertTrue(active.shouldRebalance());
        active.resetShouldRebalance();
        m.assigned(ClusterView.EMPTY, "m3"); // that rebalance ends, without knowing
        m.rebalanceIfDue(active, System.nanoTime());
        assertTrue(active.shouldRebalance(), "asked again");
        active.resetShouldRebalance();
        m.joining();
        m.assigned(ClusterView.EMPTY, "m3"); // a rebalance that began after the request knows it
        m.rebalanceIfDue(active, System.nanoTime() + 1_000 * MS);
        assertFalse(active.shouldRebalance());
    }
}
