package io.coilgun.cluster.task;

import io.coilgun.planner.model.StreamDef;
import io.coilgun.planner.plan.TaskPlan;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * A decider's ledger of its forwards: for each partition of each partitioner topic, the last decision it forwarded
 * there. Each forward carries the one before it to the same partition, so a partitioner task applies a forward only
 * when it applied that one ({@link Forwarder#inTurn}): a forward Kafka lost (a send that failed while later ones to
 * the same partition were written) is never passed over, it comes again when the decider rolls back and forwards
 * again. Kept with the decider's checkpoints, so a decider that reopens forwards again exactly what it forwarded.
 */
final class ForwardLedger {
    /** The decision before a forward is not known (a decider that kept no ledger): the partitioner does not check. */
    static final long UNKNOWN = -2;
    private static final String META = "forwarded";

    private final int partitions;
    private final long[] last;

    private ForwardLedger(int partitions, long[] last) {
        this.partitions = partitions;
        this.last = last;
    }

    /** The ledger {@code plan} (the decider's) checkpointed; a fresh one when it forwarded nothing yet. */
    static ForwardLedger load(TaskPlan plan, StreamDef stream) {
        int size = stream.partitionBy().size() * stream.partitions();
        byte[] kept = plan.meta(META);
        long[] last = new long[size];
        if (kept != null && kept.length == 8 * size) {
            ByteBuffer.wrap(kept).asLongBuffer().get(last);
        } else {
            // nothing forwarded yet: -1, as a partitioner task that applied nothing; a ledger not kept: unknown
            Arrays.fill(last, plan.nextOffset() == 0 ? -1 : UNKNOWN);
        }
        return new ForwardLedger(stream.partitions(), last);
    }

    /** A ledger of a decider that forwarded nothing yet. */
    static ForwardLedger fresh(StreamDef stream) {
        long[] last = new long[stream.partitionBy().size() * stream.partitions()];
        Arrays.fill(last, -1);
        return new ForwardLedger(stream.partitions(), last);
    }

    /** Records {@code decision} as forwarded to partition {@code partition} of the {@code field}-th partitioner. */
    long forwarded(int field, int partition, long decision) {
        int i = field * partitions + partition;
        long before = last[i];
        last[i] = decision;
        return before;
    }

    /** Keeps the ledger with the decider's next checkpoint. */
    void keep(TaskPlan plan) {
        ByteBuffer bytes = ByteBuffer.allocate(8 * last.length);
        bytes.asLongBuffer().put(last);
        plan.meta(META, bytes.array());
    }
}
