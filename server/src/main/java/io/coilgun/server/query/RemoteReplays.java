package io.coilgun.server.query;

import io.coilgun.cluster.ClusterNode;
import io.coilgun.cluster.kafka.ValueCodec;
import io.coilgun.cluster.task.TaskId;
import io.coilgun.cluster.task.TaskRole;
import io.coilgun.planner.error.CoilgunException;
import io.coilgun.planner.error.SqlState;
import io.coilgun.planner.model.AggregationDef;
import io.coilgun.planner.model.AggregationKind;
import io.coilgun.planner.model.Catalog;
import io.coilgun.planner.model.ColumnType;
import io.coilgun.planner.model.MetricDef;
import io.coilgun.planner.model.StreamDef;
import io.coilgun.planner.model.WindowSpec;
import io.coilgun.planner.plan.MetricReplay;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.apache.kafka.common.TopicPartition;

/**
 * REPLAY across nodes, through the peer link: a node replays the tasks it leads, and for each task another node
 * leads it asks that node to start the task's replay ({@value #START}), then pulls its rows in pages
 * ({@value #PULL}) while its client reads them, and cancels it when the statement ends ({@value #CANCEL}).
 * Pull-based like the local replay: a page is asked for only while fewer than {@link #BUFFERED} rows wait here.
 * A replay not pulled for {@link #LEASE_MS} is canceled on the node that runs it (its caller went away).
 */
public final class RemoteReplays {
    static final String START = "replay.start";
    static final String PULL = "replay.pull";
    static final String CANCEL = "replay.cancel";
    static final int PAGE = 1000;
    static final int BUFFERED = 2 * PAGE;
    static final long LEASE_MS = 60_000;
    static final long CALL_TIMEOUT_MS = 10_000;
    /** How long to wait before asking again when a page came back empty (the task is still replaying). */
    static final long EMPTY_PAGE_WAIT_MS = 20;

    private final ClusterNode cluster;
    private final Supplier<Catalog> catalog;
    private final ScheduledExecutorService timer;
    private final Map<String, Served> served = new ConcurrentHashMap<>();
    private final AtomicLong ids = new AtomicLong();

    /** A replay this node runs for another node's statement. */
    private record Served(MetricReplay replay, AtomicLong pulledAt) {
    }

