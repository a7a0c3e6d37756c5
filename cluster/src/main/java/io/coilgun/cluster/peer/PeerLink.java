package io.coilgun.cluster.peer;

import io.coilgun.cluster.kafka.InboxFollower;
import io.coilgun.cluster.kafka.Topics;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;
import java.util.function.Function;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node-to-node path: each node has an inbox topic ({@link Topics#peer}) that it alone reads, from its end.
 * Another node sends it a request (a call, answered in the caller's inbox under the call's id) or a one-way message
 * (a subscription's events). Through Kafka rather than a socket of our own: every node already reaches Kafka and
 * knows its peers' ids from the group, so there is no second listener to secure, no address to advertise and keep
 * true, and no connection to manage; the cost is a broker hop (a few ms), which the paths using it (reads over
 * metric state, subscriptions) can afford. Per-event ingest never uses it.
 *
 * <p>Handlers never run on the inbox thread: calls on a small pool, one-way messages on one thread in the order
 * they came. A call's handler that fails answers with its message, which the caller gets as a
 * {@link PeerException}.
 */
public final class PeerLink implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(PeerLink.class);
    private static final String KIND = "coilgun.peer.kind";
    private static final String FROM = "coilgun.peer.from";
    private static final String REPLY = "reply";
    private static final String FAILED = "failed";

    private final String nodeId;
    private final KafkaProducer<byte[], byte[]> producer;
    private final InboxFollower inbox;
    private final Map<Long, CompletableFuture<byte[]>> calls = new ConcurrentHashMap<>();
    private final Map<String, Function<byte[], CompletableFuture<byte[]>>> callHandlers = new ConcurrentHashMap<>();
    private final Map<String, BiConsumer<String, byte[]>> messageHandlers = new ConcurrentHashMap<>();
    private final AtomicLong ids = new AtomicLong(System.nanoTime());
    private final ExecutorService handlers = Executors.newFixedThreadPool(2, r -> {
        Thread t = new Thread(r, "coilgun-peer-handler");
        t.setDaemon(true);
        return t;
    });
    /** One-way messages run in the order they came (a subscription's events stay in order). */
    private final ExecutorService messages = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "coilgun-peer-messages");
        t.setDaemon(true);
        return t;
    });

    /** The inbox topic must exist (ClusterNode creates it). */
    public PeerLink(String bootstrapServers, String nodeId, KafkaProducer<byte[], byte[]> producer) {
        this.nodeId = nodeId;
        this.producer = producer;
        this.inbox = new InboxFollower(bootstrapServers, "coilgun-peer-" + nodeId, Topics.peer(nodeId),
                "coilgun-peer", this::dispatch);
    }

    /** Answers calls of {@code kind}: the handler's bytes go back to the caller. */
    public void onCall(String kind, Function<byte[], CompletableFuture<byte[]>> handler) {
        callHandlers.put(kind, handler);
    }

    /** Takes one-way messages of {@code kind}, with the sending node's id. */
    public void onMessage(String kind, BiConsumer<String, byte[]> handler) {
        messageHandlers.put(kind, handler);
    }

    /**
     * Calls node {@code node}: completes with its answer, with a {@link PeerException} when its handler failed, or
     * with a {@link TimeoutException} after {@code timeoutMs} (the node is gone, or slow).
     */
    public CompletableFuture<byte[]> call(String node, String kind, byte[] request, long timeoutMs) {
        long id = ids.incrementAndGet();
        CompletableFuture<byte[]> answer = new CompletableFuture<>();
        calls.put(id, answer);
        send(node, kind, id, request).whenComplete((v, e) -> {
            if (e != null) {
                answer.completeExceptionally(e);
            }
        });
        return answer.orTimeout(timeoutMs, TimeUnit.MILLISECONDS).whenComplete((v, e) -> calls.remove(id));
    }

    /** Sends a one-way message; completes when Kafka has it. */
    public CompletableFuture<Void> tell(String node, String kind, byte[] message) {
        return send(node, kind, 0, message);
    }

    private CompletableFuture<Void> send(String node, String kind, long id, byte[] value) {
        CompletableFuture<Void> sent = new CompletableFuture<>();
        ProducerRecord<byte[], byte[]> record = new ProducerRecord<>(Topics.peer(node), 0,
                ByteBuffer.allocate(8).putLong(id).array(), value, List.of(
                        new RecordHeader(KIND, kind.getBytes(StandardCharsets.UTF_8)),
                        new RecordHeader(FROM, nodeId.getBytes(StandardCharsets.UTF_8))));
        try {
            producer.send(record, (m, e) -> {
                if (e != null) {
                    sent.completeExceptionally(e);
                } else {
                    sent.complete(null);
                }
            });
        } catch (RuntimeException e) {
            sent.completeExceptionally(e);
        }
        return sent;
    }

    private void dispatch(ConsumerRecord<byte[], byte[]> record) {
        String kind = header(record, KIND);
        String from = header(record, FROM);
        long id = record.key() == null || record.key().length != 8 ? 0 : ByteBuffer.wrap(record.key()).getLong();
        if (REPLY.equals(kind) || FAILED.equals(kind)) {
            CompletableFuture<byte[]> call = calls.remove(id);
            if (call != null) {
                if (REPLY.equals(kind)) {
                    call.complete(record.value());
                } else {
                    call.completeExceptionally(new PeerException(from,
                            new String(record.value(), StandardCharsets.UTF_8)));
                }
            }
            return;
        }
        if (id == 0) {
            BiConsumer<String, byte[]> handler = messageHandlers.get(kind);
            if (handler != null) {
                messages.execute(() -> {
                    try {
                        handler.accept(from, record.value());
                    } catch (RuntimeException e) {
                        LOG.error("peer message {} from {} failed", kind, from, e);
                    }
                });
            }
            return;
        }
        Function<byte[], CompletableFuture<byte[]>> handler = callHandlers.get(kind);
        handlers.execute(() -> {
            CompletableFuture<byte[]> answer;
            try {
                answer = handler == null ? CompletableFuture.failedFuture(
                        new IllegalArgumentException("node " + nodeId + " does not answer " + kind))
                        : handler.apply(record.value());
            } catch (RuntimeException e) {
                answer = CompletableFuture.failedFuture(e);
            }
            answer.whenComplete((bytes, e) -> {
                if (e == null) {
                    send(from, REPLY, id, bytes).exceptionally(failed -> {
                        // e.g. an answer over Kafka's record size: the caller hears why, instead of timing out
                        send(from, FAILED, id, ("the answer of node " + nodeId + " could not be sent: " + failed)
                                .getBytes(StandardCharsets.UTF_8));
                        return null;
                    });
                } else {
                    Throwable cause = e instanceof CompletionException && e.getCause() != null
                            ? e.getCause() : e;
                    String message = cause.getMessage() == null ? cause.toString() : cause.getMessage();
                    send(from, FAILED, id, message.getBytes(StandardCharsets.UTF_8));
                }
            });
        });
    }

    private static String header(ConsumerRecord<byte[], byte[]> record, String name) {
        Header h = record.headers().lastHeader(name);
        return h == null ? "" : new String(h.value(), StandardCharsets.UTF_8);
    }

    @Override
    public void close() {
        inbox.close();
        handlers.shutdownNow();
        messages.shutdownNow();
        calls.values().forEach(c -> c.completeExceptionally(new IllegalStateException("the node is stopping")));
    }
}
