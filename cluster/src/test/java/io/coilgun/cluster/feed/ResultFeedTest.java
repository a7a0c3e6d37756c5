package io.coilgun.cluster.feed;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class ResultFeedTest {
    private static FeedEvent event(long id) {
        return event(0, id, true);
    }

    /** Event {@code offset} of partition {@code p} from the active copy or a replica (its assigned id = offset). */
    private static FeedEvent event(int p, long offset, boolean active) {
        return new FeedEvent("t", p, offset, active, offset, new Object[0], List.of(), new Object[0]);
    }

    @Test
    void nobodySubscribedIsOneEmptyArray() {
        ResultFeed feed = new ResultFeed();
        assertEquals(0, feed.subscribers().length);
        assertSame(feed.subscribers(), feed.subscribers(), "no allocation per look");
        FeedSubscriber a = new FeedSubscriber("t", 10);
        FeedSubscriber b = new FeedSubscriber("u", 10);
        feed.add(a);
        feed.add(b);
        assertEquals(2, feed.size());
        feed.remove(a);
        feed.remove(a);
        assertSame(b, feed.subscribers()[0]);
        feed.remove(b);
        assertEquals(0, feed.subscribers().length);
    }

    @Test
    void subscribersTakeTheirTopicInOrderAndOverflowInsteadOfGrowing() {
        FeedSubscriber s = new FeedSubscriber("t", 3);
        AtomicInteger told = new AtomicInteger();
        s.onAvailable(told::incrementAndGet);
        assertTrue(s.wants("t"));
        assertFalse(s.wants("u"));
        for (long i = 1; i <= 3; i++) {
            s.offer(event(i));
        }
        assertEquals(1, s.poll().assignedId());
        s.offer(event(4));
        assertFalse(s.overflowed());
        s.offer(event(5)); // a fourth waiting event: over capacity
        assertTrue(s.overflowed());
        assertFalse(s.wants("t"), "an overflowed subscriber takes nothing more");
        assertEquals(5, told.get());
        assertEquals(2, s.poll().assignedId());
        assertEquals(3, s.poll().assignedId());
        assertEquals(4, s.poll().assignedId());
        assertNull(s.poll());
    }

    /**
     * Every copy of a task feeds: a subscriber keeps each event of a partition once, in order, whichever copy it came
     * from first, so a failover neither loses what the old leader had not forwarded nor repeats what it had; a
     * replica's events count only once the active copy gave the partition's first.
     */
    @Test
    void eachEventIsKeptOnceWhicheverCopyItCameFrom() {
        FeedSubscriber s = new FeedSubscriber("t", 100);
        s.offer(event(0, 3, false)); // a replica catching up: from before the subscription, perhaps
        s.offer(event(0, 5, true));
        s.offer(event(0, 5, false));
        s.offer(event(0, 6, false)); // the replica is ahead of the active now
        s.offer(event(0, 6, true));
        s.offer(event(1, 9, true)); // another partition has its own offsets
        s.offer(event(0, 7, true));
        // the leader dies having forwarded 7; the replica, promoted, sends what it applied as a replica, then on
        s.offer(event(0, 7, false));
        s.offer(event(0, 8, false));
        s.offer(event(0, 9, true));
        List<String> kept = new java.util.ArrayList<>();
        FeedEvent e;
        while ((e = s.poll()) != null) {
            kept.add(e.partition() + ":" + e.offset());
        }
        assertEquals(List.of("0:5", "0:6", "1:9", "0:7", "0:8", "0:9"), kept);
    }

    /**
     * A node forwarding its copies' events to a subscription elsewhere passes a replica's on (that node may never
     * lead the task): the subscription at the end keeps each once. A failover's missing events come that way.
     */
    @Test
    void aForwardPassesReplicasEventsOn() {
        FeedSubscriber forward = FeedSubscriber.forwarding("t", 100);
        forward.offer(event(0, 7, false));
        forward.offer(event(0, 8, false));
        assertEquals(7, forward.poll().offset());
        assertEquals(8, forward.poll().offset());
        assertNull(forward.poll());
    }
}
