package io.coilgun.cluster.feed;

import java.util.Arrays;

/**
 * This node's feed of processed events to subscribers (SUBSCRIBE). Task processors look at {@link #subscribers()}
 * after each event: one volatile read of an array that is empty while nobody subscribes, so the hot path pays
 * nothing else then. With subscribers, each one takes the event through its own lock-free bounded hand-off
 * ({@link FeedSubscriber#offer}); no lock is shared between processor units. Registration copies the array (rare).
 */
public final class ResultFeed {
    private static final FeedSubscriber[] NONE = new FeedSubscriber[0];

    private volatile FeedSubscriber[] subscribers = NONE;

    /** The current subscribers; never null, empty when nobody subscribes. Do not modify. */
    public FeedSubscriber[] subscribers() {
        return subscribers;
    }

    /** Starts feeding {@code subscriber} with events processed from now on. */
    public synchronized void add(FeedSubscriber subscriber) {
        FeedSubscriber[] now = subscribers;
        FeedSubscriber[] next = Arrays.copyOf(now, now.length + 1);
        next[now.length] = subscriber;
        subscribers = next;
    }

    /** Stops feeding {@code subscriber} (idempotent). */
    public synchronized void remove(FeedSubscriber subscriber) {
        FeedSubscriber[] now = subscribers;
        for (int i = 0; i < now.length; i++) {
            if (now[i] == subscriber) {
                FeedSubscriber[] next = new FeedSubscriber[now.length - 1];
                System.arraycopy(now, 0, next, 0, i);
                System.arraycopy(now, i + 1, next, i, now.length - i - 1);
                subscribers = next.length == 0 ? NONE : next;
                return;
            }
        }
    }

    /** The number of open subscriptions (for tests and operations). */
    public int size() {
        return subscribers.length;
    }
}