    public RemoteReplays(ClusterNode cluster, Supplier<Catalog> catalog) {
        this.cluster = cluster;
        this.catalog = catalog;
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "coilgun-replay-timer");
            t.setDaemon(true);
            return t;
        });
        cluster.peers().onCall(START, this::start);
        cluster.peers().onCall(PULL, this::pull);
        cluster.peers().onMessage(CANCEL, (from, key) -> cancelServed(new String(key, StandardCharsets.UTF_8)));
        timer.scheduleWithFixedDelay(this::expire, 10, 10, TimeUnit.SECONDS);
    }

    /**
     * Starts the replay of {@code metric} over every task of its partitioner topic: each where it is led. Completes
     * with one source per task, or fails when a task is led nowhere (or cannot start).
     */
    public CompletableFuture<List<ReplaySource>> start(StreamDef stream, MetricDef metric, long from, long to) {
        String id = cluster.nodeId() + "-" + ids.incrementAndGet();
        List<CompletableFuture<ReplaySource>> started = new ArrayList<>();
        for (int p = 0; p < stream.partitions(metric.partitioner()); p++) {
            TaskId task = TaskId.of(stream, metric.partitioner(), p);
            String leader = cluster.activeNodeOf(task);
            if (leader == null) {
                started.add(CompletableFuture.failedFuture(new CoilgunException(
                        SqlState.OBJECT_NOT_IN_PREREQUISITE_STATE, "task " + task + " is led by no node now (a "
                        + "failover may be under way): retry the REPLAY")));
            } else if (leader.equals(cluster.nodeId())) {
                started.add(startHere(task, metric, from, to, id).thenApply(ReplaySource::local));
            } else {
                String key = id + "/" + p;
                started.add(cluster.peers().call(leader, START, encodeStart(key, stream.name(), task, metric, from, to),
                        CALL_TIMEOUT_MS).handle((v, e) -> {
                            if (e != null) {
                                Throwable cause = e.getCause() != null ? e.getCause() : e;
                                throw new CoilgunException(SqlState.OBJECT_NOT_IN_PREREQUISITE_STATE, "task " + task
                                        + " on node " + leader + " could not start the REPLAY: " + cause.getMessage());
                            }
                            return new Remote(leader, key);
                        }));
            }
        }
        return CompletableFuture.allOf(started.toArray(CompletableFuture[]::new)).handle((v, e) -> {
            List<ReplaySource> sources = new ArrayList<>();
            for (CompletableFuture<ReplaySource> f : started) {
                if (!f.isCompletedExceptionally()) {
                    sources.add(f.join());
                }
            }
            if (e != null) {
                sources.forEach(ReplaySource::cancel);
                Throwable cause = e.getCause() != null ? e.getCause() : e;
                throw cause instanceof RuntimeException re ? re : new IllegalStateException(cause);
            }
            return sources;
        });
    }

    /** Stops the timer; replays still served are canceled. */
    public void close() {
        timer.shutdownNow();
        served.keySet().forEach(this::cancelServed);
    }

    private CompletableFuture<MetricReplay> startHere(TaskId task, MetricDef metric, long from, long to, String id) {
        return cluster.onTask(task, t -> t.role() != TaskRole.ACTIVE ? null
                : t.plan().replay(metric, from, to, id.replace('/', '-'))).thenApply(r -> {
                    if (r == null) {
                        throw new CoilgunException(SqlState.OBJECT_NOT_IN_PREREQUISITE_STATE, "task " + task
                                + " is not led by node " + cluster.nodeId() + " any more: retry the REPLAY");
                    }
                    return r;
                });
    }

    // ----- the node that runs a replay for another node's statement -----

    private CompletableFuture<byte[]> start(byte[] request) {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(request))) {
            String key = in.readUTF();
            String streamName = in.readUTF();
            TaskId task = TaskId.of(new TopicPartition(in.readUTF(), in.readInt()));
            long from = in.readLong();
            long to = in.readLong();
            StreamDef stream = catalog.get().stream(streamName).orElseThrow(() -> new IllegalStateException(
                    "stream " + streamName + " is not known on node " + cluster.nodeId()));
            MetricDef metric = readMetric(in, stream.name());
            return startHere(task, metric, from, to, key).thenApply(r -> {
                served.put(key, new Served(r, new AtomicLong(System.currentTimeMillis())));
                return new byte[0];
            });
        } catch (IOException | RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** A page: {@code ended, error or "", n, rows}. */
    private CompletableFuture<byte[]> pull(byte[] request) {
        String key = new String(request, StandardCharsets.UTF_8);
        Served s = served.get(key);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(4096);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            if (s == null) {
                out.writeBoolean(true);
                out.writeUTF("the replay is gone from node " + cluster.nodeId() + " (its task moved, or it expired)");
                out.writeInt(0);
                return CompletableFuture.completedFuture(bytes.toByteArray());
            }
            s.pulledAt().set(System.currentTimeMillis());
            List<Object[]> rows = new ArrayList<>();
            String error = "";
            boolean ended;
            synchronized (s) { // pulls may come on different threads: the replay wants one reader at a time, in order
                try {
                    Object[] row;
                    while (rows.size() < PAGE && (row = s.replay().poll()) != null) {
                        rows.add(row);
                    }
                } catch (IllegalStateException failed) {
                    error = failed.getMessage();
                }
                ended = !error.isEmpty() || s.replay().ended();
            }
            if (ended) {
                served.remove(key);
            }
            out.writeBoolean(ended);
            out.writeUTF(error);
            out.writeInt(rows.size());
            for (Object[] row : rows) {
                ValueCodec.writeAll(out, row);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return CompletableFuture.completedFuture(bytes.toByteArray());
    }

    private void cancelServed(String key) {
        Served s = served.remove(key);
        if (s != null) {
            s.replay().cancel();
        }
    }

    private void expire() {
        long now = System.currentTimeMillis();
        served.forEach((key, s) -> {
            if (now - s.pulledAt().get() > LEASE_MS) {
                cancelServed(key);
            }
        });
    }

    // ----- the statement's node: one task's rows, pulled from the node that leads it -----

    /** A task's replay on another node, pulled a page at a time while fewer than {@link #BUFFERED} rows wait. */
    private final class Remote implements ReplaySource {
        private final String node;
        private final String key;
        private final ConcurrentLinkedQueue<Object[]> rows = new ConcurrentLinkedQueue<>();
        private final AtomicInteger waiting = new AtomicInteger();
        private final AtomicBoolean pulling = new AtomicBoolean();
        private volatile boolean over;
        private volatile boolean canceled;
        private volatile String error;
        private volatile Runnable callback = () -> { };

        Remote(String node, String key) {
            this.node = node;
            this.key = key;
            pullMore();
        }

        private void pullMore() {
            if (over || canceled || waiting.get() >= BUFFERED || !pulling.compareAndSet(false, true)) {
                return;
            }
            cluster.peers().call(node, PULL, key.getBytes(StandardCharsets.UTF_8), CALL_TIMEOUT_MS)
                    .whenComplete((page, e) -> {
                        int got = 0;
                        if (e != null) {
                            error = "node " + node + " did not answer the REPLAY (" + (e.getCause() != null
                                    ? e.getCause() : e) + "): a failover may be under way, retry";
                            over = true;
                        } else {
                            try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(page))) {
                                boolean ended = in.readBoolean();
                                String failed = in.readUTF();
                                got = in.readInt();
                                for (int i = 0; i < got; i++) {
                                    rows.add(ValueCodec.readAll(in));
                                }
                                waiting.addAndGet(got);
                                if (!failed.isEmpty()) {
                                    error = failed;
                                }
                                over = ended;
                            } catch (IOException io) {
                                error = "a REPLAY page from node " + node + " could not be read: " + io;
                                over = true;
                            }
                        }
                        pulling.set(false);
                        callback.run();
                        if (!over && got == 0) {
                            timer.schedule(this::pullMore, EMPTY_PAGE_WAIT_MS, TimeUnit.MILLISECONDS);
                        } else {
                            pullMore();
                        }
                    });
        }

        @Override
        public Object[] poll() {
            Object[] row = rows.poll();
            if (row != null) {
                waiting.decrementAndGet();
                pullMore();
                return row;
            }
            if (over && error != null) {
                throw new IllegalStateException(error);
            }
            return null;
        }

        @Override
        public boolean ended() {
            return over && error == null && rows.isEmpty();
        }

        @Override
        public void onAvailable(Runnable callback) {
            this.callback = callback;
        }

        @Override
        public void cancel() {
            canceled = true;
            if (!over) {
                cluster.peers().tell(node, CANCEL, key.getBytes(StandardCharsets.UTF_8));
            }
        }
    }

    // ----- the metric's definition on the wire -----

    private static byte[] encodeStart(String key, String stream, TaskId task, MetricDef m, long from, long to) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(512);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeUTF(key);
            out.writeUTF(stream);
            out.writeUTF(task.topicPartition().topic());
            out.writeInt(task.topicPartition().partition());
            out.writeLong(from);
            out.writeLong(to);
            out.writeUTF(m.name());
            out.writeInt(m.aggregations().size());
            for (AggregationDef a : m.aggregations()) {
                out.writeUTF(a.kind().name());
                out.writeInt(a.argument());
                out.writeUTF(a.name());
                out.writeUTF(a.resultType().name());
                ValueCodec.write(out, a.expression());
            }
            out.writeInt(m.groupBy().size());
            for (int g : m.groupBy()) {
                out.writeInt(g);
            }
            out.writeUTF(m.partitioner());
            out.writeUTF(m.window().kind().name());
            out.writeLong(m.window().sizeMicros());
            out.writeLong(m.window().delayMicros());
            ValueCodec.write(out, m.filter());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    private static MetricDef readMetric(DataInputStream in, String stream) throws IOException {
        String name = in.readUTF();
        int n = in.readInt();
        List<AggregationDef> aggregations = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            aggregations.add(new AggregationDef(AggregationKind.valueOf(in.readUTF()), in.readInt(), in.readUTF(),
                    ColumnType.valueOf(in.readUTF()), (String) ValueCodec.read(in)));
        }
        int g = in.readInt();
        List<Integer> groupBy = new ArrayList<>();
        for (int i = 0; i < g; i++) {
            groupBy.add(in.readInt());
        }
        String partitioner = in.readUTF();
        WindowSpec window = new WindowSpec(WindowSpec.Kind.valueOf(in.readUTF()), in.readLong(), in.readLong());
        String filter = (String) ValueCodec.read(in);
        return new MetricDef(name, stream, aggregations, groupBy, partitioner, window, "", filter);
    }
}
