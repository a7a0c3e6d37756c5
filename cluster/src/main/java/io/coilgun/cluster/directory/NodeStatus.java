package io.coilgun.cluster.directory;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * What a node tells the cluster about itself, on the {@code coilgun.nodes} topic (compacted, keyed by node id),
 * every second and after each catalog record it applies: its addresses, how far it applied the catalog, and each
 * task copy it holds. Plain text, one {@code key=value} per line and one line per task, readable with any Kafka
 * tool. Read by every node for {@code coilgun.nodes}, {@code coilgun.tasks} and for DDL to know who applied it.
 *
 * @param catalogApplied the offset of the last catalog record the node applied, -1 before any
 * @param peer the {@code host:port} of the node's snapshot server (peer recovery), "" when it has none
 * @param peerToken what a peer sends the snapshot server
 * @param pidSlot the slot of the client process ids the node gives ({@link ProcessIdSlot}; 0 unknown)
 */
public record NodeStatus(String node, String pgwire, String kafka, String dataDir, int units, String version,
        long catalogApplied, long updatedAtMillis, List<TaskCopy> tasks, String peer, String peerToken, int pidSlot) {

    /**
     * One copy of a task on the node.
     *
     * @param lag records behind the end of the partition (-1 unknown)
     * @param lagMs how long ago the newest record it took was written, while it is behind; 0 when caught up
     * @param streamTime the copy's stream time (micros), or Long.MIN_VALUE before any event
     * @param copiedBytes while the copy is copied from a peer ({@code recovering}): the bytes it has
     * @param copyBytes the bytes it copies, -1 when it is not being copied (or before the peer answered)
     * @param copyEtaSeconds the estimated time left of the copy, -1 unknown
     * @param backfills the metrics the copy fills from history, each {@code metric:applied:total:etaSeconds}
     */
    public record TaskCopy(String task, String role, String unit, long nextOffset, long lag, long lagMs,
            long streamTime, String state, long copiedBytes, long copyBytes, long copyEtaSeconds,
            List<String> backfills, List<String> metrics) {
        public TaskCopy {
            backfills = List.copyOf(backfills);
            metrics = List.copyOf(metrics);
        }

        /**
         * @param backfills the fills of metrics from history under way, {@code metric:applied:total:elapsedMs}
         * @param metrics the metrics the copy runs or fills (a metric it has not started is in neither list)
         */
        public TaskCopy(String task, String role, String unit, long nextOffset, long lag, long lagMs,
                long streamTime, String state, List<String> backfills, List<String> metrics) {
            this(task, role, unit, nextOffset, lag, lagMs, streamTime, state, 0, -1, -1, backfills, metrics);
        }

        public TaskCopy(String task, String role, String unit, long nextOffset, long lag, long lagMs,
                long streamTime, String state) {
            this(task, role, unit, nextOffset, lag, lagMs, streamTime, state, 0, -1, -1, List.of(), List.of());
        }

        public TaskCopy(String task, String role, String unit, long nextOffset, long lag, long lagMs,
                long streamTime, String state, long copiedBytes, long copyBytes, long copyEtaSeconds) {
            this(task, role, unit, nextOffset, lag, lagMs, streamTime, state, copiedBytes, copyBytes, copyEtaSeconds,
                    List.of(), List.of());
        }
    }

    public NodeStatus {
        tasks = List.copyOf(tasks);
    }

    public byte[] encode() {
        StringBuilder b = new StringBuilder();
        b.append("node=").append(node).append('\n').append("pgwire=").append(pgwire).append('\n')
                .append("kafka=").append(kafka).append('\n').append("data_dir=").append(dataDir).append('\n')
                .append("units=").append(units).append('\n').append("version=").append(version).append('\n')
                .append("catalog_applied=").append(catalogApplied).append('\n')
                .append("updated_at=").append(updatedAtMillis).append('\n')
                .append("peer=").append(peer).append('\n').append("peer_token=").append(peerToken).append('\n')
                .append("pid_slot=").append(pidSlot).append('\n');
        for (TaskCopy t : tasks) {
            b.append("task=").append(t.task()).append('\t').append(t.role()).append('\t').append(t.unit())
                    .append('\t').append(t.nextOffset()).append('\t').append(t.lag()).append('\t').append(t.lagMs())
                    .append('\t').append(t.streamTime()).append('\t').append(t.state()).append('\t')
                    .append(t.copiedBytes()).append('\t').append(t.copyBytes()).append('\t').append(t.copyEtaSeconds())
                    .append('\t').append(String.join(",", t.backfills())).append('\t')
                    .append(String.join(",", t.metrics())).append('\n');
        }
        return b.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** The status in a record's value, or null when it is not one this version can read. */
    public static NodeStatus decode(byte[] value) {
        try {
            String node = null;
            String pgwire = "";
            String kafka = "";
            String dataDir = "";
            String version = "";
            int units = 0;
            long applied = -1;
            long updated = 0;
            String peer = "";
            String peerToken = "";
            int pidSlot = 0;
            List<TaskCopy> tasks = new ArrayList<>();
            for (String line : new String(value, StandardCharsets.UTF_8).split("\n")) {
                int eq = line.indexOf('=');
                if (eq < 0) {
                    continue;
                }
                String v = line.substring(eq + 1);
                switch (line.substring(0, eq)) {
                    case "node" -> node = v;
                    case "pgwire" -> pgwire = v;
                    case "kafka" -> kafka = v;
                    case "data_dir" -> dataDir = v;
                    case "units" -> units = Integer.parseInt(v);
                    case "version" -> version = v;
                    case "catalog_applied" -> applied = Long.parseLong(v);
                    case "updated_at" -> updated = Long.parseLong(v);
                    case "peer" -> peer = v;
                    case "peer_token" -> peerToken = v;
                    case "pid_slot" -> pidSlot = Integer.parseInt(v);
                    case "task" -> {
                        String[] f = v.split("\t", -1);
                        // fields after the eighth came later: a status without them is not being copied, and one
                        // without the twelfth fills nothing from history
                        tasks.add(new TaskCopy(f[0], f[1], f[2], Long.parseLong(f[3]), Long.parseLong(f[4]),
                                Long.parseLong(f[5]), Long.parseLong(f[6]), f[7],
                                f.length > 10 ? Long.parseLong(f[8]) : 0, f.length > 10 ? Long.parseLong(f[9]) : -1,
                                f.length > 10 ? Long.parseLong(f[10]) : -1,
                                f.length > 11 && !f[11].isEmpty() ? List.of(f[11].split(",")) : List.of(),
                                f.length > 12 && !f[12].isEmpty() ? List.of(f[12].split(",")) : List.of()));
                    }
                    default -> {
                        // a field of a later version
                    }
                }
            }
            return node == null ? null
                    : new NodeStatus(node, pgwire, kafka, dataDir, units, version, applied, updated, tasks, peer,
                            peerToken, pidSlot);
        } catch (RuntimeException e) {
            return null;
        }
    }
}
