package io.coilgun.cluster;

import io.coilgun.cluster.directory.ClusterDirectory;
import io.coilgun.cluster.directory.NodeStatus;
import io.coilgun.cluster.directory.ProcessIdSlot;
import io.coilgun.cluster.task.TaskId;
import io.coilgun.cluster.task.TaskProcessor;
import io.coilgun.cluster.unit.ProcessorUnit;
import io.coilgun.cluster.unit.UnitHost;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes this node's status to the cluster ({@code coilgun.nodes}) every second and at once when it applied more
 * of the catalog: how it is reached, how far it applied the catalog, and every copy of a task it holds (gathered from
 * its units, its closed copies on disk and the copies it is making from peers).
 */
final class StatusPublisher implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(StatusPublisher.class);

    private final ClusterConfig config;
    private final ClusterDirectory directory;
    private final NodeTasks tasks;
    private final UnitHost host;
    private final TaskDirectories directories;
    private final PeerRecovery recovery;
    private final ProcessIdSlot pidSlot;
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "coilgun-status");
        t.setDaemon(true);
        return t;
    });
    /** The offset of the last catalog record this node applied (or skipped as its own). */
    private volatile long catalogApplied = -1;
    private volatile String pgwire = "";
    private volatile String version = "";

    StatusPublisher(ClusterConfig config, ClusterDirectory directory, NodeTasks tasks, UnitHost host,
            TaskDirectories directories, PeerRecovery recovery, ProcessIdSlot pidSlot) {
        this.config = config;
        this.directory = directory;
        this.pidSlot = pidSlot;
        this.tasks = tasks;
        this.host = host;
        this.directories = directories;
        this.recovery = recovery;
    }

    /** Publishes every second from now on. */
    void start() {
        timer.scheduleWithFixedDelay(this::publish, 1, 1, TimeUnit.SECONDS);
    }

    /** How this node is reached and what it runs; published at once. */
    void advertise(String pgwireAddress, String serverVersion) {
        this.pgwire = pgwireAddress;
        this.version = serverVersion;
        publish();
    }

    /** The node applied the catalog through {@code offset}: told to the cluster at once (on the timer's thread). */
    void catalogApplied(long offset) {
        if (offset > catalogApplied) {
            catalogApplied = offset;
            timer.execute(this::publish);
        }
    }

    private void publish() {
        try {
            long now = System.currentTimeMillis();
            pidSlot.update(directory.statuses(), now);
            directory.publish(new NodeStatus(config.nodeId(), pgwire, config.bootstrapServers(),
                    config.dataDir().toString(), tasks.units().size(), version, catalogApplied,
                    now, copies(), recovery.address(), recovery.token(), pidSlot.get()));
        } catch (Exception e) {
            LOG.debug("node status not published this time", e);
        }
    }

    /** Every copy of a task this node has: open on a unit, closed on disk, or being copied from a peer. */
    private List<NodeStatus.TaskCopy> copies() throws Exception {
        List<NodeStatus.TaskCopy> copies = new ArrayList<>();
        List<CompletableFuture<Void>> gathered = new ArrayList<>();
        for (ProcessorUnit unit : tasks.units()) {
            gathered.add(unit.submit(u -> {
                long now = System.currentTimeMillis();
                for (TaskProcessor t : u.tasks()) {
                    long lag = u.lag(t.id());
                    long lagMs = lag > 0 && t.lastRecordTimestamp() > 0 ? now - t.lastRecordTimestamp() : 0;
                    synchronized (copies) {
                        copies.add(new NodeStatus.TaskCopy(t.id().toString(), lowerCase(t.role().name()), u.name(),
                                t.nextOffset(), lag, lagMs, t.streamTime(), lowerCase(t.state().name()),
                                t.backfillProgress(), t.metricNames()));
                    }
                }
            }));
        }
        CompletableFuture.allOf(gathered.toArray(CompletableFuture[]::new)).get(2, TimeUnit.SECONDS);
        for (TaskId id : host.staleTasks().keySet()) {
            if (!recovery.copying(id)) {
                copies.add(new NodeStatus.TaskCopy(id.toString(), "stale", "", directories.closedCopyNext(id), -1, 0,
                        Long.MIN_VALUE, "stale"));
            }
        }
        recovery.reportCopies(copies);
        return copies;
    }

    private static String lowerCase(String name) {
        return name.toLowerCase(Locale.ROOT);
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
