package io.coilgun.cluster.directory;

import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * The slot of client process ids this node gives (the high bits of a pgwire pid, 1 to {@value #MAX}), so that no two
 * live nodes give the same pid ({@code pg_stat_activity} lists them side by side, {@code pg_cancel_backend} finds one
 * by it). A node starts at a slot of its id's hash and moves to the next free one when a live node (a status
 * published in the last {@value #LIVE_MS} ms) claims it too and has the smaller id; every node publishes its slot
 * in its status.
 */
public final class ProcessIdSlot {
    /** The largest slot (pgwire's CancelRegistry.MAX_SLOT: 11 bits above 20). */
    public static final int MAX = 2047;
    static final long LIVE_MS = 30_000;

    private final String self;
    private volatile int slot;

    public ProcessIdSlot(String self) {
        this.self = self;
        this.slot = Math.floorMod(self.hashCode(), MAX) + 1;
    }

    public int get() {
        return slot;
    }

    /** Chooses again against the other nodes' statuses (each with its slot), as of {@code nowMillis}. */
    public synchronized void update(Map<String, NodeStatus> statuses, long nowMillis) {
        Set<Integer> taken = new HashSet<>();
        boolean mineTaken = false;
        for (NodeStatus s : statuses.values()) {
            if (s.node().equals(self) || s.pidSlot() <= 0 || nowMillis - s.updatedAtMillis() > LIVE_MS) {
                continue;
            }
            taken.add(s.pidSlot());
            mineTaken |= s.pidSlot() == slot && s.node().compareTo(self) < 0;
        }
        if (!mineTaken) {
            return;
        }
        int next = slot;
        for (int i = 0; i < MAX; i++) {
            next = next % MAX + 1;
            if (!taken.contains(next)) {
                slot = next;
                return;
            }
        }
    }
}
