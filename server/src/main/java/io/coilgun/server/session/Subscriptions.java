package io.coilgun.server.session;

import io.coilgun.cluster.feed.ClusterFeed;
import io.coilgun.pgwire.spi.PgException;
import io.coilgun.pgwire.spi.QueryResult;
import io.coilgun.sql.compile.SubscribeStatement;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * A session's SUBSCRIBEs: starts them (each registers with the node's result feed, its rows are the events applied
 * from then on) and keeps the open ones, running or in a suspended portal, so that a cancel or the end of the
 * connection reaches them. A subscription leaves when pgwire closes it.
 */
final class Subscriptions {
    private final ClusterFeed feed;
    /** Changed on the session's thread, read by cancel from any thread. */
    private final Set<Subscription> open = ConcurrentHashMap.newKeySet();

    Subscriptions(ClusterFeed feed) {
        this.feed = feed;
    }

    /**
     * Starts a SUBSCRIBE. It never ends by itself: statement_timeout ends it, as it ends any statement in Postgres.
     *
     * @param timeoutMs statement_timeout (0 for none)
     */
    QueryResult start(SubscribeStatement sub, long timeoutMs) {
        Subscription[] self = new Subscription[1];
        Runnable[] stopTimer = {() -> { }};
        self[0] = new Subscription(feed, sub, () -> {
            open.remove(self[0]);
            stopTimer[0].run();
        });
        open.add(self[0]);
        stopTimer[0] = StatementTimeout.after(timeoutMs, () -> self[0].fail(StatementTimeout.expired()));
        return QueryResult.stream(Subscription.columns(sub), self[0], sub.verb());
    }

    /** Whether one is open (the session is active while it is). */
    boolean any() {
        return !open.isEmpty();
    }

    /** Ends every open subscription's statement with an error of its own from {@code error} (a cancel). Any thread. */
    void failAll(Supplier<PgException> error) {
        for (Subscription subscription : open) {
            subscription.fail(error.get());
        }
    }

    /** Closes every open subscription (the connection ended; closing twice is harmless). */
    void closeAll() {
        for (Subscription subscription : open) {
            subscription.close();
        }
    }
}
