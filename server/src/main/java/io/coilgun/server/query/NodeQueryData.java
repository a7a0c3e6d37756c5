package io.coilgun.server.query;

import io.coilgun.cluster.ClusterNode;
import io.coilgun.cluster.assign.ClusterView;
import io.coilgun.cluster.directory.NodeStatus;
import io.coilgun.cluster.query.MetricStateReader;
import io.coilgun.cluster.reply.ReplyStatus;
import io.coilgun.cluster.task.TaskId;
import io.coilgun.cluster.task.TaskProcessor;
import io.coilgun.cluster.task.TaskRole;
import io.coilgun.planner.model.Catalog;
import io.coilgun.planner.model.MetricDef;
import io.coilgun.planner.model.StreamDef;
import io.coilgun.planner.plan.FailedEvent;
import io.coilgun.planner.plan.TaskPlan;
import io.coilgun.server.source.SourceReaders;
import io.coilgun.sql.query.QueryData;
import io.coilgun.sql.query.SessionActivity;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.Supplier;

/** What SELECT reads from this node: the catalog, and metric state, events and counters from its tasks. */
public final class NodeQueryData implements QueryData {

    private final Catalog catalog;
    private final SourceReaders sources;
    /** Each metric filled from history: whether every task said it was live the last time all of them said. */
    private final Map<String, Boolean> live = new ConcurrentHashMap<>();
    private final ClusterNode cluster;
    private final MetricStateReader metrics;
    private final Object[] node;
    private final Supplier<List<SessionActivity>> sessions;
    /** Who may read and append what (the node's privileges); everyone everything until set. */
    private volatile io.coilgun.server.access.Privileges privileges;

    /**
     * @param node the row of coilgun.nodes for this node
     * @param sessions the node's client sessions (pg_stat_activity)
     */
    public NodeQueryData(Catalog catalog, ClusterNode cluster, Object[] node,
            Supplier<List<SessionActivity>> sessions, SourceReaders sources) {
        this.sources = sources;
        this.catalog = catalog;
        this.cluster = cluster;
        this.metrics = cluster.metricState();
        this.node = node;
        this.sessions = sessions;
    }

    /** The node's privileges, which pg_roles, has_table_privilege and each relation a query reads ask. */
    public void privileges(io.coilgun.server.access.Privileges privileges) {
        this.privileges = privileges;
    }

    @Override
    public boolean hasPrivilege(String user, String relation, String privilege) {
        return privileges == null || privileges.has(user, relation, privilege);
    }

    @Override
    public boolean superuser(String user) {
        return privileges == null || privileges.superuser(user);
    }

    @Override
    public List<Role> roles(String user) {
        return privileges == null ? QueryData.super.roles(user) : privileges.visibleRoles(user);
    }

    @Override
    public List<SessionActivity> sessions() {
        return sessions.get();
    }

    @Override
    public Catalog catalog() {
        return catalog;
    }

    @Override
    public void metricRows(StreamDef stream, MetricDef metric, Object[] key, Consumer<MetricRow> visitor) {
        metrics.read(stream, metric, key, r -> visitor.accept(new MetricRow(r.group(), r.values(),
                r.streamTime() <= TaskPlan.NO_TIME ? null : r.streamTime())));
    }

    @Override
    public List<Object[]> recentEvents(StreamDef stream, int limit) {
        return cluster.recentEvents().read(stream, limit);
    }

    private interface TaskRow {
        Object[] row(StreamDef stream, String field, int partition, TaskId id, TaskProcessor task);
    }

    private List<Object[]> perTask(TaskRow f) {
        List<Object[]> rows = new ArrayList<>();
        for (StreamDef s : catalog.streams()) {
            for (String field : s.partitionBy()) {
                for (int p = 0; p < s.partitions(field); p++) {
                    TaskId id = TaskId.of(s, field, p);
                    int partition = p;
                    Object[] row = cluster.onTask(id, task -> f.row(s, field, partition, id, task)).join();
                    if (row != null) {
                        rows.add(row);
                    }
                }
            }
        }
        return rows;
    }

