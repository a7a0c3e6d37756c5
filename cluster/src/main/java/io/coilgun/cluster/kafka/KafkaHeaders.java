package io.coilgun.cluster.kafka;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.TreeSet;
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
    /**
     * On a partitioner topic of a stream partitioned by one field that is gaining a decider: a node's front end
     * publishes no more events there (value: {@code conversion|node|expected nodes}, {@code StreamCut}).
     */
    public static final String CUT = "coilgun.cut";
    /**
     * On a stream's seed topic: an event a task accepted before its cut (attempt, index within it, event time: three
     * 8-byte numbers), or the end of an attempt ({@link #SEED_END}: attempt, count).
     */
    public static final String SEED = "coilgun.seed";
    public static final String SEED_END = "coilgun.seed-end";
    /**
     * On a decision log: an event accepted before the stream had its decider, taken as accepted (its 8-byte index in
     * the merged history), or the end of that history ({@link #SEEDED_END}: the count).
     */
    public static final String SEEDED = "coilgun.seeded";
    public static final String SEEDED_END = "coilgun.seeded-end";

    private KafkaHeaders() {
    }

    /** The 8-byte number at {@code position} (0, 1, 2…) of header {@code name}, or -1 when there is none. */
    public static long numberOf(Headers headers, String name, int position) {
        Header h = headers.lastHeader(name);
        return h == null ? -1 : ByteBuffer.wrap(h.value()).getLong(8 * position);
    }

    /** A {@link #CUT} marker's value: {@code conversion|node|expected,nodes}. */
    public static byte[] cutMarker(int conversion, String node, Collection<String> expected) {
        return (conversion + "|" + node + "|" + String.join(",", new TreeSet<>(expected)))
                .getBytes(StandardCharsets.UTF_8);
    }

    /** A header value of 8-byte numbers. */
    public static byte[] numbers(long... values) {
        ByteBuffer b = ByteBuffer.allocate(8 * values.length);
        for (long v : values) {
            b.putLong(v);
        }
        return b.array();
    }

    /** The decision a decider's forward carries ({@link #DECISION}), or -1 when {@code headers} are no forward's. */
    public static long decisionOf(Headers headers) {
        Header h = headers.lastHeader(DECISION);
        return h == null ? -1 : ByteBuffer.wrap(h.value()).getLong();
    }
}
