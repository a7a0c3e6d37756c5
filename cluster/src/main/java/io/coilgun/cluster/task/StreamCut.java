package io.coilgun.cluster.task;

import io.coilgun.cluster.kafka.KafkaHeaders;
import io.coilgun.cluster.kafka.Topics;
import io.coilgun.planner.plan.TaskPlan;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.TreeSet;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;

/**
 * A task of a stream partitioned by one field when the stream gains a decider ({@code ALTER STREAM … ADD PARTITION
 * BY}). Each node, once it knows, publishes no more events of the stream and writes a cut marker to every partition
 * ({@link KafkaHeaders#CUT}: the conversion, the node, and the nodes it saw in the cluster). The task's cut is the
 * marker that completes the set the first marker named: every event a front end published before it pauses comes
 * before, so the task has judged every event of its partition there. From the cut on it judges nothing
 * ({@link TaskPlan#cut}), and its active copy hands its history to the decider ({@link SeedWriter}); it applies
 * the decider's forwards once the decider took every task's history. Every copy takes the same markers, so each
 * cuts at the same offset; a copy that takes over after the cut writes the history again.
 */
final class StreamCut {
    private static final String STATE = "cut-markers";

    private final Forwarder.Sender sender;
    private final TaskId id;
    /** Whether the stream is still converting (its new decider has not taken every task's history). */
    private final BooleanSupplier converting;
    private SeedWriter writer;
    /** Whether this copy wrote its whole history (another copy's attempt may have, too). */
    private boolean written;

    StreamCut(Forwarder.Sender sender, TaskId id, BooleanSupplier converting) {
        this.sender = sender;
        this.id = id;
        this.converting = converting;
    }

    static boolean isMarker(Headers headers) {
        return headers.lastHeader(KafkaHeaders.CUT) != null;
    }

    /** Takes a cut marker (every copy); the active copy hands its history over once this one cuts ({@link #due}). */
    void marker(ConsumerRecord<byte[], byte[]> record, TaskPlan plan) {
        if (plan.isCut()) {
            return;
        }
        Header h = record.headers().lastHeader(KafkaHeaders.CUT);
        String[] marker = new String(h.value(), StandardCharsets.UTF_8).split("\\|", -1);
        byte[] kept = plan.meta(STATE);
        String[] state = kept == null ? null : new String(kept, StandardCharsets.UTF_8).split("\\|", -1);
        if (state != null && !state[0].equals(marker[0])) {
            state = null; // markers of an earlier conversion of a stream of this name that did not complete
        }
        TreeSet<String> expected = new TreeSet<>(names(state == null ? marker[2] : state[1]));
        TreeSet<String> seen = new TreeSet<>(state == null ? List.of() : names(state[2]));
        seen.add(marker[1]);
        if (seen.containsAll(expected)) {
            plan.cut();
        } else {
            plan.meta(STATE, (marker[0] + "|" + String.join(",", expected) + "|" + String.join(",", seen))
                    .getBytes(StandardCharsets.UTF_8));
        }
    }

    private static List<String> names(String csv) {
        return csv.isEmpty() ? List.of() : Arrays.asList(csv.split(","));
    }

    /**
     * Whether the active copy has history to write: it is past its cut and the decider waits for it, and this copy
     * has not written it all (one that took over, restarted or reopened writes it again; the decider takes one).
     */
    boolean due(TaskPlan plan) {
        return writer != null || !written && plan.isCut() && converting.getAsBoolean();
    }

    /** The active copy writes history until {@code deadlineNanos}; done once all of it is in Kafka. */
    void step(TaskPlan plan, String stream, long deadlineNanos) {
        if (writer == null) {
            writer = new SeedWriter(sender, Topics.seed(stream), id.partition(), plan.reservoir());
        }
        if (writer.step(deadlineNanos)) {
            writer = null;
            written = true;
        }
    }

    /** The plan was reopened at its checkpoint (a failure), or the copy became a replica: it writes nothing now. */
    void stopWriting() {
        writer = null;
    }
}
