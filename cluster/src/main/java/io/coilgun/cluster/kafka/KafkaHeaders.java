package io.coilgun.cluster.kafka;

import java.nio.ByteBuffer;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;

/** Record headers of events on partitioner topics. */
public final class KafkaHeaders {
    /** The node whose reply topic gets the event's reply. */
    public static final String REPLY_TO = "coilgun.reply-to";
    /** The request id (8 bytes) the reply carries back as its key. */
    public static final String CORRELATION = "coilgun.correlation";
    /**
     * Marks a probe: the record asks whether its event's id was accepted within the dedup horizon (reply DUPLICATE
     * or NOT_DUPLICATE) and is never applied. The front end probes a row that looks late, which may be a retry.
     */
    public static final String PROBE = "coilgun.probe";
    /**
     * On a partitioner topic of a stream with a decider: the event was accepted by the decider at this offset of its
     * decision log (8 bytes), and is applied as decided; then the decision the decider forwarded before it to the same
     * partition (8 bytes, -2 when not known), which the task must have applied first.
     */
    public static final String DECISION = "coilgun.decision";
    /**
     * Marks a metric's start marker (the value: the metric's name): every copy of the task adds the metric when it
     * takes this record, so the metric starts at the same offset on the active and on every replica.
     */
    public static final String START_METRIC = "coilgun.start-metric";
    /**
     * A decider's own marker: the partitioner it names (after a 4-byte epoch) goes live at the marker's offset
     * ({@code PartitionerFills}).
     */
    public static final String FILLED = "coilgun.filled";
    /** A decider's own marker: a copy took over (a 4-byte epoch, the old active's 8-byte committed offset). */
    public static final String PROMOTED = "coilgun.promoted";

    private KafkaHeaders() {
    }

    /** The decision a decider's forward carries ({@link #DECISION}), or -1 when {@code headers} are no forward's. */
    public static long decisionOf(Headers headers) {
        Header h = headers.lastHeader(DECISION);
        return h == null ? -1 : ByteBuffer.wrap(h.value()).getLong();
    }
}
