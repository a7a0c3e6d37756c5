package io.coilgun.cluster.feed;

import io.coilgun.cluster.kafka.ValueCodec;
import io.coilgun.cluster.peer.PeerLink;
import io.coilgun.planner.model.MetricDef;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Subscriptions over the whole cluster (SUBSCRIBE): a subscriber on this node takes the events of the tasks led
 * here from the node's {@link ResultFeed}, and those of the tasks led elsewhere through the peer link. Each other
 * node of the view holds a lease for the subscription, renewed every {@link #RENEW_MS} (which also reaches a node
 * that joined since); it forwards the events its tasks' copies apply, in batches, and forgets the subscription when
 * the lease is not renewed for {@link #LEASE_MS} (the subscribing node died) or when it is cancelled.
 *
 * <p>Every copy of a task feeds, its replicas too, each event with its partition and offset, and the subscriber
 * keeps each event once ({@link FeedSubscriber#poll}): when a task fails over, the events its old leader applied
 * but had not forwarded come from the copy that takes over (which applied them as a replica), and those the old one
 * did forward are not repeated. A subscriber that falls behind anywhere ends with an error, as on one node.
 */
public final class ClusterFeed implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ClusterFeed.class);
    static final String SUBSCRIBE = "feed.subscribe";
    static final String CANCEL = "feed.cancel";
    static final String EVENTS = "feed.events";
    static final long RENEW_MS = 2_000;
    static final long LEASE_MS = 10_000;
    /** Events per message at most. */
    static final int BATCH = 500;

    private final PeerLink peers;
    private final FeedRoutes routes;
    private final ResultFeed local;
    private final AtomicLong ids = new AtomicLong(System.nanoTime());
    /** This node's subscribers, by subscription id. */
    private final Map<Long, FeedSubscriber> mine = new ConcurrentHashMap<>();
    /** The subscriptions of other nodes this node forwards events to, by "node/id". */
    private final Map<String, Forward> forwards = new ConcurrentHashMap<>();
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "coilgun-feeds");
        t.setDaemon(true);
        return t;
    });

    public ClusterFeed(PeerLink peers, FeedRoutes routes, ResultFeed local) {
        this.peers = peers;
        this.routes = routes;
        this.local = local;
        peers.onMessage(SUBSCRIBE, this::leased);
        peers.onMessage(CANCEL, this::cancelled);
        peers.onMessage(EVENTS, this::received);
        timer.scheduleWithFixedDelay(this::renew, RENEW_MS, RENEW_MS, TimeUnit.MILLISECONDS);
    }

    /** Starts feeding {@code subscriber} with the events the tasks of every node apply from now on. */
    public void add(FeedSubscriber subscriber) {
        local.add(subscriber);
        long id = ids.incrementAndGet();
        subscriber.clusterId(id);
        mine.put(id, subscriber);
        timer.execute(() -> lease(id, subscriber));
    }

    /** Stops feeding {@code subscriber} (idempotent). */
    public void remove(FeedSubscriber subscriber) {
        local.remove(subscriber);
        long id = subscriber.clusterId();
        if (mine.remove(id) != null) {
            byte[] message = subscription(id, subscriber.topic());
            for (String node : others()) {
                peers.tell(node, CANCEL, message);
            }
        }
    }

    /** The subscriptions open on this node. */
    public int size() {
        return local.size();
    }

    private List<String> others() {
        return routes.otherNodes();
    }

    private void renew() {
        try {
            mine.forEach(this::lease);
            long now = System.currentTimeMillis();
            forwards.values().removeIf(f -> {
                if (now - f.renewed > LEASE_MS) {
                    local.remove(f.subscriber);
                    LOG.info("subscription {} of node {} not renewed: forgotten", f.id, f.node);
                    return true;
                }
                return false;
            });
        } catch (RuntimeException e) {
            LOG.error("subscription leases not renewed", e);
        }
    }

    private void lease(long id, FeedSubscriber subscriber) {
        if (!mine.containsKey(id)) {
            return; // ended meanwhile: no lease after its cancel
        }
        byte[] message = subscription(id, subscriber.topic());
        for (String node : others()) {
            peers.tell(node, SUBSCRIBE, message);
        }
    }

    private static byte[] subscription(long id, String topic) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(64);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeLong(id);
            out.writeUTF(topic);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    /** Another node subscribes, or renews its lease. */
    private void leased(String node, byte[] message) {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(message))) {
            long id = in.readLong();
            String topic = in.readUTF();
            Forward f = forwards.computeIfAbsent(node + "/" + id, k -> {
                Forward created = new Forward(node, id, FeedSubscriber.forwarding(topic, FORWARD_CAPACITY));
                created.subscriber.onAvailable(created::schedule);
                local.add(created.subscriber);
                return created;
            });
            f.renewed = System.currentTimeMillis();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void cancelled(String node, byte[] message) {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(message))) {
            Forward f = forwards.remove(node + "/" + in.readLong());
            if (f != null) {
                local.remove(f.subscriber);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The most events held for one remote subscriber between two sends. */
    static final int FORWARD_CAPACITY = 20_000;

    /** One other node's subscription, fed from the copies of tasks on this node. */
    private final class Forward {
        final String node;
        final long id;
        final FeedSubscriber subscriber;
        final AtomicBoolean scheduled = new AtomicBoolean();
        volatile long renewed = System.currentTimeMillis();
        boolean overflowSent;

        Forward(String node, long id, FeedSubscriber subscriber) {
            this.node = node;
            this.id = id;
            this.subscriber = subscriber;
        }

        /** Called on a processor unit's thread: never blocks, never sends there. */
        void schedule() {
            if (scheduled.compareAndSet(false, true)) {
                timer.execute(this::drain);
            }
        }

        private void drain() {
            scheduled.set(false);
            try {
                List<FeedEvent> batch = new ArrayList<>();
                FeedEvent e;
                while ((e = subscriber.poll()) != null) {
                    batch.add(e);
                    if (batch.size() == BATCH) {
                        send(batch, false);
                        batch.clear();
                    }
                }
                if (!batch.isEmpty()) {
                    send(batch, false);
                }
                if (subscriber.overflowed() && !overflowSent) {
                    overflowSent = true;
                    send(List.of(), true);
                }
            } catch (RuntimeException ex) {
                LOG.error("subscription {} of node {}: events not forwarded", id, node, ex);
            }
        }

        private void send(List<FeedEvent> events, boolean overflowed) {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream(64 + events.size() * 64);
            try (DataOutputStream out = new DataOutputStream(bytes)) {
                out.writeLong(id);
                out.writeBoolean(overflowed);
                out.writeInt(events.size());
                for (FeedEvent e : events) {
                    out.writeInt(e.partition());
                    out.writeLong(e.offset());
                    out.writeBoolean(e.active());
                    out.writeLong(e.assignedId());
                    ValueCodec.writeAll(out, e.values());
                    out.writeShort(e.metrics().size());
                    for (MetricDef m : e.metrics()) {
                        out.writeUTF(m.name());
                        out.writeShort(m.aggregations().size());
                    }
                    ValueCodec.writeAll(out, e.results());
                }
            } catch (IOException ex) {
                throw new UncheckedIOException(ex);
            }
            peers.tell(node, EVENTS, bytes.toByteArray());
        }
    }

    /** Events another node forwarded to one of this node's subscriptions. */
    private void received(String node, byte[] message) {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(message))) {
            FeedSubscriber subscriber = mine.get(in.readLong());
            if (subscriber == null) {
                return; // ended meanwhile
            }
            if (in.readBoolean()) {
                subscriber.overflow();
                return;
            }
            int n = in.readInt();
            for (int i = 0; i < n; i++) {
                int partition = in.readInt();
                long offset = in.readLong();
                boolean active = in.readBoolean();
                long assignedId = in.readLong();
                Object[] values = ValueCodec.readAll(in);
                int metricCount = in.readShort();
                String[] names = new String[metricCount];
                int[] widths = new int[metricCount];
                for (int m = 0; m < metricCount; m++) {
                    names[m] = in.readUTF();
                    widths[m] = in.readShort();
                }
                Object[] results = ValueCodec.readAll(in);
                subscriber.offer(localEvent(subscriber.topic(), partition, offset, active, assignedId, values, names,
                        widths, results));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The event with the metrics this node knows (by name; values of others dropped). */
    private FeedEvent localEvent(String topic, int partition, long offset, boolean active, long assignedId,
            Object[] values, String[] names, int[] widths, Object[] results) {
        List<MetricDef> metrics = new ArrayList<>();
        List<Object> kept = new ArrayList<>();
        int at = 0;
        for (int m = 0; m < names.length; m++) {
            MetricDef def = routes.deployedMetric(topic, names[m]);
            if (def != null && def.aggregations().size() == widths[m]) {
                metrics.add(def);
                for (int a = 0; a < widths[m]; a++) {
                    kept.add(results[at + a]);
                }
            }
            at += widths[m];
        }
        return new FeedEvent(topic, partition, offset, active, assignedId, values, metrics, kept.toArray());
    }

    @Override
    public void close() {
        for (FeedSubscriber s : List.copyOf(mine.values())) {
            remove(s);
        }
        timer.shutdownNow();
    }
}
