package io.coilgun.cluster.task;

import io.coilgun.planner.model.StreamDef;
import io.coilgun.planner.plan.TaskPlan;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A decider's ledger of its forwards: for each partition of each partitioner topic, the last decision it forwarded
 * there. Each forward carries the one before it to the same partition, so a partitioner task applies a forward only
 * when it applied that one ({@link Forwarder#inTurn}): a forward Kafka lost (a send that failed while later ones to
 * the same partition were written) is never passed over, it comes again when the decider rolls back and forwards
 * again. Kept with the decider's checkpoints, by partitioner name, so a decider that reopens forwards again exactly
 * what it forwarded; a partitioner the kept ledger does not know (added since, or of another partition count) starts
 * at {@link #UNKNOWN}.
 */
final class ForwardLedger {
    /** The decision before a forward is not known (a decider that kept no ledger): the partitioner does not check. */
    static final long UNKNOWN = -2;
    private static final String META = "forwarded";
    /**
     * The first int of a ledger kept by name ("LEDG"; the one before was the longs alone, in partition_by order, whose
     * first int is the high half of a decision offset, -1 or 0).
     */
    private static final int NAMED = 0x4C454447;

    private final List<String> fields;
    /** Where each partitioner's partitions start in {@link #last}, in {@code partition_by} order. */
    private final int[] firstOf;
    private final int[] counts;
    private final long[] last;

    private ForwardLedger(StreamDef stream, long initial) {
        this.fields = List.copyOf(stream.partitionBy());
        this.firstOf = new int[fields.size()];
        this.counts = new int[fields.size()];
        int size = 0;
        for (int f = 0; f < firstOf.length; f++) {
            firstOf[f] = size;
            counts[f] = stream.partitions(fields.get(f));
            size += counts[f];
        }
        this.last = new long[size];
        Arrays.fill(last, initial);
    }

    /** The ledger {@code plan} (the decider's) checkpointed; a fresh one when it forwarded nothing yet. */
    static ForwardLedger load(TaskPlan plan, StreamDef stream) {
        byte[] kept = plan.meta(META);
        if (kept == null) {
            return plan.nextOffset() == 0 ? fresh(stream) : unknown(stream);
        }
        ForwardLedger ledger = unknown(stream);
        ByteBuffer b = ByteBuffer.wrap(kept);
        if (kept.length >= 4 && b.getInt(0) == NAMED) {
            ledger.takeFrom(decodeNamed(kept));
        } else if (kept.length == 8 * ledger.last.length) {
            b.asLongBuffer().get(ledger.last); // kept before ledgers had names, by a stream not altered since
        }
        return ledger;
    }

    /** A ledger of a decider that forwarded nothing yet: -1, as a partitioner task that applied nothing. */
    static ForwardLedger fresh(StreamDef stream) {
        return new ForwardLedger(stream, -1);
    }

    /** A ledger that knows no decision before any forward: for forwards made again, out of the decider's run. */
    static ForwardLedger unknown(StreamDef stream) {
        return new ForwardLedger(stream, UNKNOWN);
    }

    /** The same ledger for the stream's new partitioners: those it knows keep their entries, new ones are unknown. */
    ForwardLedger resized(StreamDef stream) {
        ForwardLedger ledger = unknown(stream);
        ledger.takeFrom(entries());
        return ledger;
    }

    /** Forgets what was forwarded to partitioner {@code field}: its next forwards are not checked against it. */
    void forget(String field) {
        int f = fields.indexOf(field);
        if (f >= 0) {
            Arrays.fill(last, firstOf[f], firstOf[f] + counts[f], UNKNOWN);
        }
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
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(16 + 12 * last.length);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeInt(NAMED);
            out.writeInt(fields.size());
            for (int f = 0; f < fields.size(); f++) {
                out.writeUTF(fields.get(f));
                out.writeInt(counts[f]);
                for (int p = 0; p < counts[f]; p++) {
                    out.writeLong(last[firstOf[f] + p]);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        plan.meta(META, bytes.toByteArray());
    }

    private Map<String, long[]> entries() {
        Map<String, long[]> out = new HashMap<>();
        for (int f = 0; f < fields.size(); f++) {
            out.put(fields.get(f), Arrays.copyOfRange(last, firstOf[f], firstOf[f] + counts[f]));
        }
        return out;
    }

    /** Takes the entries of the partitioners {@code kept} has with the same partition count. */
    private void takeFrom(Map<String, long[]> kept) {
        for (int f = 0; f < fields.size(); f++) {
            long[] k = kept.get(fields.get(f));
            if (k != null && k.length == counts[f]) {
                System.arraycopy(k, 0, last, firstOf[f], counts[f]);
            }
        }
    }

    private static Map<String, long[]> decodeNamed(byte[] kept) {
        Map<String, long[]> out = new HashMap<>();
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(kept))) {
            in.readInt();
            int n = in.readInt();
            for (int f = 0; f < n; f++) {
                String name = in.readUTF();
                long[] entries = new long[in.readInt()];
                for (int p = 0; p < entries.length; p++) {
                    entries[p] = in.readLong();
                }
                out.put(name, entries);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out;
    }
}
