package io.coilgun.cluster.assign;

import io.coilgun.cluster.kafka.Topics;
import io.coilgun.cluster.task.TaskId;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.Configurable;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Coilgun's assignor in Kafka's (classic) consumer group protocol: the group of every processor unit's active
 * consumer. Each member says in its subscription which node and unit it is and what it holds; the leader runs
 * {@link TaskAssignor} over all of them and hands every member its active partitions (Kafka's assignment) plus the
 * whole {@link ClusterView} in the user data, which gives each unit its replicas and each node the map of the
 * cluster. The eager protocol: every rebalance revokes everything first; the units keep their tasks open across it.
 *
 * <p>Kafka makes the assignor from the consumer's configuration; its unit's {@link UnitContext} comes in the
 * same configuration under {@link #CONTEXT}.
 */
public final class CoilgunAssignor implements ConsumerPartitionAssignor, Configurable {
    private static final Logger LOG = LoggerFactory.getLogger(CoilgunAssignor.class);
    public static final String NAME = "coilgun";
    public static final String CONTEXT = "coilgun.unit.context";

    /** What the assignor asks of its processor unit; called on the unit's thread, inside its poll. */
    public interface UnitContext {
        String node();

        int unit();

        /** The tasks the unit holds now (active, replica) or has data for on disk (stale). */
        Map<TaskId, UnitInfo.Held> held();

        /** How many copies the tasks of a partitioner topic want (the stream's {@code replicas}), for the leader. */
        int copies(String topic);

        /** The placement of this rebalance; the unit's own member id picks its share of it. */
        void assigned(ClusterView view, String memberId);

        /** The leader: rebalance again in {@code delayMs}, to see whether warm-up copies caught up. */
        default void rebalanceIn(long delayMs) {
        }
    }

    /** How soon the leader rebalances again while warm-up copies catch up. */
    static final long WARM_UP_PROBE_MS = Long.getLong("coilgun.warmUpProbeMs", 3000);

    private UnitContext context;

    @Override
    public void configure(Map<String, ?> configs) {
        context = (UnitContext) configs.get(CONTEXT);
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public List<RebalanceProtocol> supportedProtocols() {
        return List.of(RebalanceProtocol.EAGER);
    }

    @Override
    public ByteBuffer subscriptionUserData(Set<String> topics) {
        return AssignmentCodec.encodeSubscription(context.node(), context.unit(), context.held());
    }

    @Override
    public GroupAssignment assign(Cluster metadata, GroupSubscription groupSubscription) {
        Map<String, Subscription> subscriptions = groupSubscription.groupSubscription();
        List<UnitInfo> units = new ArrayList<>();
        Map<String, ClusterView.Member> members = new LinkedHashMap<>();
        Set<String> everyones = null;
        for (var e : subscriptions.entrySet()) {
            UnitInfo unit = AssignmentCodec.decodeSubscription(e.getKey(), e.getValue().userData());
            if (unit == null) { // unreadable: a member of its own node, holding nothing
                unit = new UnitInfo(e.getKey(), "member:" + e.getKey(), 0, Map.of());
            }
            units.add(unit);
            members.put(e.getKey(), new ClusterView.Member(unit.node(), unit.unit()));
            // a topic only some members subscribe to waits: those nodes have not applied its stream yet, and Kafka
            // refuses partitions a member did not subscribe to. The last node to apply it rebalances again.
            if (everyones == null) {
                everyones = new HashSet<>(e.getValue().topics());
            } else {
                everyones.retainAll(e.getValue().topics());
            }
        }
        Map<TaskId, Integer> copies = new HashMap<>();
        for (String topic : everyones == null ? Set.<String>of() : everyones) {
            if (!Topics.isPartitioner(topic)) {
                continue; // the members also subscribe to the catalog topic, to be members with no stream yet
            }
            Integer partitions = metadata.partitionCountForTopic(topic);
            if (partitions == null) {
                continue; // not created yet, or not in this leader's metadata yet
            }
            int wanted = context.copies(topic);
            for (int p = 0; p < partitions; p++) {
                copies.put(new TaskId(topic, p), wanted);
            }
        }
        TaskPlacements placements = TaskAssignor.assign(units, copies);
        if (!placements.warmingUp().isEmpty()) {
            LOG.info("{} tasks stay where they lead while a warm-up copy catches up; rebalancing again in {} ms",
                    placements.warmingUp().size(), WARM_UP_PROBE_MS);
            context.rebalanceIn(WARM_UP_PROBE_MS);
        }
        ByteBuffer view = AssignmentCodec.encodeAssignment(0, members, placements);
        Map<String, Assignment> out = new HashMap<>();
        for (String member : subscriptions.keySet()) {
            List<TopicPartition> partitions = placements.activeOf(member).stream().map(TaskId::topicPartition)
                    .toList();
            out.put(member, new Assignment(partitions, view.duplicate()));
        }
        return new GroupAssignment(out);
    }

    @Override
    public void onAssignment(Assignment assignment, ConsumerGroupMetadata metadata) {
        ClusterView view = AssignmentCodec.decodeAssignment(assignment.userData());
        context.assigned(new ClusterView(metadata.generationId(), view.members(), view.placements()),
                metadata.memberId());
    }
}
