package io.coilgun.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coilgun.cluster.directory.NodeStatus;
import io.coilgun.cluster.recovery.PeerCopy;
import io.coilgun.cluster.recovery.RecoveryProgress;
import io.coilgun.cluster.task.TaskId;
import io.coilgun.cluster.task.TaskRole;
import io.coilgun.planner.plan.TaskPlan;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PeerRecoveryTest {
    @TempDir
    Path dir;

    @Test
    void aClosedCopyOnDiskIsServedToAPeer() throws Exception {
        try (NodeFixture node = new NodeFixture(dir.resolve("n1"))) {
            node.closedCopy(NodeFixture.T0_TASK, 2_000);
            PeerCopy.Peer peer = new PeerCopy.Peer("n1", node.recovery.address(), node.recovery.token());
            Path staging = dir.resolve("staging");
            var manifest = new PeerCopy().fetch(peer, NodeFixture.T0_TASK, staging, null, new RecoveryProgress());
            assertEquals(2_000, manifest.nextOffset(), "the copy is the closed copy's checkpoint");
            assertEquals(2_000, TaskPlan.checkpointedNextOffset(staging));
            assertFalse(node.recovery.snapshotting(NodeFixture.T0_TASK), "a unit may open it again");

            IOException absent = assertThrows(IOException.class, () -> new PeerCopy().fetch(peer,
                    NodeFixture.T1_TASK, dir.resolve("none"), null, new RecoveryProgress()));
            assertTrue(absent.getMessage().contains("404"), "no copy of T1 here: " + absent.getMessage());
            IOException undeployed = assertThrows(IOException.class, () -> new PeerCopy().fetch(peer,
                    new TaskId("coilgun.stream.q.card", 0), dir.resolve("q"), null, new RecoveryProgress()));
            assertTrue(undeployed.getMessage().contains("404"), undeployed.getMessage());
        }
    }

    @Test
    void withoutPeersATaskOpensFromWhatThisNodeHas() {
        try (NodeFixture node = new NodeFixture(dir.resolve("n1"))) {
            node.closedCopy(NodeFixture.T0_TASK, 500);
            // no other node in the placement, no statuses: nothing to copy, Kafka replays the rest
            assertFalse(node.recovery.recoverFirst(NodeFixture.T0_TASK, TaskRole.ACTIVE, 0, null, copied -> { }));
            assertFalse(node.recovery.recoverFirst(NodeFixture.T1_TASK, TaskRole.REPLICA, 0, null, copied -> { }));
            assertFalse(node.recovery.recoverFirst(new TaskId("coilgun.stream.q.card", 0), TaskRole.ACTIVE, 0, null,
                    copied -> { }), "a stream not deployed here");
            List<NodeStatus.TaskCopy> copies = new ArrayList<>();
            node.recovery.reportCopies(copies);
            assertEquals(List.of(), copies, "no copy under way");
            assertFalse(node.recovery.copying(NodeFixture.T0_TASK));
        }
    }
}
