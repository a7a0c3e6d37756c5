package io.coilgun.cluster.unit;

import io.coilgun.cluster.kafka.Topics;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether a processor unit may still act as the active copy of its tasks: its lease on its place in the task group.
 *
 * <p>The group coordinator gives a member's tasks to others only once the member was silent for the session timeout
 * {@code S} (kill -9, a hang, a network cut). A unit knows it was a member when Kafka accepted an offset commit of
 * its generation (the coordinator refuses one from a member it removed, and an accepted one restarts the member's
 * session there) or handed it an assignment. Sent at {@code t}, such a proof keeps the unit in the group until
 * {@code t + S} at least, so the unit acts as active until {@code t + S - margin} and then stops taking records for
 * its active tasks until a new proof comes. A unit cut off from the coordinator, or stalled past its session, so
 * stops answering before any replica is promoted in its place: never two actives, never a reply from a fenced copy.
 *
 * <p>The proof is renewed by a commit every {@code S / 5}, of the catalog topic's partition (which every unit
 * subscribes to and none is assigned: the commit changes nothing any reader uses), whatever the unit's tasks do.
 * Only the unit's thread calls it (commit callbacks run inside its polls).
 */
final class GroupLease {
    private static final Logger LOG = LoggerFactory.getLogger(GroupLease.class);
    /** A commit that proves membership; offsets of the catalog in the task group mean nothing to anyone. */
    private static final Map<TopicPartition, OffsetAndMetadata> TOKEN = Map.of(new TopicPartition(Topics.CATALOG, 0),
            new OffsetAndMetadata(0, "lease"));

    private final long leaseNs;
    private final long renewEveryNs;
    /** When the last proof was sent (System.nanoTime()); the lease runs from there. */
    private long provenAt;
    private boolean proven;
    /** When the last renewal was asked, and whether its answer is still to come. */
    private long askedAt;
    private boolean asking;
    private static final long NEVER = Long.MIN_VALUE;
    /** {@link #provenAt} for other threads (the front end asks whether the node still reaches Kafka). */
    private volatile long lastProof = NEVER;
    /** The partitions of active tasks held back while the lease ran out: paused at their task's next offset. */
    private final List<Map.Entry<Consumer<?, ?>, TopicPartition>> heldBack = new ArrayList<>();
    private final String unitName;

    /** @param sessionTimeoutMs the session timeout the unit's consumer joined the group with */
    GroupLease(String unitName, long sessionTimeoutMs) {
        this.unitName = unitName;
        long margin = Math.max(100, sessionTimeoutMs / 5);
        this.leaseNs = (sessionTimeoutMs - margin) * 1_000_000L;
        this.renewEveryNs = sessionTimeoutMs / 5 * 1_000_000L;
    }

    /** Whether the unit may act as active at {@code now} (System.nanoTime()). */
    boolean held(long now) {
        return proven && now - provenAt < leaseNs;
    }

    /** Kafka confirmed the unit's membership by an answer to a request sent at {@code sentAt} or later. */
    void proven(long sentAt) {
        if (!proven || sentAt - provenAt > 0) {
            provenAt = sentAt;
            proven = true;
            lastProof = sentAt;
        }
        if (!heldBack.isEmpty() && held(System.nanoTime())) {
            LOG.info("unit={} membership proven again: its active tasks go on", unitName);
            for (Map.Entry<Consumer<?, ?>, TopicPartition> e : heldBack) {
                if (e.getKey().assignment().contains(e.getValue())) {
                    e.getKey().resume(List.of(e.getValue()));
                }
            }
            heldBack.clear();
        }
    }

    /**
     * An active task's records came while the lease had run out: its partition in {@code consumer} goes back to
     * {@code next} (the task's next offset) and waits, paused, until the lease is proven again.
     */
    void holdBack(Consumer<?, ?> consumer, TopicPartition tp, long next, long now) {
        if (heldBack.isEmpty()) {
            LOG.warn("unit={} no proof of its membership in the task group for {} ms: its active tasks wait (it may "
                    + "be cut off from Kafka; their replicas take over if it is)", unitName, ageMs(now));
        }
        consumer.seek(tp, next);
        consumer.pause(List.of(tp));
        heldBack.add(Map.entry(consumer, tp));
    }

    /** Asks Kafka for a new proof through {@code active} when one is due at {@code now}. */
    void renewIfDue(Consumer<?, ?> active, long now) {
        boolean due = now - askedAt >= renewEveryNs;
        if (!due || asking && now - askedAt < leaseNs) { // (an answer lost: asked again after a lease)
            return;
        }
        asking = true;
        askedAt = now;
        active.commitAsync(TOKEN, (offsets, e) -> {
            asking = false;
            if (e == null) {
                proven(now);
            }
        });
    }

    /** How long ago the last proof was sent (ms), or -1 before any. */
    long ageMs(long now) {
        return proven ? (now - provenAt) / 1_000_000L : -1;
    }

    /** Any thread: {@link #ageMs} as of the last proof this thread can see. */
    long silenceMs() {
        long last = lastProof;
        return last == NEVER ? -1 : (System.nanoTime() - last) / 1_000_000L;
    }
}
