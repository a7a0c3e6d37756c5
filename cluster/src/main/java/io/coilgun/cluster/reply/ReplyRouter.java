package io.coilgun.cluster.reply;

import io.coilgun.cluster.kafka.InboxFollower;
import io.coilgun.cluster.kafka.Topics;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.Producer;

/**
 * Consumes this node's reply topic and completes the request waiting for each reply. An event published to
 * several partitioner topics gets one reply from each; its future completes once all have arrived. Replies
 * nobody waits for (e.g. for events replayed after a restart) are ignored.
 *
 * <p>A task of this node answering this node's front end does not go through Kafka: {@link #sender} hands the reply
 * to the router's own thread, which completes the request there (not on the processor thread: what the statement
 * does next, results and the pgwire answer, runs on that thread). A produce and a fetch fewer per event; a reply is
 * only ever read by the node that waits for it, so nothing else changes (a promoted replica's re-sent replies
 * included).
 */
public final class ReplyRouter implements AutoCloseable {
    private final InboxFollower follower;
    private final Map<Long, Pending> pending = new ConcurrentHashMap<>();
    private final long timeoutMs;
    private final String topic;
    /** Completes requests answered by this node's own tasks. */
    private final ExecutorService local = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "coilgun-local-replies");
        t.setDaemon(true);
        return t;
    });

    public ReplyRouter(String bootstrapServers, String nodeId, long timeoutMs) {
        this.timeoutMs = timeoutMs;
        this.topic = Topics.replies(nodeId);
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

    /** Requests whose replies have not all come (nor timed out) yet. */
    public int inFlight() {
        return pending.size();
    }

    /** Forgets a request whose publication failed. */
    public void cancel(long correlation) {
        pending.remove(correlation);
    }

    /**
     * The tasks' reply sender: replies to this node are routed here directly, the others produced with
     * {@code producer}.
     */
    public ReplySender sender(Producer<byte[], byte[]> producer) {
        return reply -> {
            if (reply.topic().equals(topic)) {
                local.execute(() -> route(reply.key(), reply.value()));
            } else {
                producer.send(reply);
            }
        };
    }

    private void route(ConsumerRecord<byte[], byte[]> record) {
        route(record.key(), record.value());
    }

    /** A reply completes the request waiting for it, if any (replies nobody waits for are ignored). */
    private void route(byte[] key, byte[] value) {
        Reply reply = ReplyCodec.decode(key, value);
        Pending p = pending.get(reply.correlation());
        if (p != null) {
            p.add(reply);
        }
    }

    @Override
    public void close() {
        follower.close();
        local.shutdownNow();
    }

    private static final class Pending {
        final CompletableFuture<List<Reply>> future = new CompletableFuture<>();
        final List<Reply> replies;
        final Set<String> sources = new HashSet<>();
        /** The replies to wait for; a decider's accepted event says how many partitioners answer after it. */
        int count;

        Pending(int count) {
            this.count = count;
            this.replies = new ArrayList<>(count);
        }

        synchronized void add(Reply reply) {
            if (!reply.source().isEmpty() && !sources.add(reply.source())) {
                return; // the same task's reply again (re-sent by a new leader): the first one counts
            }
            // (a reply of a node older than the topic in its key names no source: counted, as before)
            replies.add(reply);
            boolean decider = Topics.isDecider(reply.source());
            if (decider && reply.followers() >= 0) {
                count = 1 + reply.followers(); // a partitioner still being filled from history does not answer
            }
            // a decider that does not accept the event forwards it nowhere: its answer is the only one
            if (replies.size() >= count || reply.status() != ReplyStatus.APPLIED && decider) {
                future.complete(List.copyOf(replies));
            }
        }
    }
}
