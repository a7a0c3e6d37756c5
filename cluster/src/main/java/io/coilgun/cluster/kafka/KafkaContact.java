package io.coilgun.cluster.kafka;

import java.util.function.LongSupplier;

/**
 * Whether this node still reaches Kafka, from its processor units' proofs of membership in the task group (each
 * unit has one every 200 ms while its commits reach the group coordinator): a node with none for
 * {@link #CUT_OFF_MS} is cut off from Kafka (a network partition), or Kafka has too few brokers up to take a write.
 * The front end then fails statements at once (their replies cannot come) and reads answer from the copies on the
 * node (the peers are reached through Kafka). Any thread.
 */
public final class KafkaContact {
    /** How long a node may go without a proof before it counts as cut off. */
    public static final long CUT_OFF_MS = Long.getLong("coilgun.cutOffMs", 3000);

    private final LongSupplier silenceMs;

    /** @param silenceMs how long ago (ms) Kafka last confirmed one of the node's units, -1: not yet */
    public KafkaContact(LongSupplier silenceMs) {
        this.silenceMs = silenceMs;
    }

    /** Whether the node is cut off from Kafka now. */
    public boolean cutOff() {
        return silenceMs.getAsLong() > CUT_OFF_MS;
    }

    /** The error of a statement that needs Kafka on a node cut off from it, or null while it is not. */
    public KafkaUnavailableException unavailable() {
        long silence = silenceMs.getAsLong();
        if (silence <= CUT_OFF_MS) {
            return null;
        }
        return new KafkaUnavailableException("this node has had no answer from Kafka's group coordinator for "
                + silence + " ms (it is cut off from Kafka, or too few brokers are up); the statement's events may or "
                + "may not be applied: retry it on another node (a retry with the same event id is never counted "
                + "twice)", null);
    }
}
