package io.coilgun.cluster.task;

/**
 * Decides which tasks run on this node and on which of its processor units: the one place that knows, and the seam
 * where the cluster's assignor plugs in. Today one node runs every task, spread over its units by the task's hash.
 */
public final class TaskPlacement {
    private final int units;

    /** @param units the node's processor units */
    public TaskPlacement(int units) {
        this.units = units;
    }

    /** Whether this node runs task {@code id}. */
    public boolean runsHere(TaskId id) {
        return true;
    }

    /** The index of the processor unit that runs task {@code id}. */
    public int unit(TaskId id) {
        return Math.floorMod(id.hashCode(), units);
    }
}
