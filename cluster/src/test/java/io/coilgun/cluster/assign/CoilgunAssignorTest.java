package io.coilgun.cluster.assign;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coilgun.cluster.task.TaskId;
import io.coilgun.cluster.task.TaskRole;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Assignment;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.GroupSubscription;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Subscription;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** The assignor through Kafka's group protocol types: user data both ways, partitions per member, the view. */
class CoilgunAssignorTest {
    static final String TOPIC = "coilgun.stream.p.card";

    static final class Context implements CoilgunAssignor.UnitContext {
        final String node;
        final int unit;
        final Map<TaskId, UnitInfo.Held> held = new HashMap<>();
        ClusterView view;
        String member;

        Context(String node, int unit) {
            this.node = node;
            this.unit = unit;
        }

        @Override
        public String node() {
            return node;
        }

        @Override
        public int unit() {
            return unit;
        }

        @Override
        public Map<TaskId, UnitInfo.Held> held() {
            return held;
        }

        @Override
        public int copies(String topic) {
            return 2;
        }

        @Override
        public void assigned(ClusterView view, String memberId) {
            this.view = view;
            this.member = memberId;
        }
    }

    static CoilgunAssignor assignor(Context c) {
        CoilgunAssignor a = new CoilgunAssignor();
        a.configure(Map.of(CoilgunAssignor.CONTEXT, c));
        return a;
    }

