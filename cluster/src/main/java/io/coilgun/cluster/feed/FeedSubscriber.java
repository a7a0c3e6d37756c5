package io.coilgun.cluster.feed;

import java.util.Arrays;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One subscription's end of the {@link ResultFeed}: takes the events of the tasks of one partitioner topic into a
 * bounded, lock-free queue (many processor units offer, one reader polls). When the reader falls more than
 * {@code capacity} events behind, the subscriber stops taking events and reports {@link #overflowed()}: memory
 * stays bounded and the subscription ends with an error instead of silently skipping events.
 */
public final class FeedSubscriber {
    private final String topic;
    private final int capacity;
    /** Whether {@link #poll} keeps each event once (the subscription's own end), or passes all on (a forward). */
    private final boolean keepsOnce;
    private final ConcurrentLinkedQueue<FeedEvent> queue = new ConcurrentLinkedQueue<>();
    private final AtomicInteger size = new AtomicInteger();
    private volatile boolean overflowed;
    private static final long NONE_YET = Long.MIN_VALUE;
    /** The offset of the last event kept, by partition (the reader's thread only). */
    private long[] kept = new long[0];
    private volatile Runnable listener = () -> { };
    /** The subscription's id in the cluster ({@link ClusterFeed}), 0 before it was added. */
    private volatile long clusterId;

    /**
     * @param topic the partitioner topic whose tasks' events this subscriber takes
     * @param capacity the most events held for a reader that is behind
     */
    public FeedSubscriber(String topic, int capacity) {
        this(topic, capacity, true);
    }

    private FeedSubscriber(String topic, int capacity, boolean keepsOnce) {
        this.topic = topic;
        this.capacity = capacity;
        this.keepsOnce = keepsOnce;
    }

    /**
     * A subscriber that forwards this node's events to a subscription on another node ({@link ClusterFeed}): it
     * passes every event on, replicas' too, and the subscription at the end keeps each once ({@link #poll}); here a
     * replica's events would otherwise wait for an active copy this node may never have.
     */
    static FeedSubscriber forwarding(String topic, int capacity) {
        return new FeedSubscriber(topic, capacity, false);
    }

    /** The partitioner topic whose tasks' events this subscriber takes. */
    public String topic() {
        return topic;
    }

    long clusterId() {
        return clusterId;
    }

    void clusterId(long id) {
        this.clusterId = id;
    }

    /** Another node dropped events for this subscriber: it overflowed there. */
    void overflow() {
        overflowed = true;
        listener.run();
    }

    /** Whether events of tasks of {@code topic} go to this subscriber (called by task processors). */
    public boolean wants(String taskTopic) {
        return !overflowed && topic.equals(taskTopic);
    }

    /** Called (from any thread) after events were added or the subscriber overflowed. */
    public void onAvailable(Runnable listener) {
        this.listener = listener;
    }

    /** Hands one event over (processor unit threads); never blocks. */
    public void offer(FeedEvent event) {
        if (overflowed) {
            return;
        }
        if (size.incrementAndGet() > capacity) {
            size.decrementAndGet();
            overflowed = true;
        } else {
            queue.offer(event);
        }
        listener.run();
    }

    /**
     * The next event, or null when none waits (the reader's thread). Every copy of a task feeds (the active and its
     * replicas, on any node), so each event may come more than once: it is kept the first time, when its offset is
     * past the last one kept of its task's partition, so the events of a task come once each and in order across a
     * failover. A task's first event since the subscription began is taken from its active copy only (a replica
     * may still be catching up on events from before).
     */
    public FeedEvent poll() {
        FeedEvent event;
        while ((event = queue.poll()) != null) {
            size.decrementAndGet();
            if (!keepsOnce) {
                return event;
            }
            int p = event.partition();
            if (p >= kept.length) {
                int from = kept.length;
                kept = Arrays.copyOf(kept, Math.max(p + 1, kept.length * 2));
                Arrays.fill(kept, from, kept.length, NONE_YET);
            }
            if (kept[p] == NONE_YET ? event.active() : event.offset() > kept[p]) {
                kept[p] = event.offset();
                return event;
            }
        }
        return null;
    }

    /** True once more than the capacity waited: events were lost to this subscriber. */
    public boolean overflowed() {
        return overflowed;
    }

    public int capacity() {
        return capacity;
    }
}
