package io.coilgun.cluster.recovery;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.coilgun.cluster.directory.NodeStatus;
import io.coilgun.cluster.task.TaskId;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Which peers a node copies a task from: the most advanced copy first, replicas before actives, none when Kafka does. */
class RecoverySourcesTest {
    static final TaskId TASK = new TaskId("coilgun.stream.p.card", 1);

    static NodeStatus node(String name, String peer, NodeStatus.TaskCopy... copies) {
        return new NodeStatus(name, "", "", "", 2, "", 0, 0, List.of(copies), peer, "t-" + name, 0);
    }

    static NodeStatus.TaskCopy copy(String role, String state, long next) {
        return new NodeStatus.TaskCopy(TASK.toString(), role, "unit-0", next, 0, 0, 0, state);
    }

    static List<String> chosen(List<NodeStatus> statuses, long localNext, long logStart) {
        return RecoverySources.choose(statuses, "me", TASK, localNext, logStart, 10_000).stream()
                .map(PeerCopy.Peer::node).toList();
    }

    @Test
    void theMostAdvancedCopyFirstAReplicaBeforeTheActive() {
        List<NodeStatus> statuses = List.of(node("a", "h:1", copy("active", "running", 50_000)),
                node("b", "h:2", copy("replica", "running", 50_000)), node("c", "h:3", copy("stale", "stale", 20_000)),
                node("d", "h:4", copy("replica", "recovering", 60_000)), node("e", "", copy("active", "running", 90_000)),
                node("me", "h:5", copy("stale", "stale", 40_000)));
        assertEquals(List.of("b", "a", "c"), chosen(statuses, 0, 0), "recovering and unreachable copies are not sources");
    }

    @Test
    void kafkaIsEnoughWhenItHoldsWhatIsMissingAndNoCopyIsFarAhead() {
        List<NodeStatus> statuses = List.of(node("a", "h:1", copy("active", "running", 15_000)));
        assertEquals(List.of(), chosen(statuses, 6_000, 0), "9,000 behind, Kafka has it: replay");
        assertEquals(List.of("a"), chosen(statuses, 5_000, 0), "10,000 behind: copy");
        assertEquals(List.of("a"), chosen(statuses, 14_000, 14_500), "Kafka lost 14,000..14,500: copy");
        assertEquals(List.of(), chosen(List.of(), 0, 500), "no copy anywhere: none (the caller says the history is lost)");
    }
}
