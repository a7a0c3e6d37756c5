package io.coilgun.cluster.query;

import io.coilgun.cluster.kafka.KafkaContact;
import io.coilgun.cluster.kafka.ValueCodec;
import io.coilgun.cluster.peer.PeerException;
import io.coilgun.cluster.peer.PeerLink;
import io.coilgun.cluster.task.TaskId;
import io.coilgun.cluster.task.TaskProcessor;
import io.coilgun.planner.error.CoilgunException;
import io.coilgun.planner.error.SqlState;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.BiFunction;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads of a task's data (metric state, recent events) from the copy that leads it, wherever it runs: on this node,
 * on the processor unit owning the task, between two events; on another node, through the
 * {@link io.coilgun.cluster.peer.PeerLink}, which does the same there. A read and its answer are bytes (each reader
 * has its own encoding), so both ways are one code path.
 *
 * <p>While a task fails over (its leader died and the group has not moved it yet) a read waits for the new leader
 * up to {@link #TASK_TIMEOUT_MS}, then answers from a replica on this node if there is one, else fails with 55000.
 * Blocking: call it from a query thread, never from a network or processor thread.
 */
public final class TaskReads {
    private static final Logger LOG = LoggerFactory.getLogger(TaskReads.class);
    /** How long one call to another node may take. */
    static final long CALL_TIMEOUT_MS = 5_000;
    /** How long a read waits for some copy of a task to answer. */
    static final long TASK_TIMEOUT_MS = 15_000;

    private final PeerLink peers;
    private final TaskRouter router;
    private final KafkaContact kafka;

    /** @param kafka whether the node reaches Kafka: when cut off, reads answer from this node's copies at once */
    public TaskReads(PeerLink peers, TaskRouter router, KafkaContact kafka) {
        this.peers = peers;
        this.router = router;
        this.kafka = kafka;
    }

    /**
     * Answers reads of {@code kind} from other nodes with {@code read} (on the task's unit thread; any role: the
     * caller chose the copy). Register each kind once per node.
     */
    public void serve(String kind, BiFunction<TaskProcessor, byte[], byte[]> read) {
        peers.onCall(kind, request -> {
            try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(request))) {
                TaskId id = TaskId.of(new TopicPartition(in.readUTF(), in.readInt()));
                byte[] body = ValueCodec.readBytes(in);
                return local(id, body, read).thenApply(TaskReads::held);
            } catch (IOException e) {
                return CompletableFuture.failedFuture(e);
            }
        });
    }

    /** Task {@code id}'s answer to {@code request}, from the copy leading it (see the class comment). */
    public byte[] read(TaskId id, String kind, byte[] request, BiFunction<TaskProcessor, byte[], byte[]> read) {
        long deadline = System.currentTimeMillis() + TASK_TIMEOUT_MS;
        while (true) {
            if (kafka.cutOff()) { // no peer is reached (they are reached through Kafka) and no failover comes
                byte[] here = local(id, request, read).join();
                if (here != null) {
                    return here;
                }
                throw new CoilgunException(SqlState.OBJECT_NOT_IN_PREREQUISITE_STATE, "task " + id + " has no copy "
                        + "on this node, and this node cannot reach Kafka (which joins it to its peers): read it on a "
                        + "node that holds a copy (coilgun.tasks), or when Kafka is back");
            }
            String leader = router.activeNodeOf(id);
            byte[] answer = leader == null || leader.equals(router.nodeId()) ? local(id, request, read).join()
                    : remote(leader, id, kind, request);
            if (answer != null) {
                return answer;
            }
            if (System.currentTimeMillis() > deadline) {
                byte[] replica = local(id, request, read).join(); // a replica here rather than nothing
                if (replica != null) {
                    return replica;
                }
                throw new CoilgunException(SqlState.OBJECT_NOT_IN_PREREQUISITE_STATE, "task " + id
                        + " did not answer within " + TASK_TIMEOUT_MS / 1000 + " s (led by " + (leader == null
                        ? "no node: the group has not placed it" : "node " + leader)
                        + "; a failover may be under way): retry");
            }
            try {
                Thread.sleep(200); // the group moves a dead node's tasks within its session timeout
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new CoilgunException(SqlState.QUERY_CANCELED, "the read was interrupted");
            }
        }
    }

    /** The copy on this node answers; null when the node holds none. */
    private CompletableFuture<byte[]> local(TaskId id, byte[] request, BiFunction<TaskProcessor, byte[], byte[]> read) {
        return router.onTask(id, t -> read.apply(t, request));
    }

    /** Node {@code node} answers; null when it holds no copy, did not answer in time, or is gone. */
    private byte[] remote(String node, TaskId id, String kind, byte[] request) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(request.length + 64);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeUTF(id.topicPartition().topic());
            out.writeInt(id.topicPartition().partition());
            ValueCodec.writeBytes(out, request);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        try {
            byte[] answer = peers.call(node, kind, bytes.toByteArray(), CALL_TIMEOUT_MS).join();
            try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(answer))) {
                return ValueCodec.readBytes(in);
            }
        } catch (CompletionException | IOException e) {
            if (e.getCause() instanceof PeerException failed) {
                // the node answered with an error (a stopped task, an answer too large): not a failover
                throw new CoilgunException(SqlState.OBJECT_NOT_IN_PREREQUISITE_STATE, "task " + id + " on node "
                        + node + ": " + failed.getMessage());
            }
            LOG.debug("task={} read from node {} failed: {}", id, node, e.getCause() == null ? e : e.getCause());
            return null;
        }
    }

    /** An answer that may be "not held here" (null). */
    private static byte[] held(byte[] answer) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(answer == null ? 8 : answer.length + 8);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            ValueCodec.writeBytes(out, answer);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }
}
