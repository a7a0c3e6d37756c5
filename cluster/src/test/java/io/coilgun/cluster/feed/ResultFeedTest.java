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
        return new FeedEvent("t", id, new Object[0], List.of(), new Object[0]);
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
}
