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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Coilgun's assignor in Kafka's (classic) consumer group protocol: the group of every processor unit's active
 * consumer. Each member says in its subscription which node and unit it is and what it holds; the leader runs
 * {@link TaskAssignor} over all of them and hands every member its active partitions (Kafka's assignment) plus the
 * whole {@link ClusterView} in the user data, which gives each unit its replicas and each node the map of the
 * cluster.
 *
 * <p><b>Cooperative.</b> The group uses Kafka's cooperative protocol: a rebalance stops no task; each member keeps
 * running what it keeps. A task that moves is handed over in two rebalances, as the protocol wants: in the first, the
 * view already names its new leader, which takes the active role at once (its copy is a caught-up replica, replica
 * first), while Kafka's partition is withheld from everyone; the old leader gives the partition back, which starts the
 * second rebalance, and there the new leader gets it. So a moved task stops only for the moment between its old
 * leader's last event and the new one's first (see {@link Handovers}). Eager is still spoken, for a member that only
 * knows it.
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

        /** The unit is joining the group: what it tells the leader now is what this rebalance knows of it. */
        default void joining() {
        }

        /** The tasks the unit holds now (active, replica) or has data for on disk (stale). */
        Map<TaskId, UnitInfo.Held> held();

        /** How many copies the tasks of a partitioner topic want (the stream's {@code replicas}), for the leader. */
        int copies(String topic);

        /** The placement of this rebalance; the unit's own member id picks its share of it. */
        void assigned(ClusterView view, String memberId);

        /** The view of the last rebalance this unit received (the leader goes on from it). */
        default ClusterView lastView() {
            return ClusterView.EMPTY;
        }

        /** How long the copies of a node that left or drains are awaited back before new ones are made. */
        default long replicaRestoreDelayMs() {
            return 0;
        }

        /** Whether the unit's node is stopping (draining its tasks to the others). */
        default boolean draining() {
            return false;
        }

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
        return List.of(RebalanceProtocol.COOPERATIVE, RebalanceProtocol.EAGER);
    }

    @Override
    public ByteBuffer subscriptionUserData(Set<String> topics) {
        context.joining();
        return AssignmentCodec.encodeSubscription(context.node(), context.unit(), context.held(), context.draining());
    }

    @Override
    public GroupAssignment assign(Cluster metadata, GroupSubscription groupSubscription) {
        Map<String, Subscription> subscriptions = groupSubscription.groupSubscription();
        List<UnitInfo> units = new ArrayList<>();
        Map<String, ClusterView.Member> members = new LinkedHashMap<>();
        Map<String, Set<String>> subscribers = new HashMap<>(); // partitioner topic -> members subscribing to it
        for (var e : subscriptions.entrySet()) {
            UnitInfo unit = AssignmentCodec.decodeSubscription(e.getKey(), e.getValue().userData());
            if (unit == null) { // unreadable: a member of its own node, holding nothing
                unit = new UnitInfo(e.getKey(), "member:" + e.getKey(), 0, Map.of());
            }
            units.add(unit);
            members.put(e.getKey(), new ClusterView.Member(unit.node(), unit.unit()));
            for (String topic : e.getValue().topics()) {
                // the members also subscribe to the catalog topic, to be members with no stream yet
                if (Topics.isPartitioner(topic)) {
                    subscribers.computeIfAbsent(topic, t -> new HashSet<>()).add(e.getKey());
                }
            }
        }
        // A topic only some members subscribe to (the others have not applied its stream yet: a node joining, a
        // stream just created) is placed on those members only, as Kafka refuses partitions a member did not
        // subscribe to; the others get it at their next rebalance. Its tasks keep running meanwhile.
        Map<Set<String>, Map<TaskId, Integer>> groups = new HashMap<>();
        for (var e : subscribers.entrySet()) {
            Integer partitions = metadata.partitionCountForTopic(e.getKey());
            if (partitions == null) {
                continue; // not created yet, or not in this leader's metadata yet
            }
            int wanted = context.copies(e.getKey());
            Map<TaskId, Integer> copies = groups.computeIfAbsent(e.getValue(), k -> new HashMap<>());
            for (int p = 0; p < partitions; p++) {
                copies.put(new TaskId(e.getKey(), p), wanted);
            }
        }
        // a node is back once its units take tasks again: a restarted node joins before it knows its streams
        Set<String> taking = new HashSet<>();
        subscribers.values().forEach(taking::addAll);
        List<UnitInfo> takingUnits = units.stream().filter(u -> taking.contains(u.member())).toList();
        ReplicaRestore restore = ReplicaRestore.of(context.lastView(), takingUnits, System.currentTimeMillis(),
                context.replicaRestoreDelayMs());
        Map<TaskId, Integer> awaited = restore.awaited();
        Map<TaskId, TaskPlacements.Copies> placed = new LinkedHashMap<>();
        Set<TaskId> warming = new HashSet<>();
        for (var g : groups.entrySet()) {
            List<UnitInfo> eligible = units.stream().filter(u -> g.getKey().contains(u.member())).toList();
            TaskPlacements part = TaskAssignor.assign(eligible, g.getValue(), awaited);
            placed.putAll(part.tasks());
            warming.addAll(part.warmingUp());
        }
        TaskPlacements placements = new TaskPlacements(placed, warming);
        if (!placements.warmingUp().isEmpty()) {
            LOG.info("{} tasks stay where they lead while a warm-up copy catches up; rebalancing again in {} ms",
                    placements.warmingUp().size(), WARM_UP_PROBE_MS);
            context.rebalanceIn(WARM_UP_PROBE_MS);
        }
        long restoreIn = restore.nextEndInMs();
        if (restoreIn >= 0) {
            LOG.info("{} tasks await their copies back from {} before new replicas are made; rebalancing again in {} "
                    + "ms", awaited.size(), restore.away().keySet(), restoreIn);
            context.rebalanceIn(restoreIn);
        }
        ByteBuffer view = AssignmentCodec.encodeAssignment(0, members, placements, restore.away());
        Handovers handovers = Handovers.of(subscriptions, placements);
        if (!handovers.withheld().isEmpty()) {
            LOG.info("{} tasks change leader: their new leaders lead them now, their partitions follow at the next "
                    + "rebalance, once given back: {}", handovers.withheld().size(), handovers.withheld());
        }
        Map<String, Assignment> out = new HashMap<>();
        for (String member : subscriptions.keySet()) {
            out.put(member, new Assignment(handovers.partitionsOf(member), view.duplicate()));
        }
        return new GroupAssignment(out);
    }

    @Override
    public void onAssignment(Assignment assignment, ConsumerGroupMetadata metadata) {
        ClusterView view = AssignmentCodec.decodeAssignment(assignment.userData());
        context.assigned(new ClusterView(metadata.generationId(), view.members(), view.placements(), view.away()),
                metadata.memberId());
    }
}
