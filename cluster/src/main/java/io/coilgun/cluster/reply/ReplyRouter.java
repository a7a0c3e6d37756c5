package io.coilgun.cluster.reply;

import io.coilgun.cluster.kafka.InboxFollower;
import io.coilgun.cluster.kafka.Topics;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * Consumes this node's reply topic and completes the request waiting for each reply. An event published to
 * several partitioner topics gets one reply from each; its future completes once all have arrived. Replies
 * nobody waits for (e.g. for events replayed after a restart) are ignored.
 */
public final class ReplyRouter implements AutoCloseable {
    private final InboxFollower follower;
    private final Map<Long, Pending> pending = new ConcurrentHashMap<>();
    private final long timeoutMs;

    public ReplyRouter(String bootstrapServers, String nodeId, long timeoutMs) {
        this.timeoutMs = timeoutMs;
        this.follower = new InboxFollower(bootstrapServers, "coilgun-replies-" + nodeId, Topics.replies(nodeId),
                "coilgun-replies", this::route);
    }

    /** Registers interest before the event is published; completes with all {@code count} replies. */
    public CompletableFuture<List<Reply>> expect(long correlation, int count) {
        Pending p = new Pending(count);
        pending.put(correlation, p);
        return p.future.orTimeout(timeoutMs, TimeUnit.MILLISECONDS)
                .whenComplete((r, e) -> pending.remove(correlation));
    }

    /** Forgets a request whose publication failed. */
    public void cancel(long correlation) {
        pending.remove(correlation);
    }

    /** A reply completes the request waiting for it, if any (replies nobody waits for are ignored). */
    private void route(ConsumerRecord<byte[], byte[]> record) {
        Reply reply = ReplyCodec.decode(record.key(), record.value());
        Pending p = pending.get(reply.correlation());
        if (p != null) {
            p.add(reply);
        }
    }

    @Override
    public void close() {
        follower.close();
    }

    private static final class Pending {
        final CompletableFuture<List<Reply>> future = new CompletableFuture<>();
        final List<Reply> replies;
        final int count;

        Pending(int count) {
            this.count = count;
            this.replies = new ArrayList<>(count);
        }

        synchronized void add(Reply reply) {
            replies.add(reply);
            if (replies.size() == count) {
                future.complete(List.copyOf(replies));
            }
        }
    }
}
