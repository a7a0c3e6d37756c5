package io.coilgun.cluster.recovery;

import io.coilgun.cluster.task.TaskId;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The copies of tasks this node is making from its peers (peer recovery): each runs on a recovery thread (never a
 * processor unit's), into {@code <data>/incoming/<task>}, and is then moved into {@code <data>/tasks/<task>} in one
 * rename, replacing the node's stale copy if it had one, so a task directory is always whole. The peers are tried
 * in the order given; what one left in the staging directory is kept for the next (resumed, reused when it matches).
 * When every peer failed the task's data is left as it was, and the caller decides (replay from Kafka, or say that
 * the history is lost).
 */
public final class TaskRecoveries implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(TaskRecoveries.class);

    /** The outcome of one task's copy, told to whoever waits for it. */
    public interface Done {
        /** @param copied whether the task's directory now holds the copy */
        void done(boolean copied);
    }

    private record Running(RecoveryProgress progress, List<Done> waiting) {
    }

    private final Path dataDir;
    private final PeerCopy copier;
    private final ExecutorService threads;
    private final Map<TaskId, Running> running = new ConcurrentHashMap<>();

    /** @param parallel copies at once */
    public TaskRecoveries(Path dataDir, int parallel) {
        this(dataDir, parallel, PeerSecurity.NONE);
    }

    /** The same, copying from peers as {@code security} says (TLS, the cluster secret). */
    public TaskRecoveries(Path dataDir, int parallel, PeerSecurity security) {
        this.dataDir = dataDir;
        this.copier = new PeerCopy(security);
        this.threads = Executors.newFixedThreadPool(parallel, r -> {
            Thread t = new Thread(r, "coilgun-recovery");
            t.setDaemon(true);
            return t;
        });
    }

    /** The copies under way, with their progress. */
    public Map<TaskId, RecoveryProgress> inProgress() {
        Map<TaskId, RecoveryProgress> out = new HashMap<>();
        running.forEach((id, r) -> out.put(id, r.progress()));
        return out;
    }

    /**
     * Copies {@code task} from the first of {@code peers} that gives a whole copy, then tells {@code done}; a copy
     * already under way is joined instead.
     */
    public void copy(TaskId task, List<PeerCopy.Peer> peers, Done done) {
        Running[] started = new Running[1];
        Running r = running.compute(task, (id, existing) -> {
            if (existing != null) {
                existing.waiting().add(done);
                return existing;
            }
            List<Done> waiting = new ArrayList<>();
            waiting.add(done);
            started[0] = new Running(new RecoveryProgress(), waiting);
            return started[0];
        });
        if (r == started[0]) {
            threads.execute(() -> run(task, peers, r));
        }
    }

    private void run(TaskId task, List<PeerCopy.Peer> peers, Running r) {
        Path staging = dataDir.resolve("incoming").resolve(task.toString());
        Path target = dataDir.resolve("tasks").resolve(task.toString());
        boolean copied = false;
        for (PeerCopy.Peer peer : peers) {
            long started = System.nanoTime();
            try {
                var manifest = copier.fetch(peer, task, staging, Files.isDirectory(target) ? target : null,
                        r.progress());
                install(staging, target, staging.resolveSibling(task + ".replaced"));
                LOG.info("task={} copied from node {} at offset {}: {} bytes ({} reused) in {} ms", task, peer.node(),
                        manifest.nextOffset(), manifest.bytes(), r.progress().reusedBytes(),
                        (System.nanoTime() - started) / 1_000_000);
                copied = true;
                break;
            } catch (IOException | RuntimeException e) {
                LOG.warn("task={} copy from node {} failed: {}", task, peer.node(), e.toString());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        running.remove(task, r); // atomic with copy()'s joining: every waiter is in the list now
        for (Done d : r.waiting()) {
            try {
                d.done(copied);
            } catch (RuntimeException e) {
                LOG.error("task={} a copy's waiter failed", task, e);
            }
        }
    }

    /** The staged copy becomes the task's directory, in one rename (the stale one moved aside to {@code old}). */
    private static void install(Path staging, Path target, Path old) throws IOException {
        Files.createDirectories(target.getParent());
        if (Files.exists(target)) {
            FileTrees.delete(old);
            Files.move(target, old, StandardCopyOption.ATOMIC_MOVE);
            Files.move(staging, target, StandardCopyOption.ATOMIC_MOVE);
            FileTrees.delete(old);
        } else {
            Files.move(staging, target, StandardCopyOption.ATOMIC_MOVE);
        }
    }

    @Override
    public void close() {
        threads.shutdownNow();
    }
}
