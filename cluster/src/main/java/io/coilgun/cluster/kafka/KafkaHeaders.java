package io.coilgun.cluster.kafka;

/** Record headers of events on partitioner topics. */
public final class KafkaHeaders {
    /** The node whose reply topic gets the event's reply. */
    public static final String REPLY_TO = "coilgun.reply-to";
    /** The request id (8 bytes) the reply carries back as its key. */
    public static final String CORRELATION = "coilgun.correlation";

    private KafkaHeaders() {
    }
}
