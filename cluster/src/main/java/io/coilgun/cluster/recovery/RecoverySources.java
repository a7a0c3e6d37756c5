package io.coilgun.cluster.recovery;

import io.coilgun.cluster.directory.NodeStatus;
import io.coilgun.cluster.task.TaskId;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;

/**
 * Which peers a node copies a task from, as their statuses on Kafka tell (pure logic). A peer's copy counts when it
 * runs (active or replica) or lies stale on its disk, and has events; the most advanced first, a replica before the
 * active at the same offset (to spare the active). None when replaying Kafka is as good: no copy is at least
 * {@code minEvents} ahead of this node's own ({@code localNext}) and Kafka still holds what it would replay
 * ({@code logStart <= localNext}).
 */
public final class RecoverySources {
    private RecoverySources() {
    }

    public static List<PeerCopy.Peer> choose(Collection<NodeStatus> statuses, String self, TaskId task,
            long localNext, long logStart, long minEvents) {
        record Candidate(PeerCopy.Peer peer, long next, boolean active) {
        }
        List<Candidate> candidates = new ArrayList<>();
        for (NodeStatus status : statuses) {
            if (status.node().equals(self) || status.peer().isEmpty()) {
                continue;
            }
            for (NodeStatus.TaskCopy copy : status.tasks()) {
                boolean usable = copy.state().equals("running") || copy.role().equals("stale");
                if (copy.task().equals(task.toString()) && usable && copy.nextOffset() > 0) {
                    candidates.add(new Candidate(new PeerCopy.Peer(status.node(), status.peer(), status.peerToken()),
                            copy.nextOffset(), copy.role().equals("active")));
                }
            }
        }
        candidates.sort(Comparator.comparingLong(Candidate::next).reversed().thenComparing(Candidate::active));
        boolean lost = logStart > localNext;
        if (candidates.isEmpty() || !lost && candidates.get(0).next() - localNext < minEvents) {
            return List.of();
        }
        return candidates.stream().map(Candidate::peer).toList();
    }
}
