package io.coilgun.cluster.assign;

import io.coilgun.cluster.task.TaskId;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Subscription;
import org.apache.kafka.common.TopicPartition;

/**
 * Kafka's partitions of one rebalance under the cooperative protocol, from the placement: each member gets the
 * partitions of the tasks it leads, except those another member still owns (says it owns in its subscription). Those
 * are <i>withheld</i>: Kafka refuses to give a partition to a new owner in the rebalance that takes it from the old
 * one. The old owner gives it back when it receives this assignment and rejoins, and the next rebalance gives it to
 * its leader. Under the eager protocol no member owns anything while the group rebalances, so nothing is withheld.
 */
public record Handovers(Map<String, List<TopicPartition>> partitions, Set<TaskId> withheld) {
    /** Pure: the same subscriptions and placement give the same partitions. */
    public static Handovers of(Map<String, Subscription> subscriptions, TaskPlacements placements) {
        Map<TopicPartition, Set<String>> owners = new HashMap<>();
        subscriptions.forEach((member, s) -> {
            for (TopicPartition tp : s.ownedPartitions()) {
                owners.computeIfAbsent(tp, k -> new HashSet<>()).add(member);
            }
        });
        Map<String, List<TopicPartition>> out = new HashMap<>();
        Set<TaskId> withheld = new HashSet<>();
        for (String member : subscriptions.keySet()) {
            List<TopicPartition> mine = new ArrayList<>();
            for (TaskId task : placements.activeOf(member)) {
                Set<String> owner = owners.getOrDefault(task.topicPartition(), Set.of());
                if (owner.isEmpty() || owner.contains(member)) { // a stale claim elsewhere just loses it
                    mine.add(task.topicPartition());
                } else {
                    withheld.add(task); // still owned elsewhere: given back first
                }
            }
            out.put(member, mine);
        }
        return new Handovers(out, withheld);
    }

    /** The partitions {@code member} owns after this rebalance. */
    public List<TopicPartition> partitionsOf(String member) {
        return partitions.getOrDefault(member, List.of());
    }
}
