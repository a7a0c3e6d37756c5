package io.coilgun.cluster.unit;

import java.util.Map;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;

/**
 * When a unit's consumer last got bytes from a broker: its heartbeats and fetches come back several times a second
 * while any broker answers. What tells a node cut off from Kafka (nothing comes back at all) from one whose group
 * coordinator is moving after a broker died (the others still answer): {@link io.coilgun.cluster.kafka.KafkaContact}.
 * Sampled on the unit's thread between polls, and again by whoever asks ({@link #silenceMs}): a unit busy with a long
 * event or waiting in a call to a broker that died does not sample, while its consumer's network thread goes on
 * hearing the others.
 */
final class BrokerHearing {
    private static final long NEVER = Long.MIN_VALUE;

    /** How often the unit's thread samples (it loops far more often; the silences judged are seconds). */
    private static final long SAMPLE_EVERY_NS = 100_000_000L;

    private volatile Metric incoming;
    private long sampledAt = NEVER;
    private double lastBytes = -1; // guarded by this
    private volatile long heardAt = NEVER;

    /** Looks at the consumer's bytes received so far (the unit's thread, between polls). */
    void sample(Consumer<?, ?> consumer, long now) {
        if (sampledAt != NEVER && now - sampledAt < SAMPLE_EVERY_NS) {
            return;
        }
        sampledAt = now;
        if (incoming == null) {
            for (Map.Entry<MetricName, ? extends Metric> e : consumer.metrics().entrySet()) {
                if (e.getKey().name().equals("incoming-byte-total") && e.getKey().group().equals("consumer-metrics")) {
                    incoming = e.getValue();
                    break;
                }
            }
        }
        read(now);
    }

    /** Reads the byte count (any thread: a metric's value is read under its own lock). */
    private synchronized void read(long now) {
        Metric m = incoming;
        if (m == null) {
            return;
        }
        Object value = m.metricValue();
        double bytes = value instanceof Number n ? n.doubleValue() : -1;
        if (bytes > lastBytes) {
            lastBytes = bytes;
            heardAt = Math.max(heardAt, now);
        }
    }

    /** How long ago (ms) a broker last answered the unit, or -1 before any did. */
    long silenceMs() {
        long now = System.nanoTime();
        read(now);
        long at = heardAt;
        return at == NEVER ? -1 : (now - at) / 1_000_000L;
    }
}