    static Cluster cluster(String topic, int partitions) {
        Node broker = new Node(0, "127.0.0.1", 9092);
        List<PartitionInfo> infos = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            infos.add(new PartitionInfo(topic, p, broker, new Node[] {broker}, new Node[] {broker}));
        }
        return new Cluster("c", List.of(broker), infos, Set.of(), Set.of());
    }

    @Test
    void theLeaderPlacesActivesAndReplicasAndEveryMemberLearnsTheView() {
        List<Context> contexts = List.of(new Context("n1", 0), new Context("n1", 1), new Context("n2", 0),
                new Context("n3", 0));
        Map<String, Subscription> subs = new HashMap<>();
        for (int i = 0; i < contexts.size(); i++) {
            ByteBuffer data = assignor(contexts.get(i)).subscriptionUserData(Set.of(TOPIC));
            subs.put("m" + i, new Subscription(List.of(TOPIC), data));
        }
        var result = assignor(contexts.get(0)).assign(cluster(TOPIC, 8), new GroupSubscription(subs))
                .groupAssignment();
        Set<TopicPartition> actives = new HashSet<>();
        for (int i = 0; i < contexts.size(); i++) {
            Assignment a = result.get("m" + i);
            assertEquals(2, a.partitions().size(), "8 actives over 4 units");
            actives.addAll(a.partitions());
            assignor(contexts.get(i)).onAssignment(a, new ConsumerGroupMetadata("g", 7, "m" + i,
                    java.util.Optional.empty()));
            assertEquals(7, contexts.get(i).view.generation());
        }
        assertEquals(8, actives.size());
        ClusterView view = contexts.get(0).view;
        assertEquals(List.of("n1", "n2", "n3"), view.nodes());
        for (int p = 0; p < 8; p++) {
            TaskId t = new TaskId(TOPIC, p);
            assertEquals(1, view.replicasOf(t).size());
            assertNotEquals(view.activeOf(t).node(), view.replicasOf(t).get(0).node(), "one copy per node");
        }
    }

    /**
     * A topic only some members subscribe to (the others have not applied its stream yet: a node that just joined)
     * is placed on those members: its tasks keep running; the others get their share at their next rebalance.
     */
    @Test
    void aTopicNotEveryMemberSubscribesStaysWithTheMembersThatDo() {
        Context a = new Context("n1", 0);
        Context b = new Context("n2", 0);
        Map<String, Subscription> subs = Map.of(
                "a", new Subscription(List.of(TOPIC), assignor(a).subscriptionUserData(Set.of(TOPIC))),
                "b", new Subscription(List.of(), assignor(b).subscriptionUserData(Set.of())));
        var result = assignor(a).assign(cluster(TOPIC, 4), new GroupSubscription(subs)).groupAssignment();
        assertEquals(4, result.get("a").partitions().size());
        assertTrue(result.get("b").partitions().isEmpty());
    }

    @Test
    void heldTasksTravelInTheSubscription() {
        Context c = new Context("n9", 3);
        c.held.put(new TaskId(TOPIC, 5), new UnitInfo.Held(TaskRole.STALE, 1234));
        UnitInfo unit = AssignmentCodec.decodeSubscription("x", assignor(c).subscriptionUserData(Set.of()));
        assertEquals(new UnitInfo("x", "n9", 3, c.held), unit);
        assertEquals(null, AssignmentCodec.decodeSubscription("x", ByteBuffer.wrap(new byte[] {0, 0})));
        assertEquals(ClusterView.EMPTY, AssignmentCodec.decodeAssignment(ByteBuffer.wrap(new byte[] {0, 0, 0, 9})));
    }

    /**
     * The cooperative protocol's rule, as Kafka's coordinator checks it: a partition some member owns is never given
     * to another in the same rebalance. A moved active is led by its new unit at once (the view), while its partition
     * is withheld; the next rebalance, after the old owner gave it back, hands the partition over, and the placement
     * stays what it was.
     */
    @Test
    void aMovedActiveIsLedAtOnceAndItsPartitionFollowsOnceGivenBack() {
        Context a = new Context("n1", 0);
        Context b = new Context("n2", 0);
        List<TopicPartition> all = new ArrayList<>();
        for (int p = 0; p < 4; p++) {
            TaskId t = new TaskId(TOPIC, p);
            all.add(t.topicPartition());
            a.held.put(t, new UnitInfo.Held(TaskRole.ACTIVE, 100));
            b.held.put(t, new UnitInfo.Held(TaskRole.REPLICA, 100)); // caught up: the actives may move
        }
        Map<String, Subscription> first = Map.of(
                "a", new Subscription(List.of(TOPIC), assignor(a).subscriptionUserData(Set.of(TOPIC)), all),
                "b", new Subscription(List.of(TOPIC), assignor(b).subscriptionUserData(Set.of(TOPIC)), List.of()));
        var round1 = assignor(a).assign(cluster(TOPIC, 4), new GroupSubscription(first)).groupAssignment();
        assertCooperative(first, round1);
        assertEquals(2, round1.get("a").partitions().size(), "a gives two partitions back");
        assertEquals(List.of(), round1.get("b").partitions(), "withheld while a owns them");
        assignor(a).onAssignment(round1.get("a"), new ConsumerGroupMetadata("g", 1, "a", java.util.Optional.empty()));
        ClusterView view = a.view;
        List<TaskId> movedToB = view.placements().activeOf("b");
        assertEquals(2, movedToB.size(), "b leads two tasks at once, by the view");

        // a gave them back and b led them since: the second rebalance gives b their partitions, nothing else moves
        for (TaskId t : movedToB) {
            a.held.put(t, new UnitInfo.Held(TaskRole.REPLICA, 100));
            b.held.put(t, new UnitInfo.Held(TaskRole.ACTIVE, 110));
        }
        Map<String, Subscription> second = Map.of(
                "a", new Subscription(List.of(TOPIC), assignor(a).subscriptionUserData(Set.of(TOPIC)),
                        round1.get("a").partitions()),
                "b", new Subscription(List.of(TOPIC), assignor(b).subscriptionUserData(Set.of(TOPIC)), List.of()));
        var round2 = assignor(a).assign(cluster(TOPIC, 4), new GroupSubscription(second)).groupAssignment();
        assertCooperative(second, round2);
        assertEquals(round1.get("a").partitions(), round2.get("a").partitions());
        assertEquals(movedToB.stream().map(TaskId::topicPartition).collect(java.util.stream.Collectors.toSet()),
                Set.copyOf(round2.get("b").partitions()));
        assignor(a).onAssignment(round2.get("a"), new ConsumerGroupMetadata("g", 2, "a", java.util.Optional.empty()));
        assertEquals(view.placements().tasks(), a.view.placements().tasks(), "the placement is stable");
    }

    /** Kafka's check of a cooperative assignment: no partition both revoked from one member and added to another. */
    static void assertCooperative(Map<String, Subscription> subs, Map<String, Assignment> assignment) {
        Set<TopicPartition> added = new HashSet<>();
        Set<TopicPartition> revoked = new HashSet<>();
        subs.forEach((m, s) -> {
            Set<TopicPartition> got = new HashSet<>(assignment.get(m).partitions());
            Set<TopicPartition> owned = new HashSet<>(s.ownedPartitions());
            Set<TopicPartition> plus = new HashSet<>(got);
            plus.removeAll(owned);
            owned.removeAll(got);
            added.addAll(plus);
            revoked.addAll(owned);
        });
        added.retainAll(revoked);
        assertEquals(Set.of(), added, "partitions moved directly from one owner to another");
    }
}
