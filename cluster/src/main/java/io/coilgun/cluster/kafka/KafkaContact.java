package io.coilgun.cluster.kafka;

import java.util.function.LongSupplier;

/**
 * Whether this node still reaches Kafka, from its processor units' proofs of membership in the task group (each
 * unit has one every 200 ms while its commits reach the group coordinator) and from when a broker last answered one
 * of them (their consumers hear from the brokers several times a second). A node with no proof for
 * {@link #CUT_OFF_MS} that no broker answered for as long is cut off from Kafka (a network partition); one that
 * brokers still answer but with no proof for {@link #NO_COORDINATOR_MS} has a Kafka with too few brokers up to take
 * a write (a group coordinator that moves after a broker died takes a few seconds, which is waited out). The front
 * end then fails statements at once (their replies cannot come) and reads answer from the copies on the node (the
 * peers are reached through Kafka). Any thread.
 */
public final class KafkaContact {
    /** How long a node may go without a proof and without an answer from any broker before it counts as cut off. */
    public static final long CUT_OFF_MS = Long.getLong("coilgun.cutOffMs", 3000);
    /** How long a node that brokers still answer may go without a proof before Kafka counts as unable to write. */
    public static final long NO_COORDINATOR_MS = Long.getLong("coilgun.noCoordinatorMs", 8000);

    private final LongSupplier proofSilenceMs;
    private final LongSupplier brokerSilenceMs;

    /**
     * @param proofSilenceMs how long ago (ms) Kafka last confirmed one of the node's units, -1: not yet
     * @param brokerSilenceMs how long ago (ms) a broker last answered one of them, -1: not yet
     */
    public KafkaContact(LongSupplier proofSilenceMs, LongSupplier brokerSilenceMs) {
        this.proofSilenceMs = proofSilenceMs;
        this.brokerSilenceMs = brokerSilenceMs;
    }

    /** Whether the node is cut off from Kafka, or Kafka cannot take a write, now. */
    public boolean cutOff() {
        return unavailable() != null;
    }

    /** The error of a statement that needs Kafka on a node cut off from it, or null while it is not. */
    public KafkaUnavailableException unavailable() {
        long proof = proofSilenceMs.getAsLong();
        if (proof <= CUT_OFF_MS) {
            return null;
        }
        long brokers = brokerSilenceMs.getAsLong();
        String retry = "; the statement's events may or may not be applied: retry it on another node (a retry with "
                + "the same event id is never counted twice)";
        if (brokers < 0 || brokers > CUT_OFF_MS) {
            return new KafkaUnavailableException("this node has had no answer from Kafka for " + Math.max(proof,
                    brokers) + " ms (it is cut off from Kafka)" + retry, null);
        }
        if (proof <= NO_COORDINATOR_MS) {
            return null; // brokers answer: a group coordinator moving after a broker died, most likely
        }
        return new KafkaUnavailableException("this node has had no answer from Kafka's group coordinator for " + proof
                + " ms though its brokers answer (too few brokers are up to take a write?)" + retry, null);
    }
}
