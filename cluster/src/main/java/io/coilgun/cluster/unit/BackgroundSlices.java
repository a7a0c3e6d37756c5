package io.coilgun.cluster.unit;

import io.coilgun.cluster.task.TaskProcessor;
import java.util.Collection;
import java.util.concurrent.Semaphore;

/**
 * A processor unit's background work (backfills of metrics created WITH (backfill = …), replays): it runs in slices
 * between two polls, at a lower priority than live records, on as many units at a time as the node has
 * {@linkplain UnitHost#backgroundSlots slots} (all but one; one on a node of two units or fewer) and within the
 * node's share of a core ({@link UnitHost#backgroundNotBefore}). A slice is short: live records wait for it at most that long.
 *
 * <p>Each round the unit asks whether there is {@linkplain #pending work}; when there is it {@linkplain #trySlot tries
 * the slot} before its polls (it polls without waiting when it holds it, briefly otherwise) and {@linkplain #run runs
 * the slice} after them. Only the unit's thread calls it.
 */
final class BackgroundSlices {
    /**
     * How long a slice may run: shorter right after records were taken (live traffic), so that a backfill goes at
     * the speed of the unit's idle time.
     */
    static final long SLICE_IDLE_NS = 2_000_000L;
    static final long SLICE_BUSY_NS = 300_000L;
    /** How long a new fill waits before its first slice (see {@link #pending}). */
    static final long FILL_START_DELAY_NS = Long.getLong("coilgun.fillStartDelayMs", 1000) * 1_000_000L;

    private final UnitHost host;
    /** The unit's tasks (a live view). */
    private final Collection<TaskProcessor> tasks;
    private final CommitPolicy commits;
    /** Whether one of the unit's tasks was filling a metric at the last round. */
    private boolean wasFilling;
    /** The slots this unit took a slot of for the coming slice, or null. */
    private Semaphore slot;

    BackgroundSlices(UnitHost host, Collection<TaskProcessor> tasks, CommitPolicy commits) {
        this.host = host;
        this.tasks = tasks;
        this.commits = commits;
    }

    /**
     * Whether a task of the unit has background work. A fill (CREATE METRIC … WITH (backfill)) begins a little after
     * the statement that asked for it: that statement's own work (planning, the catalog, the start markers) and the
     * first slices' compilation would otherwise fall in the same moment, on the same cores as live events. (A REPLAY
     * starts at once: its client waits for its rows.)
     */
    boolean pending() {
        boolean pending = anyBackfillWork();
        boolean filling = pending && anyFill();
        if (filling && !wasFilling) {
            host.deferBackground(System.nanoTime() + FILL_START_DELAY_NS);
        }
        wasFilling = filling;
        return pending;
    }

    /** Takes the node's slot when a slice is due; then {@link #run} must follow. */
    boolean trySlot() {
        Semaphore slots = host.backgroundSlots();
        if (System.nanoTime() - host.backgroundNotBefore() >= 0 && slots.tryAcquire()) {
            slot = slots;
            return true;
        }
        return false;
    }

    /**
     * Runs a slice of the tasks' background work and gives the slot back.
     *
     * @param busy whether the round took records (a shorter slice then)
     */
    void run(boolean busy) {
        try {
            long began = System.nanoTime();
            runUntil(began + (busy ? SLICE_BUSY_NS : SLICE_IDLE_NS));
            host.backgroundRan(began, System.nanoTime());
        } finally {
            Semaphore taken = slot;
            slot = null;
            if (taken != null) {
                taken.release();
            }
        }
    }

    private void runUntil(long deadlineNanos) {
        for (TaskProcessor task : tasks) {
            if (task.hasBackfillWork()) {
                task.backfill(deadlineNanos);
                commits.changed(task);
                if (System.nanoTime() - deadlineNanos >= 0) {
                    return;
                }
            }
        }
    }

    private boolean anyFill() {
        for (TaskProcessor task : tasks) {
            if (task.filling()) {
                return true;
            }
        }
        return false;
    }

    private boolean anyBackfillWork() {
        for (TaskProcessor task : tasks) {
            if (task.hasBackfillWork()) {
                return true;
            }
        }
        return false;
    }
}