    /**
     * Every task of the cluster, one row each: where its active copy runs (this node's own tasks read on their units,
     * the others from their nodes' statuses) and its replicas with their lag.
     */
    @Override
    public List<Object[]> tasks() {
        ClusterView view = cluster.view();
        Map<String, NodeStatus> statuses = cluster.directory().statuses();
        List<Object[]> rows = new ArrayList<>();
        for (StreamDef s : catalog.streams()) {
            // a stream partitioned by several fields has its decider first: no partitioner (NULL), no metric
            List<String> fields = new ArrayList<>(s.partitionBy());
            if (TaskId.decider(s) != null) {
                fields.add(0, null);
            }
            for (String field : fields) {
                for (int p = 0; p < (field == null ? 1 : s.partitions(field)); p++) {
                    TaskId id = field == null ? TaskId.decider(s) : TaskId.of(s, field, p);
                    ClusterView.Member active = view.activeOf(id);
                    String node = active == null ? null : active.node();
                    NodeStatus.TaskCopy remote = copy(statuses, node, id);
                    int partition = p;
                    Object[] row = cluster.onTask(id, task -> task.role() != TaskRole.ACTIVE ? null
                            : new Object[] {id.toString(), s.name(), field, partition, cluster.unitOf(id),
                                time(task.streamTime()), task.nextOffset(), task.metrics().size(), task.state().label(),
                                task.lastError(), task.lastErrorAt() == 0 ? null : task.lastErrorAt(),
                                (long) task.failedEvents().size(), null, null, null, null, null, null, null}).join();
                    if (row == null) {
                        row = new Object[] {id.toString(), s.name(), field, partition,
                            remote == null ? null : remote.unit(), remote == null ? null : time(remote.streamTime()),
                            remote == null ? null : remote.nextOffset(), (int) catalog.metricsOf(s.name()).stream()
                                .filter(m -> m.partitioner().equals(field)).count(),
                            remote == null ? (active == null ? "unassigned" : "starting") : remote.state(), null, null,
                            null, null, null, null, null, null, null, null};
                        if (remote != null && remote.copyBytes() >= 0) {
                            // being copied from a peer (peer recovery)
                            row[16] = remote.copiedBytes();
                            row[17] = remote.copyBytes();
                            row[18] = remote.copyEtaSeconds() < 0 ? null : remote.copyEtaSeconds();
                        }
                    }
                    row[12] = node;
                    StringBuilder replicas = new StringBuilder();
                    for (ClusterView.Member r : view.replicasOf(id)) {
                        NodeStatus.TaskCopy c = copy(statuses, r.node(), id);
                        if (replicas.length() > 0) {
                            replicas.append(", ");
                        }
                        replicas.append(r.node()).append('/').append(c == null ? "unit-" + r.unit() : c.unit());
                        if (c != null) {
                            replicas.append(" (").append(c.state());
                            String filling = fillingMetrics(c, catalog.metricsOf(s.name()), field);
                            if (!filling.isEmpty()) {
                                // a copy that takes over while it fills answers NULL for those metrics until done
                                replicas.append(", filling ").append(filling);
                            }
                            if (c.copyBytes() >= 0) {
                                replicas.append(", copied ").append(c.copiedBytes()).append(" of ").append(c.copyBytes())
                                        .append(" bytes)");
                            } else {
                                replicas.append(", lag ").append(c.lag()).append(" events, ").append(c.lagMs())
                                        .append(" ms)");
                            }
                        }
                    }
                    row[13] = replicas.toString();
                    row[14] = remote == null ? null : remote.lag();
                    row[15] = remote == null ? null : remote.lagMs();
                    rows.add(row);
                }
            }
        }
        return rows;
    }

    private static Long time(long micros) {
        return micros <= TaskPlan.NO_TIME ? null : Math.floorDiv(micros, 1000L);
    }

