package io.coilgun.cluster;

import io.coilgun.cluster.kafka.KafkaContact;
import io.coilgun.cluster.kafka.TopicAdmin;
import io.coilgun.cluster.unit.ProcessorUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node's units in the task group: the session they join with (how long a unit may go silent before the group
 * gives its tasks to others: a kill -9, a hang, a network cut) and how long ago Kafka last confirmed one of them,
 * which tells the node whether it still reaches Kafka ({@link KafkaContact}). docs/architecture.md, "Failover in a
 * second".
 */
final class GroupSession {
    private static final Logger LOG = LoggerFactory.getLogger(GroupSession.class);
    /** The session Coilgun asks for; the brokers' {@code group.min.session.timeout.ms} when larger. */
    static final int SESSION_TIMEOUT_MS = Integer.getInteger("coilgun.sessionTimeoutMs", 1000);

    private GroupSession() {
    }

    /**
     * The session timeout the units join the task group with: {@link #SESSION_TIMEOUT_MS}, unless the brokers allow
     * no session that short (Kafka's default minimum is 6 s; Coilgun's own brokers allow 500 ms), then theirs.
     */
    static int timeoutMs(TopicAdmin admin) {
        String min = admin.brokerSetting("group.min.session.timeout.ms");
        int floor = min == null ? SESSION_TIMEOUT_MS : Integer.parseInt(min);
        if (floor > SESSION_TIMEOUT_MS) {
            LOG.warn("the brokers' group.min.session.timeout.ms is {}: a dead node's tasks move to their replicas "
                    + "after {} ms instead of {} (set it to {} or less on the brokers for that)", floor, floor,
                    SESSION_TIMEOUT_MS, SESSION_TIMEOUT_MS);
        }
        return Math.max(floor, SESSION_TIMEOUT_MS);
    }

    /**
     * Whether the node reaches Kafka, from the proofs of membership of its units (the most recent one) and from when
     * a broker last answered one of them.
     */
    static KafkaContact contact(NodeTasks tasks) {
        return new KafkaContact(() -> least(tasks, ProcessorUnit::groupSilenceMs),
                () -> least(tasks, ProcessorUnit::brokerSilenceMs));
    }

    /** The least of the units' silences (ms), -1 when none has a value yet. */
    private static long least(NodeTasks tasks, java.util.function.ToLongFunction<ProcessorUnit> silence) {
        long least = -1;
        for (ProcessorUnit unit : tasks.units()) {
            long s = silence.applyAsLong(unit);
            if (s >= 0) {
                least = least < 0 ? s : Math.min(least, s);
            }
        }
        return least;
    }
}
