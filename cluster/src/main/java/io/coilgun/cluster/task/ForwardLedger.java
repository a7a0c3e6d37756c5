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

    /** Where each partitioner's partitions start in {@link #last}, in {@code partition_by} order. */
    private final int[] firstOf;
    private final long[] last;

    private ForwardLedger(int[] firstOf, long[] last) {
        this.firstOf = firstOf;
        this.last = last;
    }

    /** The ledger {@code plan} (the decider's) checkpointed; a fresh one when it forwarded nothing yet. */
    static ForwardLedger load(TaskPlan plan, StreamDef stream) {
        ForwardLedger ledger = fresh(stream);
        byte[] kept = plan.meta(META);
        if (kept != null && kept.length == 8 * ledger.last.length) {
            ByteBuffer.wrap(kept).asLongBuffer().get(ledger.last);
        } else if (plan.nextOffset() != 0) {
            Arrays.fill(ledger.last, UNKNOWN); // a decider that kept no ledger (or another shape of it): not known
        }
        return ledger;
    }

    /** A ledger of a decider that forwarded nothing yet: -1, as a partitioner task that applied nothing. */
    static ForwardLedger fresh(StreamDef stream) {
        int[] firstOf = new int[stream.partitionBy().size()];
        int size = 0;
        for (int f = 0; f < firstOf.length; f++) {
            firstOf[f] = size;
            size += stream.partitions(stream.partitionBy().get(f));
        }
        long[] last = new long[size];
        Arrays.fill(last, -1);
        return new ForwardLedger(firstOf, last);
    }

    /** A ledger that knows no decision before any forward: for forwards made again, out of the decider's run. */
    static ForwardLedger unknown(StreamDef stream) {
        ForwardLedger ledger = fresh(stream);
        Arrays.fill(ledger.last, UNKNOWN);
        return ledger;
    }

    /** Records {@code decision} as forwarded to partition {@code partition} of the {@code field}-th partitioner. */
    long forwarded(int field, int partition, long decision) {
        int i = firstOf[field] + partition;
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
