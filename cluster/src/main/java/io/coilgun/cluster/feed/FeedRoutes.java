package io.coilgun.cluster.feed;

import io.coilgun.planner.model.MetricDef;
import java.util.List;

/** What the cluster's feed needs of its node: which other nodes to lease subscriptions from, and the metrics here. */
public interface FeedRoutes {
    /** The other nodes of the cluster now (their tasks feed this node's subscribers too). */
    List<String> otherNodes();

    /** The metric {@code name} as deployed here on partitioner topic {@code topic}, or null. */
    MetricDef deployedMetric(String topic, String name);
}