    /**
     * The backfills under way, from each task's active copy: this node's read on their units, the others' from their
     * nodes' statuses (a second old at most).
     */
    @Override
    public Map<String, Backfill> backfills() {
        ClusterView view = cluster.view();
        Map<String, NodeStatus> statuses = cluster.directory().statuses();
        Map<String, long[]> sums = new TreeMap<>();
        for (StreamDef s : catalog.streams()) {
            List<MetricDef> filled = catalog.metricsOf(s.name()).stream().filter(MetricDef::backfills).toList();
            if (filled.isEmpty()) {
                continue;
            }
            boolean unknown = false; // a task whose active copy says nothing now (being opened or handed over)
            Set<String> unstarted = new HashSet<>(); // metrics a task's active copy has not started yet
            for (String field : s.partitionBy()) {
                for (int p = 0; p < s.partitions(field); p++) {
                    TaskId id = TaskId.of(s, field, p);
                    ClusterView.Member active = view.activeOf(id);
                    List<List<String>> local = cluster.onTask(id, task -> task.role() != TaskRole.ACTIVE ? null
                            : List.of(task.backfillProgress(), task.metricNames())).join();
                    List<String> progress = local == null ? null : local.get(0);
                    List<String> started = local == null ? null : local.get(1);
                    if (progress == null) {
                        NodeStatus.TaskCopy remote = copy(statuses, active == null ? null : active.node(), id);
                        // only a status that says its node leads the copy: one from before a handover shows the
                        // replica, whose fill the new active may begin again
                        boolean leads = remote != null && remote.role().equals("active");
                        unknown |= !leads;
                        progress = leads ? remote.backfills() : List.of();
                        started = leads ? remote.metrics() : List.of();
                    }
                    // a metric the copy has not started (its status from before it took the start marker) is not
                    // filled there yet, whatever its empty progress says
                    for (MetricDef m : filled) {
                        if (m.partitioner().equals(field) && !started.contains(m.name())) {
                            unstarted.add(m.name());
                        }
                    }
                    for (String entry : progress) {
                        String[] f = entry.split(":");
                        if (f.length != 4) {
                            continue;
                        }
                        long[] sum = sums.computeIfAbsent(f[0], k -> new long[] {0, 0, 0});
                        sum[0] += Long.parseLong(f[1]);
                        sum[1] += Long.parseLong(f[2]);
                        sum[2] = Math.max(sum[2], Long.parseLong(f[3]));
                    }
                }
            }
            for (MetricDef m : filled) {
                if (unstarted.contains(m.name()) && !live.getOrDefault(m.name(), false)) {
                    sums.putIfAbsent(m.name(), new long[] {0, 0, 0}); // not live before every task started it
                } else if (!unknown) {
                    live.put(m.name(), !sums.containsKey(m.name()));
                } else if (!sums.containsKey(m.name()) && !live.getOrDefault(m.name(), false)) {
                    // a metric is live once every task said so: a task that says nothing for a moment (its copy
                    // being opened, a replica taking over and beginning its fill again) leaves it as it was, and a
                    // metric this node never saw live everywhere stays filling
                    sums.put(m.name(), new long[] {0, 0, 0});
                }
            }
        }
        live.keySet().retainAll(catalog.streams().stream().flatMap(s -> catalog.metricsOf(s.name()).stream())
                .map(MetricDef::name).toList());
        Map<String, Backfill> out = new HashMap<>();
        // the time left at the rate of all the metric's tasks together: one task's own rate says little, as the
        // tasks of a node take turns (one unit's background slice at a time) and one that began late reads as
        // taking days
        sums.forEach((name, v) -> out.put(name, new Backfill(v[0], v[1],
                v[0] <= 0 || v[2] <= 0 ? -1 : Math.max(0, (v[1] - v[0]) * v[2] / v[0] / 1000))));
        return out;
    }

    /**
     * Each partitioner of each stream; one added by ALTER STREAM … ADD PARTITION BY reads {@code filling} (with the
     * events its stream's decider forwarded to it so far, of about how many) until the decider forwards to it live,
     * {@code unknown} while the decider's active copy says nothing (being opened or handed over).
     */
    @Override
    public List<Object[]> partitioners() {
        List<Object[]> rows = new ArrayList<>();
        for (StreamDef s : catalog.streams()) {
            List<String> fills = s.addedPartitionBy().isEmpty() ? List.of() : DeciderFills.progress(cluster, s);
            for (String field : s.partitionBy()) {
                boolean added = s.addedPartitionBy().contains(field);
                String[] fill = null;
                for (String entry : fills == null ? List.<String>of() : fills) {
                    if (entry.startsWith("+" + field + ":")) {
                        fill = entry.split(":");
                    }
                }
                // an added partitioner the decider's report does not name is unknown: a report from before the ALTER
                boolean live = fills != null && fills.contains("=" + field);
                String state = !added || live ? "live" : fill != null ? "filling" : "unknown";
                rows.add(new Object[] {s.name(), field, s.partitions(field), added, state,
                    fill == null ? null : Long.parseLong(fill[1]), fill == null ? null : Long.parseLong(fill[2])});
            }
        }
        return rows;
    }

