package io.coilgun.cluster.reply;

import io.coilgun.cluster.kafka.KafkaClients;
import io.coilgun.cluster.kafka.Topics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Consumes this node's reply topic and completes the request waiting for each reply. An event published to
 * several partitioner topics gets one reply from each; its future completes once all have arrived. Replies
 * nobody waits for (e.g. for events replayed after a restart) are ignored.
 */
public final class ReplyRouter implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ReplyRouter.class);

    private final KafkaConsumer<byte[], byte[]> consumer;
    private final Map<Long, Pending> pending = new ConcurrentHashMap<>();
    private final Thread thread;
    private final long timeoutMs;
    private volatile boolean running = true;

    public ReplyRouter(String bootstrapServers, String nodeId, long timeoutMs) {
        this.consumer = KafkaClients.consumer(bootstrapServers, "coilgun-replies-" + nodeId, 0, KafkaClients.IDLE_FETCH_WAIT_MS);
        TopicPartition tp = new TopicPartition(Topics.replies(nodeId), 0);
        consumer.assign(List.of(tp));
        consumer.seekToEnd(List.of(tp));
        consumer.position(tp); // resolve the end now, before anyone waits for a reply
        this.timeoutMs = timeoutMs;
        this.thread = new Thread(this::run, "coilgun-replies");
        thread.setDaemon(true);
        thread.start();
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

    private void run() {
        while (running) {
            try {
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                    Reply reply = ReplyCodec.decode(record.key(), record.value());
                    Pending p = pending.get(reply.correlation());
                    if (p != null) {
                        p.add(reply);
                    }
                }
            } catch (WakeupException e) {
                // closing
            } catch (RuntimeException | LinkageError | StackOverflowError e) {
                // a bad reply or a failed poll must not stop every statement's answers: log and go on
                if (running) {
                    LOG.error("reply consumer failed", e);
                }
            }
        }
        consumer.close(Duration.ofSeconds(2));
    }

    @Override
    public void close() {
        running = false;
        consumer.wakeup();
        try {
            thread.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
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
