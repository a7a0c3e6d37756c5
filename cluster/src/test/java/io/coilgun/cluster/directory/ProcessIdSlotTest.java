package io.coilgun.cluster.directory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Live nodes never share a slot of process ids; a node gone quiet frees its slot. */
class ProcessIdSlotTest {
    static NodeStatus status(String node, int slot, long updated) {
        return new NodeStatus(node, "", "", "", 1, "", 0, updated, List.of(), "", "", slot);
    }

    @Test
    void theNodeWithTheLargerIdMovesOffASharedSlotTheOtherKeepsIt() {
        ProcessIdSlot a = new ProcessIdSlot("a");
        ProcessIdSlot b = new ProcessIdSlot("b");
        int shared = b.get(); // as two nodes whose ids hash alike would claim
        Map<String, NodeStatus> statuses = new HashMap<>();
        statuses.put("a", status("a", shared, 1_000));
        statuses.put("b", status("b", shared, 1_000));
        b.update(statuses, 1_000);
        assertNotEquals(shared, b.get(), "b (the larger id) moves");
        statuses.put("b", status("b", b.get(), 1_000));
        int aBefore = a.get();
        a.update(statuses, 1_000);
        assertEquals(aBefore, a.get(), "a keeps its own");
    }

    @Test
    void aSlotOfANodeGoneQuietIsFree() {
        ProcessIdSlot b = new ProcessIdSlot("b");
        int mine = b.get();
        b.update(Map.of("a", status("a", mine, 0)), ProcessIdSlot.LIVE_MS + 1);
        assertEquals(mine, b.get());
    }

    @Test
    void theSlotTravelsInTheStatus() {
        assertEquals(17, NodeStatus.decode(status("n1", 17, 5).encode()).pidSlot());
        assertEquals(0, NodeStatus.decode("node=n1\n".getBytes(StandardCharsets.UTF_8)).pidSlot(),
                "an older node's status: unknown");
    }
}
