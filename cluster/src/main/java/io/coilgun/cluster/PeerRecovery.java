package io.coilgun.cluster;

import io.coilgun.cluster.directory.ClusterDirectory;
import io.coilgun.cluster.directory.NodeStatus;
import io.coilgun.cluster.recovery.PeerCopy;
import io.coilgun.cluster.recovery.RecoverySources;
import io.coilgun.cluster.recovery.SnapshotServer;
import io.coilgun.cluster.recovery.TaskRecoveries;
import io.coilgun.cluster.recovery.TransferLimiter;
import io.coilgun.cluster.task.TaskId;
import io.coilgun.cluster.task.TaskProcessor;
import io.coilgun.cluster.task.TaskRole;
import io.coilgun.cluster.task.TaskState;
import io.coilgun.cluster.unit.ProcessorUnit;
import io.coilgun.planner.plan.TaskPlan;
import io.coilgun.planner.plan.TaskSnapshot;
import io.coilgun.storage.reservoir.ChunkCache;
import io.coilgun.storage.reservoir.ReservoirIO;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Peer recovery, both ways. This node serves snapshots of the tasks it has to the peers that copy them (taken on the
 * task's unit thread when a unit holds it, else from its closed copy on disk, which no unit opens meanwhile), and
 * copies a task from a peer before one of its units opens it, when its own copy is missing or far behind or older
 * than what Kafka still holds ({@link RecoverySources}).
 */
final class PeerRecovery implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(PeerRecovery.class);
    /** How long a snapshot waits for its background flush before it flushes on the unit's thread anyway. */
    private static final long SNAPSHOT_FLUSH_WAIT_NS = 2_000_000_000L;
    /** How long a node that just started waits for the other nodes' statuses (they tell who has copies). */
    private static final long STATUSES_WAIT_MS = 10_000;

    /** A task a unit of this node waits for, while it is copied from a peer. */
    private record Recovering(ProcessorUnit unit, TaskRole role) {
    }

    private final String nodeId;
    private final Deployments deployments;
    private final TaskDirectories directories;
    private final NodeTasks tasks;
    private final ClusterDirectory directory;
    private final ReservoirIO reservoirIO;
    private final long copyMinEvents;
    private final SnapshotServer snapshots;
    private final TaskRecoveries recoveries;
    private final Map<TaskId, Recovering> recovering = new ConcurrentHashMap<>();
    /** Tasks no unit holds whose data a peer is being given a snapshot of: not opened meanwhile. */
    private final Set<TaskId> snapshotting = ConcurrentHashMap.newKeySet();

    PeerRecovery(ClusterConfig config, Deployments deployments, TaskDirectories directories, NodeTasks tasks,
            ClusterDirectory directory, ReservoirIO reservoirIO, long copyMinEvents) {
        this.nodeId = config.nodeId();
        this.deployments = deployments;
        this.directories = directories;
        this.tasks = tasks;
        this.directory = directory;
        this.reservoirIO = reservoirIO;
        this.copyMinEvents = copyMinEvents;
        try {
            this.snapshots = SnapshotServer.start(config.peerHost(), config.peerPort(),
                    config.dataDir().resolve("snapshots"), this::snapshot,
                    new TransferLimiter(config.recoveryBytesPerSecond()), config.peerSecurity());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start the snapshot server on " + config.peerHost() + ":"
                    + config.peerPort(), e);
        }
        this.recoveries = new TaskRecoveries(config.dataDir(), 2, config.peerSecurity());
        LOG.info("peer snapshot server on {} ({})", snapshots.address(), config.peerSecurity().secret() != null
                ? "peers prove the cluster secret" : "peers show its token from this node's status");
    }

    /** Where peers fetch snapshots from (for this node's status). */
    String address() {
        return snapshots.address();
    }

    /** What a peer presents to fetch a snapshot (for this node's status). */
    String token() {
        return snapshots.token();
    }

    /** Whether a peer is being given a snapshot of task {@code id}'s closed copy (no unit may open it meanwhile). */
    boolean snapshotting(TaskId id) {
        return snapshotting.contains(id);
    }

    /** Whether task {@code id} is being copied from a peer to this node now. */
    boolean copying(TaskId id) {
        return recoveries.inProgress().containsKey(id);
    }

    /** The copies under way, as this node's status tells them. */
    void reportCopies(List<NodeStatus.TaskCopy> into) {
        recoveries.inProgress().forEach((id, p) -> {
            Recovering r = recovering.get(id);
            into.add(new NodeStatus.TaskCopy(id.toString(), r == null ? "replica"
                    : r.role().name().toLowerCase(Locale.ROOT), r == null ? "" : r.unit().name(), -1, -1,
                    0, Long.MIN_VALUE, "recovering", p.doneBytes(), p.totalBytes(), p.etaSeconds()));
        });
    }

    /**
     * On a unit's opener thread, before it opens task {@code id}: starts a copy from a peer when one is worth it, and
     * then calls {@code whenDone} (true: in place) on another thread. False when the task is opened from what this
     * node has (and Kafka) instead.
     */
    boolean recoverFirst(TaskId id, TaskRole role, long logStart, ProcessorUnit unit, Consumer<Boolean> whenDone) {
        if (!deployments.contains(id.topic()) || tasks.holds(id)) {
            return false;
        }
        long localNext;
        try {
            localNext = directories.checkpointedNext(id);
        } catch (RuntimeException e) {
            LOG.warn("task={} local copy unreadable ({}); it is copied again", id, e.toString());
            localNext = 0;
        }
        List<PeerCopy.Peer> from = peersToCopy(id, localNext, logStart);
        if (from.isEmpty()) {
            return false;
        }
        LOG.info("task={} copied from a peer before it runs here as {} (local copy at offset {}, Kafka from {}; "
                + "peers {})", id, role, localNext, logStart, from.stream().map(PeerCopy.Peer::node).toList());
        recovering.put(id, new Recovering(unit, role));
        recoveries.copy(id, from, copied -> {
            recovering.remove(id);
            directories.forget(id);
            whenDone.accept(copied);
        });
        return true;
    }

    /**
     * The peers to copy task {@code id} from, best first, or none when replaying Kafka is as good
     * ({@link RecoverySources}).
     */
    private List<PeerCopy.Peer> peersToCopy(TaskId id, long localNext, long logStart) {
        // a node that just started may not have read the others' statuses yet: they tell who has copies
        Set<String> others = new HashSet<>(tasks.otherNodes());
        directory.awaitStatuses(others, STATUSES_WAIT_MS);
        Map<String, NodeStatus> statuses = directory.statuses();
        List<PeerCopy.Peer> peers = RecoverySources.choose(statuses.values(), nodeId, id, localNext, logStart,
                copyMinEvents);
        if (peers.isEmpty() && logStart > localNext) {
            LOG.warn("task={} no peer has a copy to recover from; statuses seen: {}", id,
                    statuses.values().stream().map(st -> st.node() + " (peer " + st.peer() + ", "
                            + st.tasks().stream().map(t -> t.task() + " " + t.role() + " " + t.state() + " "
                            + t.nextOffset()).toList() + ")").toList());
        }
        return peers;
    }

    /**
     * A snapshot of a task this node has (for a peer that recovers it): taken on its unit's thread when a unit holds
     * it, else from its closed copy on disk, which no unit opens meanwhile.
     */
    private CompletableFuture<TaskSnapshot> snapshot(TaskId id, Path into) {
        ProcessorUnit unit = tasks.unitOf(id);
        if (unit == null) {
            return snapshotOfClosedCopy(id, into);
        }
        // The state store's memtables are flushed in RocksDB's background first: the snapshot, on the unit's thread
        // (the one point where the state and the reservoir agree), then has little to write while the unit's
        // tasks wait.
        CompletableFuture<TaskSnapshot> taken = new CompletableFuture<>();
        unit.submit(u -> runningTask(u, id).plan().prepareSnapshot()).whenComplete((v, e) -> {
            if (e != null) {
                taken.completeExceptionally(e);
            } else {
                snapshotWhenFlushed(unit, id, into, System.nanoTime() + SNAPSHOT_FLUSH_WAIT_NS, taken);
            }
        });
        return taken;
    }

    private CompletableFuture<TaskSnapshot> snapshotOfClosedCopy(TaskId id, Path into) {
        Deployments.Deployed d = deployments.get(id.topic());
        if (d == null || !directories.exists(id) || !snapshotting.add(id)) {
            return CompletableFuture.failedFuture(new SnapshotServer.NotHeldException(id));
        }
        try {
            if (tasks.holds(id)) {
                return CompletableFuture.failedFuture(new SnapshotServer.NotHeldException(id)); // opened just now
            }
            TaskPlan plan = TaskPlan.open(directories.of(id), d.stream(), d.metrics(), reservoirIO,
                    new ChunkCache(4, 1 << 20), true);
            try {
                return CompletableFuture.completedFuture(plan.snapshot(into));
            } finally {
                plan.close();
            }
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        } finally {
            snapshotting.remove(id);
            tasks.signal(); // a unit may be waiting to open it
        }
    }

    private void snapshotWhenFlushed(ProcessorUnit unit, TaskId id, Path into, long deadline,
            CompletableFuture<TaskSnapshot> taken) {
        unit.submit(u -> {
            TaskProcessor task = runningTask(u, id);
            if (!task.plan().readyForSnapshot() && System.nanoTime() < deadline) {
                CompletableFuture.delayedExecutor(10, TimeUnit.MILLISECONDS)
                        .execute(() -> snapshotWhenFlushed(unit, id, into, deadline, taken));
                return;
            }
            long started = System.nanoTime();
            TaskSnapshot snapshot = task.plan().snapshot(into);
            LOG.info("task={} snapshot for a peer took {} ms on {}", id, (System.nanoTime() - started) / 1_000_000,
                    u.name());
            taken.complete(snapshot);
        }).whenComplete((v, e) -> {
            if (e != null) {
                taken.completeExceptionally(e);
            }
        });
    }

    /** On the unit's thread: the task it runs, or a NotHeldException (gone, or stopped). */
    private static TaskProcessor runningTask(ProcessorUnit unit, TaskId id) {
        TaskProcessor task = unit.task(id);
        if (task == null || task.state() == TaskState.FAILED) {
            throw new SnapshotServer.NotHeldException(id);
        }
        return task;
    }

    @Override
    public void close() {
        snapshots.close();
        recoveries.close();
    }
}
