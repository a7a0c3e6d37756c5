package io.coilgun.planner.plan;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Deletes the scratch directory of a fill or a replay that ended, off the unit's thread: deleting a 10 million event
 * fill's spilled segments took 364 ms, with every live event of the unit waiting behind it. The directory is first
 * renamed (one metadata operation, so a fill or replay of the same name may start there at once), then deleted by a
 * background thread. After a crash, what it had not deleted yet goes with the rest of a task's scratch data when the
 * task opens again ({@code TaskPlan}: the whole {@code backfill} and {@code replay} directories).
 */
final class ScratchDeleter {
    private static final AtomicLong SEQUENCE = new AtomicLong();
    private static final ExecutorService DELETER = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "coilgun-scratch-deleter");
        t.setDaemon(true);
        return t;
    });

    private ScratchDeleter() {
    }

    /** Moves {@code dir} aside now and deletes it in the background (nothing when it does not exist). */
    static void deleteLater(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        Path aside = dir.resolveSibling(dir.getFileName() + ".deleted-" + SEQUENCE.incrementAndGet());
        Path target;
        try {
            target = Files.move(dir, aside);
        } catch (IOException e) {
            target = dir; // cannot rename: delete it where it is, still off this thread
        }
        Path doomed = target;
        DELETER.execute(() -> {
            try {
                MetricBackfill.deleteTree(doomed);
            } catch (RuntimeException e) {
                // left for the task's next opening, which deletes all its scratch data
            }
        });
    }
}