    /**
     * The metrics a copy fills from history now (its status's backfills), or has still to fill (one made WITH
     * (backfill) whose start marker it has not taken), space-separated; empty when none.
     */
    private static String fillingMetrics(NodeStatus.TaskCopy c, List<MetricDef> metrics, String field) {
        Set<String> filling = new java.util.TreeSet<>();
        for (String entry : c.backfills()) {
            if (!entry.startsWith("+") && !entry.startsWith("=")) { // not a decider's partitioner fills
                filling.add(entry.split(":")[0]);
            }
        }
        for (MetricDef m : metrics) {
            if (m.partitioner().equals(field) && m.backfills() && !c.metrics().contains(m.name())) {
                filling.add(m.name());
            }
        }
        return String.join(" ", filling);
    }

    private static NodeStatus.TaskCopy copy(Map<String, NodeStatus> statuses, String node, TaskId id) {
        NodeStatus status = node == null ? null : statuses.get(node);
        if (status == null) {
            return null;
        }
        String name = id.toString();
        for (NodeStatus.TaskCopy c : status.tasks()) {
            if (c.task().equals(name) && !c.role().equals("stale")) {
                return c;
            }
        }
        return null;
    }

    @Override
    public List<Object[]> sources() {
        return sources.rows();
    }

    @Override
    public long sinkRecords(String sink) {
        return cluster.sinks().written(sink);
    }

    @Override
    public List<Object[]> sourceErrors() {
        return sources.errors();
    }

    @Override
    public List<Object[]> failedEvents() {
        List<Object[]> rows = new ArrayList<>();
        for (StreamDef s : catalog.streams()) {
            for (String field : s.partitionBy()) {
                for (int p = 0; p < s.partitions(field); p++) {
                    TaskId id = TaskId.of(s, field, p);
                    List<FailedEvent> failed = cluster.onTask(id, TaskProcessor::failedEvents).join();
                    for (FailedEvent f : failed == null ? List.<FailedEvent>of() : failed) {
                        rows.add(new Object[] {id.toString(), s.name(), f.offset(), f.eventId(),
                            f.eventTime() == null ? null : Math.floorDiv(f.eventTime(), 1000L), f.error(),
                            f.failedAtMillis()});
                    }
                }
            }
        }
        return rows;
    }

    /** The nodes of the cluster: this one, and every other member of the task group with its last status. */
    @Override
    public List<Object[]> nodes() {
        List<Object[]> rows = new ArrayList<>();
        rows.add(node);
        Map<String, NodeStatus> statuses = cluster.directory().statuses();
        for (String other : cluster.view().nodes()) {
            NodeStatus st = statuses.get(other);
            if (!other.equals(node[0]) && st != null) {
                rows.add(new Object[] {st.node(), st.pgwire(), st.kafka(), st.dataDir(), st.units(), st.version()});
            }
        }
        return rows;
    }

    @Override
    public List<Object[]> statistics() {
        return perTask((s, field, p, id, task) -> {
            long total = 0;
            for (ReplyStatus status : ReplyStatus.values()) {
                total += task.outcomes(status);
            }
            return new Object[] {id.toString(), s.name(), total, task.outcomes(ReplyStatus.APPLIED),
                task.outcomes(ReplyStatus.DUPLICATE), task.outcomes(ReplyStatus.LATE),
                task.outcomes(ReplyStatus.DROPPED), task.outcomes(ReplyStatus.INVALID)
                    + task.outcomes(ReplyStatus.FAILED)};
        });
    }
}
