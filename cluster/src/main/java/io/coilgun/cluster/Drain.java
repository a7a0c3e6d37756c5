package io.coilgun.cluster;

import io.coilgun.cluster.assign.ClusterView;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A graceful stop's hand-over: while other nodes are in the cluster, this node's units say they are draining, and
 * the node waits until it leads no task (each moved replica first: a copy elsewhere caught up, then a change of
 * role), reporting the progress every second.
 */
final class Drain {
    private static final Logger LOG = LoggerFactory.getLogger(Drain.class);
    private final NodeTasks tasks;
    private final Runnable startDraining;
    private final Progress progress;

    /** @param startDraining tells the node's units to say they drain (their next rebalance moves their tasks) */
    Drain(NodeTasks tasks, Runnable startDraining, Progress progress) {
        this.tasks = tasks;
        this.startDraining = startDraining;
        this.progress = progress;
    }

    /** True once this node leads no task (at once when it is alone); false after {@code timeoutMs}. */
    boolean run(long timeoutMs) {
        if (tasks.otherNodes().isEmpty()) {
            return true; // no one to hand over to
        }
        LOG.info("draining: this node's tasks move to the other nodes before it stops");
        long started = System.currentTimeMillis();
        startDraining.run();
        long deadline = System.nanoTime() + timeoutMs * 1_000_000L;
        long ledAtStart = led();
        boolean reported = false;
        while (true) {
            long leftMs = Math.max(0, (deadline - System.nanoTime() + 999_999) / 1_000_000);
            // woken by each new placement; back every second to report the progress
            if (tasks.await(() -> led() == 0 && tasks.view().generation() >= 0, Math.min(1000, leftMs))) {
                if (reported) {
                    progress.report(Progress.DRAIN, ledAtStart, ledAtStart); // the bar ends at 100%
                }
                LOG.info("drained in {} ms", System.currentTimeMillis() - started);
                return true;
            }
            if (Thread.currentThread().isInterrupted()) {
                return false;
            }
            if (System.nanoTime() - deadline >= 0) {
                LOG.warn("not drained after {} ms; stopping anyway: the others take the rest from their own copies",
                        timeoutMs);
                return false;
            }
            long led = led();
            ledAtStart = Math.max(ledAtStart, led);
            progress.report(Progress.DRAIN, ledAtStart - led, ledAtStart);
            reported = true;
        }
    }

    /** The tasks this node's units lead in the latest placement. */
    private long led() {
        ClusterView v = tasks.view();
        String self = tasks.nodeId();
        return v.placements().tasks().values().stream().filter(c -> c.active() != null
                && v.members().containsKey(c.active()) && v.members().get(c.active()).node().equals(self)).count();
    }
}
